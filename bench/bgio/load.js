// Load for the boardgame.io server: TABLES matches × PLAYERS clients, each player moving at
// RATE per second (exponential gaps); every other player's receipt of the move is a delivery.
// Prints one JSON line of figures. node load.js PORT TABLES PLAYERS RATE SECONDS
//
// Each match is made as a deployment makes it, through boardgame.io's Lobby API (create, then
// each player joins and moves with the credentials it got): a client that syncs to an unknown
// match id makes it on the fly, and with an asynchronous store (PostgreSQL) the table's other
// players do the same at the same moment, whose second INSERT fails and stops the server.
const { Client } = require("boardgame.io/client");
const { SocketIO } = require("boardgame.io/multiplayer");
const { Race } = require("./game");

const [port, tables, players, rate, seconds] = process.argv.slice(2).map(Number);
const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const latencies = [];
let offered = 0;
let bytes = 0;
const seen = []; // per client: the move numbers it saw
const clients = [];

async function lobby(path, body) {
  const answer = await fetch(`http://127.0.0.1:${port}/games/${Race.name}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`POST ${path}: ${answer.status} ${await answer.text()}`);
  return answer.json();
}

function expo() {
  return -Math.log(1 - Math.random()) / rate;
}

function count(client) {
  const state = client.getState();
  return state ? state.G.n : -1; // -1: never synced
}

async function main() {
  // Every seat of every match is taken before any client syncs: a sync writes the match's
  // metadata back as it read it (the player now connected), and on an asynchronous store a
  // join in between is lost with its credentials, whose player's sync is then refused.
  const matches = [];
  for (let t = 0; t < tables; t++) {
    const { matchID } = await lobby("/create", { numPlayers: players, unlisted: true });
    const credentials = [];
    for (let p = 0; p < players; p++) {
      const { playerCredentials } = await lobby(`/${matchID}/join`, { playerID: String(p), playerName: `p${p}` });
      credentials.push(playerCredentials);
    }
    matches.push({ matchID, credentials });
  }
  for (let t = 0; t < tables; t++) {
    const { matchID, credentials } = matches[t];
    for (let p = 0; p < players; p++) {
      const client = Client({
        game: Race,
        multiplayer: SocketIO({ server: `http://127.0.0.1:${port}` }),
        matchID,
        playerID: String(p),
        credentials: credentials[p],
        numPlayers: players,
        debug: false,
      });
      const mine = new Set();
      seen.push(mine);
      client.subscribe((state) => {
        if (!state || !state.G.last) return;
        const { n, by, sent } = state.G.last;
        if (by === String(p) || mine.has(n)) return;
        mine.add(n);
        latencies.push(now() - sent);
        bytes += JSON.stringify({ G: state.G, ctx: state.ctx }).length;
      });
      client.start();
      clients.push({ client, table: t });
    }
  }
  // Let every client connect and sync first (at least 1.5 s, at most 30 s more): on a store
  // a sync reads the whole match, log included, and moves made before the last player has
  // synced delay that player's first view, which is not what is measured (ours settles too).
  await sleep(1500);
  const synced = now() + 30000;
  while (clients.some(({ client }) => !client.getState()) && now() < synced) await sleep(50);
  process.stderr.write("PLAY\n"); // the server's CPU is read from here (bench/cpuwindow.py)
  const until = now() + seconds * 1000;
  const loops = clients.map(async ({ client }) => {
    while (!client.getState() && now() < until) await sleep(50); // synced first
    await sleep((Math.random() * 1000) / rate);
    while (now() < until) {
      offered += 1;
      client.moves.play(now());
      await sleep(expo() * 1000);
    }
  });
  await Promise.all(loops);
  // The last moves' deliveries: read on until every client of every match has the same count
  // and nothing has changed for 2 s (or 60 s): a move still queued in the server is late, not
  // lost. A client that never synced does not move (its deliveries are lost).
  const deadline = now() + 60000;
  let last = "";
  let since = now();
  while (now() < deadline) {
    const counts = clients.map(({ client }) => count(client));
    const key = counts.join(",");
    const top = counts.map((_, i) => Math.max(...counts.slice(i - (i % players), i - (i % players) + players)));
    const agree = counts.every((n, i) => n === -1 || n === top[i]);
    if (key !== last) [last, since] = [key, now()];
    else if (agree && now() - since >= 2000) break;
    await sleep(100);
  }
  process.stderr.write("DONE\n"); // ... to here
  let accepted = 0;
  for (let t = 0; t < tables; t++) {
    accepted += Math.max(0, ...clients.slice(t * players, (t + 1) * players).map(({ client }) => count(client)));
  }
  const unsynced = clients.filter(({ client }) => !client.getState()).length;
  let delivered = 0;
  for (const s of seen) delivered += s.size;
  latencies.sort((a, b) => a - b);
  const q = (f) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(f * latencies.length))] : null);
  // boardgame.io refuses nothing here (every player may move, ignoreStaleStateID), so a move
  // sent and not in its match's final count was not applied (still queued after 60 s, or lost
  // without a word to its player): its deliveries are lost, as are the ones that never came.
  console.log(
    JSON.stringify({
      offered, accepted, refused: 0, not_in_match: offered - accepted, unsynced, deliveries: delivered,
      lost: offered * (players - 1) - delivered,
      p50: q(0.5), p95: q(0.95), p99: q(0.99), bytes: delivered ? bytes / delivered : 0,
      seconds,
    }),
  );
  for (const { client } of clients) client.stop();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
