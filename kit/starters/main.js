// A starter bot for Arbiter (game: __GAME__), for Node.js.
//
// It speaks the protocol (docs/bots.md): one JSON object per line on stdin,
// one answer per line on stdout.  Debug output goes to stderr (console.error).
// It plays a random legal move; make it stronger in chooseMove.
"use strict";

const readline = require("readline");

// A small seeded generator, so the same match replays the same way.
function makeRng(text) {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return () => {
    h = (Math.imul(h, 1664525) + 1013904223) >>> 0;
    return h / 4294967296;
  };
}

// The move to play.  Add your search here: `observation` is what your seat
// may see (the game's rules page lists its fields), `legalMoves` every legal
// answer.  A good first step: score each move with a heuristic and keep the best.
function chooseMove(observation, legalMoves, seat, rng) {
  return legalMoves[Math.floor(rng() * legalMoves.length)];
}

let seat = 0;
let rng = makeRng("");
const input = readline.createInterface({ input: process.stdin, terminal: false });

input.on("line", (line) => {
  const message = JSON.parse(line);
  let reply = null;
  if (message.type === "start") {
    seat = message.seat;
    rng = makeRng(`${message.match}:${seat}`);
    reply = { type: "ready", name: "__NAME__", version: "1" };
  } else if (message.type === "turn") {
    reply = { move: chooseMove(message.observation, message.legal_moves, seat, rng) };
  } else if (message.type === "end") {
    input.close();
    return;
  }
  // On Linux, Node writes to a pipe synchronously: the answer leaves at once, no flush
  // needed.  One write per answer keeps the line in one piece.
  if (reply !== null) process.stdout.write(JSON.stringify(reply) + "\n");
});
