'use strict';
// Arena bot kit for Node.js: connects a bot object to the referee over gRPC.
//
// It loads the same .proto files as every other SDK (proto/arena/v1 in the Arena repository;
// set ARENA_PROTO_DIR to use a copy elsewhere) with the official @grpc/grpc-js and
// @grpc/proto-loader packages. Field names are the proto names (snake_case).

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTOCOL = 1;
const SDK = 'arena-bot-node/0.1';
const PROTO_DIR = process.env.ARENA_PROTO_DIR || path.resolve(__dirname, '..', '..', 'proto');

// Channel options. Keepalive as the referee's policy allows (PROTOCOL.md, "Keepalive"): a ping
// every 30 s while the stream is open (the referee accepts one every 10 s at most; more often
// gets the connection closed with GOAWAY "too_many_pings"), a connection whose ping is not
// answered in 10 s is given up, and no pings without a call.
const CHANNEL_OPTIONS = Object.freeze({
  'grpc.max_receive_message_length': 4 * 1024 * 1024,
  'grpc.keepalive_time_ms': 30000,
  'grpc.keepalive_timeout_ms': 10000,
  'grpc.keepalive_permit_without_calls': 0,
});

function loadProtocol() {
  const definition = protoLoader.loadSync('arena/v1/bot.proto', {
    includeDirs: [PROTO_DIR],
    keepCase: true, // snake_case field names, as in the .proto files
    longs: Number, // decision ids fit in a double
    enums: String, // notice.kind is 'TIMEOUT', 'REJECTED', ...
    defaults: true,
    oneofs: true, // message.message / observation.game name the field that is set
  });
  return grpc.loadPackageDefinition(definition).arena.v1;
}

// The per-game observation inside an Observation: the field of its `game` oneof that is set,
// named after the game ({clank_legacy: {...}} -> the clank_legacy object), or JSON parsed.
function unwrapObservation(observation) {
  const which = observation.game;
  if (!which) return {};
  if (which === 'json') return JSON.parse(observation.json);
  return observation[which];
}

// The games the wire carries typed actions for: the fields of LegalAction's `typed` oneof, each
// named after its game ('clank', 'alien', 'clank_legacy', ...). Read from the loaded .proto files,
// never listed here, so a new game's proto is picked up by itself. proto-loader's descriptors do
// not say which fields belong to a oneof, so each message field of LegalAction is encoded alone
// and decoded again: a field of the oneof comes back named in `typed`. Computed once.
let typedGames = null;
function gameNames(v1 = loadProtocol()) {
  if (typedGames === null) {
    const codec = v1.BotService.service.Play; // RefereeMessage <-> bytes, with this kit's options
    const names = [];
    for (const field of v1.LegalAction.type.field) {
      if (field.type !== 'TYPE_MESSAGE' || field.label === 'LABEL_REPEATED') continue;
      const probe = { decision: { legal_actions: [{ [field.name]: {} }] } };
      const back = codec.responseDeserialize(codec.responseSerialize(probe));
      if (back.decision.legal_actions[0].typed === field.name) names.push(field.name);
    }
    typedGames = Object.freeze(names);
  }
  return typedGames;
}

// A legal action as {kind, args: [number|string], text, game, <one key per game>, typed}.
// `game` names the game of its typed action (null when the referee sent none); under that
// game's key (action.clank, action.alien, action.clank_legacy, ...) is the typed action, with
// exactly one field set, named like `kind`: action.clank.move.tunnel_index; every other game's
// key is null. `typed` is that inner object directly (action.typed.tunnel_index for a Clank!
// move). PROTOCOL.md lists every kind and field.
function decodeAction(action, games = gameNames()) {
  const game = action.typed || null; // the name of the LegalAction.typed oneof field that is set
  const outer = game ? action[game] : null;
  const decoded = {
    kind: action.kind,
    args: action.args.map((a) => (a.value === 'int_value' ? Number(a.int_value) : a.string_value)),
    text: action.text,
    game,
  };
  for (const name of games) decoded[name] = name === game ? outer : null;
  decoded.typed = outer && outer.action ? outer[outer.action] : null;
  return decoded;
}

// The game's static content from a GameStart (PROTOCOL.md, "Static content"): content_json
// parsed, after checking it against content_digest (SHA-256 hex); null when the referee sent
// none. Its schema is proto/content/<game>.schema.json (Clank!: board, cards, secrets, rules).
function gameContent(start) {
  if (!start.content_json) return null;
  const digest = crypto.createHash('sha256').update(start.content_json, 'utf8').digest('hex');
  if (start.content_digest && digest !== start.content_digest) {
    throw new Error(`content_json hashes to ${digest}, GameStart says ${start.content_digest}`);
  }
  return JSON.parse(start.content_json);
}

// TLS options from the environment: ARENA_TLS=1 turns TLS on (system CAs), ARENA_CA=FILE trusts
// the CA certificate(s) in that PEM file (and turns TLS on).
function tlsFromEnv(env = process.env) {
  const ca = env.ARENA_CA || null;
  const on = ['1', 'true', 'yes', 'on'].includes(String(env.ARENA_TLS || '').trim().toLowerCase());
  return { tls: on || ca !== null, ca };
}

// Channel credentials: plaintext, or TLS trusting `ca` (a PEM file path) or the system's roots.
function credentials(tls) {
  if (!tls || !tls.tls) return grpc.credentials.createInsecure();
  return grpc.credentials.createSsl(tls.ca ? fs.readFileSync(tls.ca) : null);
}

// Is the notice about this request? A notice about no decision (FORFEIT, a message that was
// not an answer) leaves decision_id unset: ids start at 0, so presence is tested, not zero.
function namesDecision(notice, request) {
  return notice._decision_id === 'decision_id' && Number(notice.decision_id) === Number(request.decision_id);
}

