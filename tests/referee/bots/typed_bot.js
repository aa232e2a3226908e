'use strict';
// A JavaScript bot that reads only the typed legal actions (action.clank / action.alien /
// action.clank_legacy / action.typed from the kit's decodeAction), never `args`. It stops with exit code 3 if an action
// comes without its typed form or with a typed kind other than `kind`. One line per decision:
//   chose <decision_id> <kind> <to_room (Clank! Legacy: to_space) or ->
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
      const outer = a.clank || a.alien || a.clank_legacy;
      if (!outer || !a.typed) fail(`untyped legal action: ${a.text}`);
      if (outer.action !== a.kind) fail(`typed kind ${outer.action} is not the action's kind ${a.kind}`);
      return outer.action;
    });
    let index = 0;
    if (request.kind === 'turn') {
      const legacy = legalActions[0].clank_legacy !== null;
      const clank = legalActions[0].clank !== null || legacy;
      index = legalActions.length - 1;
      const order = clank ? CLANK_ORDER : ALIEN_ORDER;
      search: for (const wanted of order) {
        for (let i = 0; i < kinds.length; i += 1) {
          if (kinds[i] !== wanted) continue;
          const typed = legalActions[i].typed;
          if (clank && wanted === 'take' && typed.token !== 'artifact') continue;
          const to = legacy ? typed.to_space : typed.to_room;
          if (clank && wanted === 'move' && (typed.damage > 0 || to === this.cameFrom)) continue;
          index = i;
          break search;
        }
      }
    }
    let toRoom = '-';
    if (kinds[index] === 'move' && (legalActions[index].clank || legalActions[index].clank_legacy)) {
      const chosen = legalActions[index];
      toRoom = chosen.clank ? chosen.clank.move.to_room : chosen.clank_legacy.move.to_space;
      this.cameFrom = this.here;
      this.here = toRoom;
    }
    console.log(`chose ${request.decision_id} ${kinds[index]} ${toRoom}`);
    return index;
  },
};

run(bot);
