'use strict';
// A bot that plays a uniformly random legal action.
//
//   node bots/javascript/random_bot.js --referee HOST:PORT --token T
const { run } = require('./arena_bot');

// a small seeded generator, so a replay can be reproduced
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

const bot = {
  name: 'random-js',
  version: '1',
  random: mulberry32(1),
  onGameStart(start) {
    this.random = mulberry32(start.seat * 7919 + 17);
  },
  act(observation, legalActions) {
    return Math.floor(this.random() * legalActions.length);
  },
};

if (require.main === module) {
  run(bot);
}

module.exports = { bot };