function parseArgs(argv) {
  const out = { referee: process.env.ARENA_REFEREE, token: process.env.ARENA_TOKEN, ...tlsFromEnv() };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--referee') out.referee = argv[(i += 1)];
    else if (argv[i] === '--token') out.token = argv[(i += 1)];
    else if (argv[i] === '--tls') out.tls = true;
    else if (argv[i] === '--ca') {
      out.ca = argv[(i += 1)];
      out.tls = true;
    }
  }
  if (!out.referee || !out.token) {
    throw new Error('give --referee HOST:PORT and --token T (or ARENA_REFEREE and ARENA_TOKEN)');
  }
  return out;
}

// marks an error thrown by the bot's own code (not the referee's refusal or a broken stream)
const IN_BOT = Symbol('arena.inBot');

// Play one match session. `bot` has act(observation, legalActions, request) -> index (may be
// async), and optional name, version, onGameStart(start), onNotice(notice), onGameEnd(end).
// Resolves with the GameEnd message; rejects if the referee refuses the session.
// `tls`: {tls: true, ca: 'ca.pem'} for a referee serving TLS (default plaintext).
function play(bot, referee, token, tls = null) {
  const v1 = loadProtocol();
  const games = gameNames(v1);
  let creds;
  try {
    creds = credentials(tls);
  } catch (err) {
    // an unreadable CA file: a rejected promise like any other refusal, with a clear message
    return Promise.reject(new Error(`cannot read the CA file ${tls && tls.ca}: ${err.message}`));
  }
  const client = new v1.BotService(referee, creds, { ...CHANNEL_OPTIONS });
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return new Promise((resolve, reject) => {
    const call = client.Play(metadata);
    let end = null;
    let queue = Promise.resolve();
    // the decision asked and not yet settled (a rejected answer leaves it open)
    let pending = null;
    const answer = async (request) => {
      const actions = request.legal_actions.map((a) => decodeAction(a, games));
      const index = await bot.act(unwrapObservation(request.observation), actions, request);
      const note = typeof bot.note === 'string' ? bot.note.slice(0, 256) : '';
      call.write({ answer: { decision_id: request.decision_id, index, note } });
    };
    call.on('data', (msg) => {
      // decisions are answered in order, even when act() is async
      queue = queue.then(async () => {
        if (msg.message === 'decision') {
          pending = msg.decision;
          await answer(pending);
        } else if (msg.message === 'game_start') {
          msg.game_start.content = gameContent(msg.game_start); // parsed once for the bot
          if (bot.onGameStart) bot.onGameStart(msg.game_start);
        } else if (msg.message === 'notice') {
          const notice = msg.notice;
          if (bot.onNotice) bot.onNotice(notice);
          else console.error(`[${bot.name}] referee notice: ${notice.code} ${notice.message}`);
          if (pending !== null && namesDecision(notice, pending)) {
            // REJECTED: the decision is still open and its clock runs on: ask act() again now
            // rather than let it wait out the whole time bank. TIMEOUT: it is settled.
            if (notice.kind === 'REJECTED') await answer(pending);
            else pending = null;
          } else if (notice.kind === 'FORFEIT') {
            pending = null;
          }
        } else if (msg.message === 'game_end') {
          pending = null;
          end = msg.game_end;
          if (bot.onGameEnd) bot.onGameEnd(end);
        }
      }).catch((err) => {
        // thrown by the bot's own code (act, onGameStart, ...), not sent by the referee
        const failure = err instanceof Error ? err : new Error(String(err));
        failure[IN_BOT] = true;
        call.cancel();
        reject(failure);
      });
    });
    call.on('error', (err) => {
      client.close();
      reject(err);
    });
    call.on('end', () => {
      queue.then(() => {
        call.end();
        client.close();
        resolve(end);
      });
    });
    call.write({
      hello: { bot_name: bot.name || 'js-bot', bot_version: bot.version || '0', sdk: SDK, protocol: PROTOCOL },
    });
  });
}

// Command-line entry: node my_bot.js --referee HOST:PORT --token T [--tls] [--ca FILE]
// (or ARENA_REFEREE, ARENA_TOKEN, ARENA_TLS=1, ARENA_CA).
function run(bot, argv = process.argv.slice(2)) {
  let args;
  try {
    args = parseArgs(argv);
  } catch (err) {
    console.error(err.message);
    process.exitCode = 2;
    return Promise.resolve(null);
  }
  return play(bot, args.referee, args.token, { tls: args.tls, ca: args.ca }).then(
    (end) => {
      process.exitCode = end ? 0 : 1;
      return end;
    },
    (err) => {
      if (err[IN_BOT]) {
        // the stack says where; its first line, the error, is what `arena match` quotes
        console.error(`[${bot.name}] the bot's own code failed, so it left the match:\n${err.stack}`);
        process.exitCode = 1;
        return null;
      }
      const name = Object.keys(grpc.status).find((k) => grpc.status[k] === err.code);
      const code = err.code === undefined ? '' : `${err.code}${name ? ` (${name})` : ''} `;
      // UNAVAILABLE (14) without TLS: a referee serving TLS closes a plaintext client's socket
      const hint = err.code === grpc.status.UNAVAILABLE && !args.tls
        ? ' (connected without TLS: if the referee serves TLS, add --tls, or --ca FILE for its own CA)'
        : '';
      console.error(`[${bot.name}] referee closed the session: ${code}${err.details || err.message}${hint}`);
      process.exitCode = 1;
      return null;
    },
  );
}

module.exports = {
  PROTOCOL, CHANNEL_OPTIONS, loadProtocol, gameNames, unwrapObservation, decodeAction, gameContent, credentials,
  tlsFromEnv, play, run,
};
