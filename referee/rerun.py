"""`arena replay rerun`: put your bot back at a moment of a recorded game, over the real protocol.

``--step K --seat N``: the game is rebuilt as it was when step K was decided (the recorded steps
1..K-1 re-applied to ``new_game(config, seed)``, every digest checked), a referee is started in
this process exactly as ``arena match`` starts one, and your bot command is launched into seat N
and connects over gRPC like any bot. It is sent the same GameStart and the same DecisionRequest
(observation, prompt, legal actions, decision id) its seat was sent at step K; its answer is
compared with the recorded one, and the session ends. The other seats are filled with a
built-in example bot (``--others``), which are never asked in this mode.

``--from K``: the same start, then the game plays on to its end with your bot in seat N and
the ``--others`` bots elsewhere; the new replay holds the recorded steps 1..K-1 and the new ones,
so ``arena replay verify`` checks it from the first step.

Your bot runs on this machine, outside any sandbox, from the folder you run the command in; as
in the sandbox, ``arena_bot`` (the Python SDK) and ``require('arena_bot')`` (the JavaScript kit)
resolve to this checkout's (:func:`sdk_env`, after whatever your environment already gives), so
the README's bot reruns as it played on the ladder without installing the SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core.game import canonical_json
from referee.replay import ReplayError, loads, simulate

__all__ = ["RerunResult", "default_other_bot", "rerun", "sdk_env"]


def default_other_bot() -> str:
    """The command of the random example bot of the Python SDK, in this checkout."""
    script = Path(__file__).resolve().parents[1] / "bots" / "python" / "examples" / "random_bot.py"
    return f"{sys.executable} {script}"


def sdk_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with this checkout's bot SDKs importable by the names the sandbox gives them
    (``workers/SANDBOX.md``): ``bots/python`` (holding ``arena_bot``) appended to PYTHONPATH,
    ``bots/javascript`` and its ``node_modules`` to NODE_PATH. Appended: an SDK the user
    installed still comes first."""
    repo = Path(__file__).resolve().parents[1]
    python_sdk = repo / "bots" / "python"
    js_kit = repo / "bots" / "javascript"
    out = dict(env)

    def append(name: str, folders: Sequence[Path]) -> None:
        present = [str(f) for f in folders if f.is_dir()]
        if present:
            out[name] = os.pathsep.join([p for p in [out.get(name, "")] if p] + present)

    append("PYTHONPATH", [python_sdk] if (python_sdk / "arena_bot").is_dir() else [])
    append("NODE_PATH", [js_kit, js_kit / "node_modules"])
    return out


@dataclass
class RerunResult:
    """What a rerun saw: the recorded step K and the new one, and the new replay."""

    step: int
    seat: int
    decision: int
    prompt: str
    actions: list[str]
    recorded: Mapping[str, Any]
    answered: Mapping[str, Any] | None
    ended_by: str
    replay: dict[str, Any] = field(default_factory=dict)
    log_dir: Path | None = None


def _prefix(replay: Mapping[str, Any], step: int) -> tuple[list[Mapping[str, Any]], int, str, list[str]]:
    """The recorded steps before `step`, re-simulated (digests checked); the decision at `step`:
    its id, prompt and legal actions."""
    for n, (game, recorded) in enumerate(simulate(replay), start=1):
        if n == step:
            d = game.decision()
            if recorded is None or d is None:
                raise ReplayError(f"step {step}: the game is over")
            return list(replay["steps"][: step - 1]), d.id, d.prompt, [a.text or a.kind for a in d.actions]
    raise ReplayError(f"no step {step} (the replay has {len(replay['steps'])})")


