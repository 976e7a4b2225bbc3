// Load for our server, measured the way bench/bgio/load.js measures boardgame.io: one Node
// process of WebSocket clients (the `ws` package), each player moving at RATE per second
// (exponential gaps), every other player's receipt of the move's version a delivery.
//
//   node load.js TABLES.json RATE SECONDS
//
// TABLES.json (written by bench/table_push.py --node): {"mode": "api" | "browser",
// "tables": [{"urls": [...], "headers": [{...}], "origin": "..."}]}, one URL per seat. A flip
// (Ligretto) is always legal and makes the next version of its table, so the k-th flip sent
// to a table makes its k-th version: the time it was sent is the start of that delivery.
// Prints one JSON line of figures.
const fs = require("fs");
const WebSocket = require("ws");

const [file, rate, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const spec = JSON.parse(fs.readFileSync(file, "utf8"));
const api = spec.mode === "api";
const MOVE = process.env.BENCH_ACTION ? JSON.parse(process.env.BENCH_ACTION) : { type: "flip" };
const FLIP = JSON.stringify(api ? { type: "action", action: MOVE } : MOVE);
const BROWSER_VERSION = /id="table-version" data-version="(\d+)"/;
const API_VERSION = /^\{"type": ?"view", ?"view": ?\{.*?"version": ?(\d+)/;
const now = () => performance.now();

let bytes = 0;
let frames = 0;
let refused = 0;
const latencies = [];

function versionOf(text) {
  const m = (api ? API_VERSION : BROWSER_VERSION).exec(text);
  return m ? Number(m[1]) : null;
}

async function open(table) {
  table.sockets = await Promise.all(
    table.urls.map(
      (url, seat) =>
        new Promise((resolve, reject) => {
          const ws = new WebSocket(url, { headers: table.headers[seat] || {}, origin: table.origin });
          ws.seen = new Map(); // version -> when this socket first had it
          ws.on("message", (data) => {
            const text = data.toString();
            const version = versionOf(text);
            if (version === null) {
              if (text.includes('id="table-flash"') || text.startsWith('{"type": "error"')) refused += 1;
              return;
            }
            if (ws.seen.has(version)) return;
            ws.seen.set(version, now());
            if (table.counting) {
              bytes += Buffer.byteLength(text);
              frames += 1;
            }
            table.last = Math.max(table.last, version);
          });
          ws.on("open", () => resolve(ws));
          ws.on("error", reject);
        }),
    ),
  );
}

function expo(perSecond) {
  return -Math.log(1 - Math.random()) / perSecond;
}

async function play(table, until) {
  // Every player at RATE is the table at RATE x players, each move from a random seat.
  const perTable = rate * table.sockets.length;
  table.next = table.last + 1;
  table.sent = new Map(); // version -> [when sent, by which seat]
  while (now() < until) {
    const seat = Math.floor(Math.random() * table.sockets.length);
    table.sent.set(table.next, [now(), seat]);
    table.next += 1;
    table.sockets[seat].send(FLIP);
    await new Promise((r) => setTimeout(r, expo(perTable) * 1000));
  }
}

async function main() {
  const tables = spec.tables.map((t) => ({ ...t, last: 0 }));
  // One table after another (its seats together): on a slow machine 160 handshakes at once
  // could outlast the server's handshake timeout. Connecting is not measured.
  for (const t of tables) await open(t);
  await new Promise((r) => setTimeout(r, 2000)); // whole tables and presence changes settle
  for (const t of tables) t.counting = true;
  process.stderr.write("PLAY\n"); // the server's CPU is read from here (bench/cpuwindow.py)
  const start = now();
  const until = start + seconds * 1000;
  await Promise.all(tables.map((t) => play(t, until)));
  // Read on until every socket has its table's last version (or 60 s): late is not lost.
  const deadline = now() + 60000;
  while (now() < deadline && !tables.every((t) => t.sockets.every((ws) => ws.seen.has(t.next - 1)))) {
    await new Promise((r) => setTimeout(r, 100));
  }
  process.stderr.write("DONE\n"); // ... to here
  let offered = 0;
  let lost = 0;
  let deliveries = 0;
  for (const t of tables) {
    offered += t.sent.size;
    for (const [version, [sent, by]] of t.sent) {
      t.sockets.forEach((ws, seat) => {
        if (seat === by) return; // the mover's own answer is not a delivery (as for boardgame.io)
        const at = ws.seen.get(version);
        if (at !== undefined) {
          deliveries += 1;
          latencies.push(at - sent);
        } else {
          let covered = false;
          for (const v of ws.seen.keys()) if (v > version) covered = true;
          if (!covered) lost += 1;
        }
      });
    }
  }
  latencies.sort((a, b) => a - b);
  const q = (f) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(f * latencies.length))] : null);
  console.log(
    JSON.stringify({
      offered, accepted: offered - refused, refused, deliveries, lost,
      p50: q(0.5), p95: q(0.95), p99: q(0.99), bytes: frames ? bytes / frames : 0, seconds,
    }),
  );
  for (const t of tables) for (const ws of t.sockets) ws.terminate();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
