// boardgame.io's own server for the race game, in memory: PORT=… node server.js
const { Server } = require("boardgame.io/server");
const { Race } = require("./game");

const server = Server({ games: [Race] });
server.run(Number(process.env.PORT || 8000));
