'use strict';
// A well-behaved hosted JavaScript bot: random legal moves through the kit (require('arena_bot')).
const fs = require('fs');
const path = require('path');
const { run } = require('arena_bot');

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const scratch = process.env.ARENA_SCRATCH || '/tmp';
fs.writeFileSync(path.join(scratch, 'notes.txt'), 'hello');
process.stderr.write(JSON.stringify({ check: 'write scratch', ok: true }) + '\n');

const bot = {
  name: 'well-behaved-js',
  version: '1',
  random: mulberry32(1),
  onGameStart(start) {
    this.random = mulberry32(start.seat * 7919 + 17);
  },
  act(observation, legalActions) {
    return Math.floor(this.random() * legalActions.length);
  },
};

run(bot);
