'use strict';
// A JavaScript bot that reads only the typed legal actions (action.clank / action.alien /
// action.typed from the kit's decodeAction), never `args`. It stops with exit code 3 if an action
// comes without its typed form or with a typed kind other than `kind`. One line per decision:
//   chose <decision_id> <kind> <to_room or ->
const path = require('path');
const { run } = require(path.resolve(__dirname, '..', '..', '..', 'bots', 'javascript', 'arena_bot.js'));

const CLANK_ORDER = ['take', 'play', 'move', 'acquire', 'fight', 'end_turn'];
const ALIEN_ORDER = ['play', 'fight', 'recruit', 'scan', 'end_turn'];

function fail(message) {
  console.error(message);
  process.exit(3);
}

const bot = {
  name: 'typed-js',
  version: '1',
  cameFrom: '',
  here: '',
  act(observation, legalActions, request) {
    const kinds = legalActions.map((a) => {
      const outer = a.clank || a.alien;
      if (!outer || !a.typed) fail(`untyped legal action: ${a.text}`);
      if (outer.action !== a.kind) fail(`typed kind ${outer.action} is not the action's kind ${a.kind}`);
      return outer.action;
    });
    let index = 0;
    if (request.kind === 'turn') {
      const clank = legalActions[0].clank !== null;
      index = legalActions.length - 1;
      const order = clank ? CLANK_ORDER : ALIEN_ORDER;
      search: for (const wanted of order) {
        for (let i = 0; i < kinds.length; i += 1) {
          if (kinds[i] !== wanted) continue;
          const typed = legalActions[i].typed;
          if (clank && wanted === 'take' && typed.token !== 'artifact') continue;
          if (clank && wanted === 'move' && (typed.damage > 0 || typed.to_room === this.cameFrom)) continue;
          index = i;
          break search;
        }
      }
    }
    let toRoom = '-';
    if (kinds[index] === 'move' && legalActions[index].clank) {
      toRoom = legalActions[index].clank.move.to_room;
      this.cameFrom = this.here;
      this.here = toRoom;
    }
    console.log(`chose ${request.decision_id} ${kinds[index]} ${toRoom}`);
    return index;
  },
};

run(bot);
