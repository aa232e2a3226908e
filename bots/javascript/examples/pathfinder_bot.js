'use strict';
// A Clank! bot that plans its route on the board the referee sends at game start.
//
//   node bots/javascript/examples/pathfinder_bot.js --referee HOST:PORT --token T
//
// It knows the board only from the wire: GameStart.content (the game's static content, see
// PROTOCOL.md "Static content" and proto/content/clank.schema.json), the observations and the
// typed legal actions. Each turn it plays its hand, then walks the cheapest route (in Boots,
// avoiding locked tunnels and, when it can, monsters) to the nearest room still holding an
// artifact, takes it, and walks back to the entrance to escape. With the Skill left it buys
// Explore-like cards (the most Boots for the Skill, read from the content's card effects).
// Without the content it cannot plan at all: it says so and exits with status 3.
const { run } = require('../arena_bot');

const NO_CONTENT_EXIT = 3;

// Boots a card's play effects give (the first option of a choice counts: a floor, not a promise).
function bootsOf(effects) {
  let boots = 0;
  for (const e of effects || []) {
    if (e.op === 'boots') boots += e.n;
    else if (e.op === 'choose' && e.options && e.options.length) boots += Math.max(0, ...e.options.map(bootsOf));
  }
  return boots;
}

// The board as an adjacency list: room -> [{tunnel, to, boots, monsters, locked}], from
// board.exits (which already respects one-way arrows).
function graphOf(board) {
  const graph = {};
  for (const [room, exits] of Object.entries(board.exits)) {
    graph[room] = exits.map((index) => {
      const t = board.tunnels[index];
      return { tunnel: index, to: t.a === room ? t.b : t.a, boots: t.boots, monsters: t.monsters, locked: t.locked };
    });
  }
  return graph;
}

// Cost of a tunnel for the planner: its Boots, plus a little per monster so that, of two routes
// as long, the one without damage wins. Locked tunnels are closed without a Master Key.
function edgeCost(edge, hasKey) {
  if (edge.locked && !hasKey) return Infinity;
  return edge.boots + 0.25 * edge.monsters;
}

// Dijkstra from every target at once over reversed edges: the cost from each room to the
// nearest target.
function distancesTo(graph, targets, hasKey) {
  const reverse = {};
  for (const room of Object.keys(graph)) reverse[room] = [];
  for (const [room, edges] of Object.entries(graph)) {
    for (const e of edges) reverse[e.to].push({ from: room, cost: edgeCost(e, hasKey) });
  }
  const dist = {};
  for (const room of Object.keys(graph)) dist[room] = Infinity;
  const open = [];
  for (const t of targets) {
    dist[t] = 0;
    open.push(t);
  }
  while (open.length) {
    // ~40 rooms: a linear scan for the closest open room is simpler than a heap and as fast
    let best = 0;
    for (let i = 1; i < open.length; i += 1) if (dist[open[i]] < dist[open[best]]) best = i;
    const room = open.splice(best, 1)[0];
    for (const { from, cost } of reverse[room]) {
      if (dist[room] + cost < dist[from]) {
        if (dist[from] === Infinity) open.push(from);
        dist[from] = dist[room] + cost;
      }
    }
  }
  return dist;
}

// The typed Clank! action of a decoded legal action as {kind, ...its fields} (action.typed, see
// PROTOCOL.md "Clank! actions"), falling back to the documented args for a referee that sends
// no typed actions.
function typedOf(action) {
  if (action.clank && action.typed) return { kind: action.clank.action, ...action.typed };
  const args = action.args;
  if (action.kind === 'move') return { kind: 'move', tunnel_index: args[0], swords_spent: args[1] };
  if (action.kind === 'teleport') return { kind: 'teleport', tunnel_index: args[0] };
  if (action.kind === 'take') return { kind: 'take', token: args[0] };
  if (action.kind === 'acquire' || action.kind === 'fight') return { kind: action.kind, slot: args[0] };
  if (action.kind === 'buy_reserve' || action.kind === 'play') return { kind: action.kind, card: args[0] };
  if (action.kind === 'trash') return { kind: 'trash', zone: args[0], card: args[1] };
  if (action.kind === 'choose') return { kind: 'choose', option: args[0] };
  return { kind: action.kind };
}