async def rerun(
    replay: Mapping[str, Any],
    step: int,
    seat: int,
    bot: str,
    *,
    play_on: bool = False,
    others: str | None = None,
    decision_ms: int = 10_000,
    bank_ms: int = 60_000,
    log_dir: Path | None = None,
) -> RerunResult:
    """Rebuild the game at `step` and run `bot` in `seat` over gRPC (see the module docstring)."""
    from referee.server.config import TimeControl
    from referee.server.launcher import follow_match, launch_bot, stop_bots
    from referee.server.server import start
    from referee.wire import admin_calls, bearer
    from referee.wire._proto.arena.v1 import admin_pb2

    steps = replay["steps"]
    seats = len(replay["seats"])
    if not 0 <= seat < seats:
        raise ValueError(f"no seat {seat} (seats 0..{seats - 1})")
    if not 1 <= step <= len(steps):
        raise ValueError(f"no step {step} (steps 1..{len(steps)})")
    recorded = steps[step - 1]
    if not play_on and ("forfeit" in recorded or recorded.get("seat") != seat):
        who = f"seat {recorded['seat']}'s decision" if "seat" in recorded else "a forfeit"
        raise ValueError(f"step {step} is {who}, not seat {seat}'s: pick a step of that seat")
    prefix, decision, prompt, actions = _prefix(replay, step)
    others = others or default_other_bot()
    commands = [bot if s == seat else others for s in range(seats)]
    logs = log_dir or Path(tempfile.mkdtemp(prefix="arena-rerun-"))
    admin_token = secrets.token_urlsafe(16)
    tc = TimeControl(decision_ms=decision_ms, bank_ms=bank_ms, max_strikes=3)
    running = await start("127.0.0.1", 0, admin_token=admin_token)
    procs: list[Any] = []
    watchers: list[asyncio.Task[None]] = []
    try:
        import grpc

        async with grpc.aio.insecure_channel(running.address) as channel:
            admin = admin_calls(channel)
            auth = bearer(admin_token)
            created = await admin["CreateMatch"](
                admin_pb2.CreateMatchRequest(
                    game=replay["game"],
                    seats=[
                        admin_pb2.SeatSpec(name=("rerun: " + c if s == seat else "other")[:64])
                        for s, c in enumerate(commands)
                    ],
                    seed=int(replay["seed"]),
                    config_json=canonical_json(dict(replay["config"])),
                    time_control=tc.to_proto(),
                    engine_version=str(replay["engine_version"]),
                ),
                metadata=auth,
            )
            session = running.referee.get(created.match_id)
            assert session is not None
            if session.game.digest() != replay.get("initial_digest", session.game.digest()):
                raise ReplayError("this build sets the game up differently from the replay")
            # the recorded steps before K, applied before any bot connects: the session then
            # asks step K's question first, as the referee asked it in the recorded match
            for past in prefix:
                if "forfeit" in past:
                    session.game.forfeit(int(past["forfeit"]))
                else:
                    d = session.game.decision()
                    assert d is not None
                    session.game.apply(d.actions[int(past["index"])])
                session.recorder.steps.append(dict(past))
            session.processes_watched = True
            for s, (command, token) in enumerate(zip(commands, created.seat_tokens, strict=True)):
                proc, _run, watcher = await launch_bot(
                    s,
                    command,
                    running.address,
                    token,
                    logs / f"seat{s}.log",
                    on_exit=lambda run: session.process_exited(run.seat, run.exit_code or 0),
                    base_env=sdk_env(os.environ),
                )
                procs.append(proc)
                watchers.append(watcher)

            if not play_on:
                # end the session as soon as step K is applied, in the session's own loop (the
                # event stream reaches us later, when the next question may already be out)
                session.on_step = lambda: session.cancel("rerun: step answered")

            status, data, _events = await follow_match(admin, auth, created.match_id)
        new = loads(data)
        answered = new["steps"][step - 1] if len(new["steps"]) >= step else None
        return RerunResult(
            step=step,
            seat=seat,
            decision=decision,
            prompt=prompt,
            actions=actions,
            recorded=recorded,
            answered=answered,
            ended_by=status.ended_by,
            replay=new,
            log_dir=logs,
        )
    finally:
        await stop_bots(procs, watchers)
        with contextlib.suppress(Exception):
            await running.stop(grace=0.2)


def describe(step: Mapping[str, Any] | None, actions: Sequence[str]) -> str:
    """One line for a step: the index, the action, the note and the time."""
    if step is None:
        return "no answer"
    if "forfeit" in step:
        return f"forfeited: {step.get('reason', '')}"
    index = int(step["index"])
    text = actions[index] if 0 <= index < len(actions) else step["action"].get("text", "")
    extra = []
    if step.get("note"):
        extra.append(f"note {step['note']!r}")
    if "ms" in step:
        extra.append(f"{step['ms']} ms")
    if step.get("reason"):
        extra.append(f"default action: {step['reason']}")
    return f"[{index}] {text}" + (f"  ({'; '.join(extra)})" if extra else "")
