'use strict';
// The JavaScript kit's twin of reask_bot.py: its first answer is an index past the end of the
// legal actions; the kit must call act() again for that decision after the REJECTED notice.
// Prints "asked <decision id> <count>" on every act() call.

const { run } = require('../../../bots/javascript/arena_bot.js');

const asked = new Map();
let calls = 0;

const bot = {
  name: 'reask-js',
  version: '1',
  act(observation, legalActions, request) {
    const id = Number(request.decision_id);
    asked.set(id, (asked.get(id) || 0) + 1);
    calls += 1;
    console.log(`asked ${id} ${asked.get(id)}`);
    if (calls === 1) return legalActions.length; // refused: REJECTED, the decision stays open
    return Math.floor(Math.random() * legalActions.length);
  },
  onNotice(notice) {
    console.error(`notice ${notice.kind} ${notice.code} ${notice.message}`);
  },
};

run(bot);
