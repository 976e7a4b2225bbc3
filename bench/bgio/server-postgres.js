// boardgame.io's own server for the race game, durable: its PostgreSQL storage adapter
// (bgio-postgres, Sequelize) instead of the in-memory store. Every move is fetched from and
// written back to the database. DATABASE_URL=postgres://… PORT=… node server-postgres.js
const { Server } = require("boardgame.io/server");
const { PostgresStore } = require("bgio-postgres");
const { Race } = require("./game");

// Sequelize logs every statement to stdout unless told not to; a deployment would not.
const db = new PostgresStore(process.env.DATABASE_URL, { logging: false });
const server = Server({ games: [Race], db });
server.run(Number(process.env.PORT || 8000));
