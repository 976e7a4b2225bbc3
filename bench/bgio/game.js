// A toy everyone-moves-at-once race game for boardgame.io 0.50.2, the benchmark's reference:
// every player may move at any time (ignoreStaleStateID), each move changes what everybody
// sees, and each player holds a secret that playerView strips from the others' views.
const { ActivePlayers } = require("boardgame.io/core");

const Race = {
  name: "race",
  setup: ({ ctx }) => {
    const secret = {};
    for (let p = 0; p < ctx.numPlayers; p++) secret[p] = Array.from({ length: 10 }, (_, i) => (p * 7 + i) % 13);
    return { n: 0, pile: [], last: null, secret, counts: Array(ctx.numPlayers).fill(0) };
  },
  turn: { activePlayers: ActivePlayers.ALL },
  moves: {
    play: {
      move: ({ G, playerID }, sent) => {
        G.n += 1;
        G.counts[playerID] += 1;
        G.pile.push(G.n % 13);
        if (G.pile.length > 5) G.pile.shift();
        G.last = { n: G.n, by: playerID, sent };
      },
      ignoreStaleStateID: true,
      client: false,
    },
  },
  playerView: ({ G, playerID }) => ({ ...G, secret: { [playerID]: G.secret[playerID] } }),
};

module.exports = { Race };