const bot = {
  name: 'pathfinder-js',
  version: '1',
  content: null,
  graph: null,
  seat: 0,

  onGameStart(start) {
    this.seat = start.seat;
    this.content = start.content;
    if (!this.content || !this.content.board) {
      console.error(`[${this.name}] GameStart carries no static content (content_json): no board to path-find on`);
      process.exit(NO_CONTENT_EXIT);
    }
    this.graph = graphOf(this.content.board);
  },

  act(observation, legalActions, request) {
    const actions = legalActions.map(typedOf);
    const find = (pred) => actions.findIndex(pred);
    if (request.kind === 'turn') return this.turn(observation, actions, find);
    if (request.kind === 'trash') {
      // thin the deck of the cards that only make noise
      const stumble = find((a) => a.kind === 'trash' && this.content.cards[a.card].play.some((e) => e.op === 'clank'));
      return stumble >= 0 ? stumble : Math.max(0, find((a) => a.kind === 'skip'));
    }
    if (request.kind === 'choose') {
      const options = (observation.pending && observation.pending.options) || [];
      let best = 0;
      options.forEach((o, i) => {
        if (bootsOf(o.effects) > bootsOf(options[best].effects)) best = i;
      });
      const index = find((a) => a.kind === 'choose' && a.option === best);
      return index >= 0 ? index : 0;
    }
    const skip = find((a) => a.kind === 'skip');
    return skip >= 0 ? skip : 0;
  },

  turn(obs, actions, find) {
    const me = obs.players[this.seat];
    const board = this.content.board;
    const hasKey = (me.items || []).includes('master_key');
    const holding = (me.artifacts || []).length > 0;

    const take = find((a) => a.kind === 'take' && a.token === 'artifact');
    if (take >= 0 && !holding) {
      this.note = `artifact in ${me.room}`;
      return take;
    }
    const play = find((a) => a.kind === 'play');
    if (play >= 0) return play;

    // where to: the nearest artifact still on the board, or out through the entrance
    const targets = holding ? [board.start] : Object.keys(obs.artifacts || {});
    if (targets.length) {
      const dist = distancesTo(this.graph, targets, hasKey);
      const here = dist[me.room];
      let bestIndex = -1;
      let bestValue = Infinity;
      actions.forEach((a, i) => {
        let to;
        let value;
        if (a.kind === 'move') {
          const edge = this.graph[me.room].find((e) => e.tunnel === a.tunnel_index);
          if (!edge) return;
          to = edge.to;
          if (a.to_room && a.to_room !== to) {
            // the board sent at game start is not the board being played: planning is void
            throw new Error(`tunnel ${a.tunnel_index} leads to ${a.to_room}, the content says ${to}`);
          }
          if (!(dist[to] < here)) return; // only steps that get closer
          // the route through this tunnel; of the same tunnel, spend swords rather than take damage
          value = edgeCost(edge, hasKey) + dist[to] - 0.01 * a.swords_spent;
        } else if (a.kind === 'teleport') {
          const t = board.tunnels[a.tunnel_index];
          to = t.a === me.room ? t.b : t.a;
          value = dist[to];
          if (!(value < here)) return;
        } else {
          return;
        }
        if (value < bestValue || bestIndex < 0) {
          bestValue = value;
          bestIndex = i;
        }
      });
      if (bestIndex >= 0) {
        this.note = `towards ${holding ? 'the exit' : 'an artifact'}: ${here} boots away`;
        return bestIndex;
      }
    }

    // Skill left: buy what moves us fastest (most Boots per Skill), from the row or the reserve
    let buy = -1;
    let buyBoots = 0;
    actions.forEach((a, i) => {
      let card = null;
      if (a.kind === 'acquire') card = obs.row[a.slot];
      else if (a.kind === 'buy_reserve') card = a.card;
      if (!card) return;
      const boots = bootsOf(this.content.cards[card].play);
      if (boots > buyBoots) {
        buy = i;
        buyBoots = boots;
      }
    });
    if (buy >= 0) return buy;
    const end = find((a) => a.kind === 'end_turn');
    return end >= 0 ? end : 0;
  },
};

if (require.main === module) {
  run(bot);
}

module.exports = { bot, distancesTo, graphOf, bootsOf };
