// Load for the boardgame.io server: TABLES matches × PLAYERS clients, each player moving at
// RATE per second (exponential gaps); every other player's receipt of the move is a delivery.
// Prints one JSON line of figures. node load.js PORT TABLES PLAYERS RATE SECONDS RUN
const { Client } = require("boardgame.io/client");
const { SocketIO } = require("boardgame.io/multiplayer");
const { Race } = require("./game");

const [port, tables, players, rate, seconds, run] = process.argv.slice(2).map((v, i) => (i < 5 ? Number(v) : v));
const now = () => performance.now();
const latencies = [];
let offered = 0;
let bytes = 0;
const seen = []; // per client: the move numbers it saw
const clients = [];

for (let t = 0; t < tables; t++) {
  for (let p = 0; p < players; p++) {
    const client = Client({
      game: Race,
      multiplayer: SocketIO({ server: `http://127.0.0.1:${port}` }),
      matchID: `run${run}-t${t}`, // fresh ids every load: the server keeps matches by id
      playerID: String(p),
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

function expo() {
  return -Math.log(1 - Math.random()) / rate;
}

setTimeout(async () => {
  process.stderr.write("PLAY\n"); // the server's CPU is read from here (bench/cpuwindow.py)
  const until = now() + seconds * 1000;
  const loops = clients.map(async ({ client }) => {
    while (!client.getState()) await new Promise((r) => setTimeout(r, 50)); // synced first
    await new Promise((r) => setTimeout(r, Math.random() * 1000 / rate));
    while (now() < until) {
      offered += 1;
      client.moves.play(now());
      await new Promise((r) => setTimeout(r, expo() * 1000));
    }
  });
  await Promise.all(loops);
  await new Promise((r) => setTimeout(r, 2000)); // the last moves' deliveries
  process.stderr.write("DONE\n"); // ... to here
  let accepted = 0;
  for (let t = 0; t < tables; t++) {
    const state = clients[t * players].client.getState();
    accepted += state ? state.G.n : 0;
  }
  let delivered = 0;
  for (const s of seen) delivered += s.size;
  latencies.sort((a, b) => a - b);
  const q = (f) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(f * latencies.length))] : null);
  console.log(
    JSON.stringify({
      offered, accepted, refused: offered - accepted, deliveries: delivered,
      lost: accepted * (players - 1) - delivered,
      p50: q(0.5), p95: q(0.95), p99: q(0.99), bytes: delivered ? bytes / delivered : 0,
      seconds,
    }),
  );
  for (const { client } of clients) client.stop();
  process.exit(0);
}, 1500); // let every client connect and sync first
