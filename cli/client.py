"""``arena login``, ``arena account``, ``arena bot create|upload|remote|status|logs|replay``,
``arena ladder list|join``: the submission path, as a client of the HTTP API.

Every command talks to the API only (``ladder/client.py``), with the key stored by
``arena login`` (or ``$ARENA_API_KEY``). ``--server URL`` and ``--ca FILE`` override the
stored ones on any command; ``--json`` prints the API's answer as it is. An error is one line
on stderr (``error: ...``) and exit status 1 — never a traceback; a usage error is status 2.

:func:`register` adds the commands to the ``arena`` commands (called by the composition root,
``cli/main.py``). ``arena bot`` is shared with ``arena bot check``
(``referee/server/commands.py``) through ``Commands.group("bot")``.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from ladder.rating_policy import RatingPolicy
    from referee.cli_checks import Commands

__all__ = [
    "add_reference_bots",
    "create_ladder_with_reference_bots",
    "ladder_kind",
    "referee_lines",
    "register",
]

#: how often ``--wait`` asks the server
WAIT_POLL_S: Final = 1.0

Command = Callable[[argparse.Namespace], int]


def _guarded(command: Command) -> Command:
    """Run `command`; a ClientError (or anything unexpected) becomes one line on stderr."""

    def run(args: argparse.Namespace) -> int:
        from ladder.client import ClientError

        try:
            return command(args)
        except ClientError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("error: interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:  # `arena bot status --json | head`: the root ends it quietly
            raise
        except Exception as exc:  # the promise is one line, never a traceback
            print(f"error: unexpected {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1

    return run


def _client(args: argparse.Namespace) -> Any:
    from ladder.client import ApiClient, load_credentials

    creds = load_credentials(args.server, args.ca)
    allow = creds.plain_http or bool(getattr(args, "allow_plain_http", False))
    return ApiClient(creds.server, creds.key, ca=creds.ca, allow_plain_http=allow)


#: terminal control characters (escape sequences could retitle or rewrite the terminal); a bot's
#: output reaches `arena bot status` through its qualification excerpt
_CONTROL = dict.fromkeys([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)], "?")


def _printable(text: str) -> str:
    return text.translate(_CONTROL)


#: a line of a bot's output that says why it failed: an exception's line (Python's last line of a
#: traceback, Node's "Error: Cannot find module ..." above its stack), the sandbox's own "arena: "
#: line, the shell's "sh: 1: node: not found"
_ERROR_LINE = re.compile(
    r"^(?:[A-Za-z_][\w.]*)?(?:Error|Exception)(?: \[[\w-]+\])?: \S.*$|^arena: \S.*$|^(?:/bin/)?sh: .*$"
)


def error_line(output: str) -> str | None:
    """The line of a bot's output that explains its failure (the last one that looks like an
    error), or None. A Node stack trace ends in ``code: 'MODULE_NOT_FOUND'``; the line that
    says which module is above the stack, out of a short tail's reach."""
    found = [line.strip() for line in output.splitlines() if _ERROR_LINE.match(line.strip())]
    return found[-1] if found else None


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, sort_keys=True))


def _detail(version: dict[str, Any]) -> dict[str, Any]:
    raw = version.get("qualification_detail")
    if isinstance(raw, str) and raw:
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {"reason": raw}
        return parsed if isinstance(parsed, dict) else {}
    return raw if isinstance(raw, dict) else {}


# --- login, accounts ---------------------------------------------------------------------------


def _read_key(args: argparse.Namespace) -> str:
    from ladder.client import ClientError, read_secret
    from referee import settings

    if args.key_file:
        try:
            lines = Path(args.key_file).read_text(encoding="utf-8").split()
        except OSError as exc:
            raise ClientError(f"--key-file {args.key_file}: {exc.strerror or exc}") from exc
        key = lines[0] if lines else ""
    elif settings.current().api_key:
        key = (settings.current().api_key or "").strip()
    else:
        key = read_secret("API key: ", sys.stdin, interactive=sys.stdin.isatty())
    if not key:
        raise ClientError("no API key given (stdin, --key-file or $ARENA_API_KEY)")
    return key


def _cmd_login(args: argparse.Namespace) -> int:
    from ladder.client import ApiClient, Credentials, normalise_server, save_credentials

    server = normalise_server(args.server)
    key = _read_key(args)
    ca = str(Path(args.ca).resolve()) if args.ca else None
    with ApiClient(server, key, ca=ca, allow_plain_http=args.allow_plain_http) as api:
        me = api.me()
    path = save_credentials(Credentials(server, key, ca, plain_http=args.allow_plain_http))
    role = " (operator)" if me.get("is_operator") else ""
    print(f"logged in to {server} as {me.get('name')}{role}; key stored in {path}")
    return 0


def _cmd_logout(_args: argparse.Namespace) -> int:
    from ladder.client import credentials_path

    path = credentials_path()
    if path.exists():
        path.unlink()
        print(f"removed {path}")
    else:
        print("not logged in")
    return 0


def _cmd_account_create(args: argparse.Namespace) -> int:
    from ladder.client import write_secret_file

    if args.db is not None or args.operator:  # straight into the database (ladder/account_commands.py)
        from ladder.account_commands import create_account_locally

        return create_account_locally(args)
    with _client(args) as api:
        account = api.post_json("/api/accounts", {"name": args.name})
    if args.json:
        _print_json(account)
        return 0
    if args.key_file:
        write_secret_file(Path(args.key_file), str(account["api_key"]) + "\n")
        print(f"created account {account['name']} (id {account['id']}); its API key is in {args.key_file}")
    else:
        print(f"created account {account['name']} (id {account['id']}); its API key (shown once):")
        print(account["api_key"])
    return 0


# --- bots ----------------------------------------------------------------------------------------


def _cmd_bot_create(args: argparse.Namespace) -> int:
    with _client(args) as api:
        bot = api.post_json("/api/bots", {"name": args.name, "game": args.game})
    if args.json:
        _print_json(bot)
        return 0
    print(f"created bot {bot['name']} (id {bot['id']}) for {bot.get('game', args.game)}")
    print(f"its bot token (shown once; `arena bot remote` makes a new one): {bot.get('token')}")
    print(_upload_next(str(bot["name"]), args.kit, Path.cwd()))
    return 0


#: each kit's bot command, as its README names the bot's file (bots/python, bots/javascript)
KIT_RUN: Final = {"python": "python main.py", "javascript": "node main.js"}


def _upload_next(name: str, kit: str | None, folder: Path) -> str:
    """The upload line `arena bot create` suggests, to paste from the bot's folder: the kit's
    command (`kit`, else the kit whose main file `folder` holds, when it holds one kit's only).
    Pasted in a folder holding that file, it uploads the folder as it is (the run file checked)."""
    present = [k for k, run in KIT_RUN.items() if (folder / run.split()[-1]).is_file()]
    chosen = kit or (present[0] if len(present) == 1 else None)
    if chosen is None:  # no way to tell: the README's two bots, both pasteable from their folder
        return (f"next, from your bot's folder: arena bot upload {name} . --run \"{KIT_RUN['python']}\" "
                f"(a JavaScript bot: --run \"{KIT_RUN['javascript']}\")")
    line = f"arena bot upload {name} . --run \"{KIT_RUN[chosen]}\""
    if chosen in present:
        return f"next: {line}"
    return f"next, from the folder holding your bot's {KIT_RUN[chosen].split()[-1]}: {line}"


def _cmd_bot_upload(args: argparse.Namespace) -> int:
    from ladder.client import ClientError, pack_directory, read_archive

    source = Path(args.path)
    if not source.exists():
        raise ClientError(f"{source}: no such file or directory")
    archive = pack_directory(source) if source.is_dir() else read_archive(source)
    _check_run_file(archive, args.run)
    with _client(args) as api:
        bot = api.bot_by_name(args.name)
        version = api.upload(int(bot["id"]), archive, args.run, args.version)
    if args.json:
        _print_json(version)
        return 0
    size = version.get("bytes", len(archive.data))
    files = version.get("files", archive.files)
    print(
        f"uploaded {args.name} version {version.get('version')} (id {version.get('id')}): "
        f"{_count(int(files), 'file')}, {size} bytes, sha256 {str(version.get('archive_sha256', ''))[:16]}"
    )
    print(
        f"qualification {version.get('qualification', 'pending')}: it plays a few games against "
        f"{_qualification_opponents(bot)} first; `arena bot status {args.name}` shows the result"
    )
    return 0


def _qualification_opponents(bot: dict[str, Any]) -> str:
    """Whom a version of `bot` (its profile) plays in qualification, in words: the reference
    bots of tables shaped like its ladders' (every seat but its own; 2 seats on no ladder)."""
    from ladder.bots import reference_opponents

    seats = [e.get("players") for e in bot.get("ladders") or [] if isinstance(e, dict)]
    return reference_opponents(n for n in seats if isinstance(n, int) and n >= 2)


def _check_run_file(archive: Any, run: str) -> None:
    """Refuse, before sending, an archive that lacks the file `--run` names: the server would
    refuse it too (``ladder.bots.run_file_missing``), and a version stored without it only
    crashes at its first qualification game. The server's check on the same bytes decides an
    archive this one cannot read."""
    from ladder.archives import validate_archive
    from ladder.bots import run_file_missing
    from ladder.client import ClientError
    from ladder.errors import LadderError

    try:
        normal = validate_archive(archive.data)
    except LadderError:
        return  # the server says what is wrong with it, in its words
    missing = run_file_missing(run, normal)
    if missing:
        raise ClientError(f"--run {missing}; nothing was sent")


def _sdk_args(referee: Any, override: str | None) -> str | None:
    """The SDK's arguments to reach the referee (``--referee HOST:PORT [--tls]``): `override`
    (``--referee``, TLS as the server says, else on) or the server's answer; None if unknown."""
    info = referee if isinstance(referee, dict) else {}
    if override:
        return f"--referee {override}" + ("" if info.get("tls") is False else " --tls")
    given = info.get("sdk_args") if info.get("configured") else None
    return _printable(given) if isinstance(given, str) and given else None


def referee_lines(referee: Any) -> list[str]:
    """Where remote bots connect, as the server said (`referee` from ``GET /api/referee``, a
    remote version's creation or a bot's profile): the address and TLS, or the server's words
    that its operator has not published them. Never an address the server did not give."""
    if not isinstance(referee, dict):
        return ["referee: this server does not say where remote bots connect; ask its operator"]
    if referee.get("configured") and referee.get("address"):
        tls = "TLS (--tls; --ca FILE for a private CA)" if referee.get("tls") else "plaintext"
        return [f"referee: {_printable(str(referee['address']))}, {tls}"]
    message = _printable(str(referee.get("message") or "the operator has not published it"))
    return [f"referee: unknown: {message}"]


def _cmd_bot_remote(args: argparse.Namespace) -> int:
    from ladder.client import write_secret_file

    with _client(args) as api:
        bot = api.bot_by_name(args.name)
        params = {"version": args.version} if args.version else None
        version = api.post_json(f"/api/bots/{int(bot['id'])}/versions/remote", {}, params=params)
    if args.json:
        _print_json(version)
        return 0
    referee = version.get("referee")
    sdk_args = _sdk_args(referee, args.referee)
    token = str(version["token"])
    print(f"remote version {version.get('version')} of {args.name} (id {version.get('id')})")
    if not args.referee:
        print(*referee_lines(referee), sep="\n")
    # unknown: a placeholder the author must fill in, never an address made up here
    where = sdk_args or "--referee HOST:PORT --tls"
    if args.token_file:
        write_secret_file(Path(args.token_file), token + "\n")
        print(f"its bot token is in {args.token_file}; run your bot on your machine with:")
        print(f'  ARENA_BOT_TOKEN="$(cat {args.token_file})" {args.command} {where}')
    else:
        print(f"its bot token (shown once): {token}")
        print("run your bot on your machine with:")
        print(f"  export ARENA_BOT_TOKEN={token}")
        print(f"  {args.command} {where}")
    if sdk_args is None:
        print("  (HOST:PORT: the referee's address, which your operator gives you; --tls unless "
              "they say it is plaintext)")
    print(
        f"qualification {version.get('qualification', 'pending')}: once your bot is connected it plays "
        f"a few games against {_qualification_opponents(bot)}; it is rated only if they pass "
        f"(`arena bot status {args.name}` shows them). It stays connected and plays its ladder "
        "matches as they come"
    )
    return 0


def _rated_with_newest(bot: dict[str, Any], matches: Sequence[dict[str, Any]]) -> bool:
    """True once the bot's newest passed version has a finished (rated) match."""
    passed = [int(v["id"]) for v in bot.get("versions") or [] if v.get("qualification") == "passed"]
    if not passed:
        return False
    newest = max(passed)
    return any(
        m.get("status") == "done" and any(s.get("bot_version_id") == newest for s in m.get("seats") or [])
        for m in matches
    )


def _never_rated(bot: dict[str, Any]) -> str | None:
    """Why none of the bot's versions can be rated as it stands (it has no version; or no version
    passed qualification and the newest failed it), or None."""
    if not bot.get("versions"):
        return (f"{bot['name']}: it has no version yet, so none can be rated: upload one with "
                f"`arena bot upload {bot['name']} FOLDER --run \"python main.py\"` (or `node main.js`)")
    if any(v.get("qualification") == "passed" for v in bot.get("versions") or []):
        return None
    newest = _newest_qualifying(bot)
    if newest is None or newest.get("qualification") != "failed":
        return None
    return (f"{bot['name']}: its newest version {newest.get('version', newest.get('id'))} failed "
            "qualification and no version has passed, so none can be rated: fix the bot and upload "
            "it again (the report is above)")


def _newest_qualifying(bot: dict[str, Any]) -> dict[str, Any] | None:
    """The newest version that plays qualification games: hosted or remote (not built-in)."""
    versions = [
        v for v in bot.get("versions") or []
        if (v.get("kind") or ("remote" if v.get("remote") else "hosted")) in ("hosted", "remote")
    ]
    return max(versions, key=lambda v: int(v["id"])) if versions else None


def _status_lines(bot: dict[str, Any], matches: Sequence[dict[str, Any]]) -> list[str]:
    lines = [f"{bot['name']} (id {bot['id']}), {bot.get('game', '?')}, owner {bot.get('owner')}"]
    versions = sorted(bot.get("versions") or [], key=lambda v: int(v["id"]))
    lines.append("versions:" if versions else "versions: none yet (arena bot upload / arena bot remote)")
    for v in versions:
        kind = v.get("kind") or ("remote" if v.get("remote") else "hosted")
        qual = v.get("qualification") or "-"
        created = v.get("created_at", "")
        lines.append(f"  {v.get('version')!s:<12} id {v['id']:<6} {kind:<7} {qual:<8} {created}")
        if v.get("suspension"):
            lines.append(f"      {_printable(str(v['suspension']))}")
        detail = _detail(v)
        if detail.get("reason"):
            lines.append(f"      {_printable(str(detail['reason']))}")
        for game in detail.get("games") or []:
            faults = _printable("; ".join(game.get("faults") or [])) or "no fault"
            decisions = game.get("decisions", "?")
            said = "no decision" if decisions == 0 else f"{decisions} decisions"
            lines.append(
                f"      game {game.get('game')}: vs {game.get('opponent')}, seat {game.get('seat')}, "
                f"{game.get('outcome')} ({said}): {faults}"
            )
        if isinstance(detail.get("replay"), dict):
            lines.append(
                "      its failed game's replay (yours only): arena bot replay "
                f"{shlex.quote(str(bot['name']))} --qualification {shlex.quote(str(v.get('version')))}"
            )
        excerpt = _printable(str(detail.get("log_excerpt") or "").strip())
        if excerpt and qual == "failed":
            error = error_line(excerpt)
            if error is not None:
                lines.append(f"      error: {error}")
            lines.append("      its output (last lines):")
            lines.extend("        " + line for line in excerpt.splitlines()[-15:])
    if any((v.get("kind") == "remote" or v.get("remote")) for v in versions):
        lines.extend(referee_lines(bot.get("referee")))
    ladders = bot.get("ladders") or []
    lines.append("ladders:" if ladders else "ladders: none (arena ladder join NAME LADDER)")
    for entry in ladders:
        mark = " (provisional)" if entry.get("provisional") else ""
        lines.append(
            f"  {entry.get('ladder_name')}: rating {float(entry.get('rating', 0)):.1f}{mark}, "
            f"{_count(int(entry.get('games', 0)), 'game')}, {_count(int(entry.get('wins', 0)), 'win')}"
        )
        if entry.get("division"):
            lines.append("    " + _division_line(entry))
        if entry.get("waiting"):
            lines.append(f"    {_printable(str(entry['waiting']))}")
    lines.append("recent matches:" if matches else "recent matches: none yet")
    for m in matches[:10]:
        seats = m.get("seats") or []
        mine = [s["seat"] for s in seats if s.get("bot_id") == bot["id"]]
        places = m.get("places")
        where = ", ".join(
            f"seat {s}" + (f" place {places[s]}" if places else "") for s in mine
        )
        lines.append(f"  match {m['id']}: {m.get('status')}, {where} {m.get('finished_at') or ''}".rstrip())
    return lines


def _division_line(entry: dict[str, Any]) -> str:
    """A ladder entry's division and its distance to the boss (ladder/RATINGS.md, "Divisions")."""
    position, count = int(entry.get("division_position") or 0), int(entry.get("divisions") or 0)
    where = f"division {_printable(str(entry['division']))} ({position + 1} of {count}"
    where += ", the top)" if position + 1 == count else ")"
    if entry.get("boss_name") is None:
        return f"{where}: its boss"
    to_boss = float(entry.get("to_boss") or 0.0)
    low = float(entry.get("rating_low") or 0.0)
    gap = f"{abs(to_boss):.1f} below" if to_boss >= 0 else f"{-to_boss:.1f} above"
    then = (
        "" if position + 1 == count
        else "; promoted at the next matchmaking pass" if to_boss < 0
        else "; above it: promoted"
    )
    return (
        f"{where}: boss {_printable(str(entry['boss_name']))} at {float(entry.get('boss_rating') or 0):.1f}; "
        f"the low end of your rating's interval, {low:.1f}, is {gap} it{then}"
    )


def _fetch_status(api: Any, name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    bot = api.bot_by_name(name)
    matches = bot.get("recent_matches") or bot.get("matches")
    if not isinstance(matches, list):
        matches = api.get_json(f"/api/bots/{int(bot['id'])}/matches", params={"limit": "10"})
    return bot, list(matches)


def _wait_done(what: str, bot: dict[str, Any], matches: Sequence[dict[str, Any]]) -> tuple[bool, int]:
    """(done, exit status) for ``--wait what``."""
    if what == "rated":
        if _rated_with_newest(bot, matches):
            return True, 0
        # nothing can be rated until a new upload: waiting on would only end at --timeout
        return _never_rated(bot) is not None, 1
    newest = _newest_qualifying(bot)
    if newest is None:
        return False, 0
    state = newest.get("qualification")
    return state in ("passed", "failed"), 0 if state == "passed" else 1


def _cmd_bot_status(args: argparse.Namespace) -> int:
    from ladder.client import ClientError

    code = 0
    with _client(args) as api:
        bot, matches = _fetch_status(api, args.name)
        if args.wait:
            deadline = time.monotonic() + args.timeout
            done, code = _wait_done(args.wait, bot, matches)
            while not done:
                if time.monotonic() > deadline:
                    # a ladder that can make no match says why (ladder.waiting)
                    why = "; ".join(
                        f"{e.get('ladder_name')}: {_printable(str(e['waiting']))}"
                        for e in bot.get("ladders") or []
                        if e.get("waiting")
                    )
                    raise ClientError(
                        f"{args.name}: not {args.wait} after {args.timeout:.0f} s "
                        + (f"({why})" if why and args.wait == "rated" else
                           f"(`arena bot status {args.name}` shows where it is)")
                    )
                time.sleep(WAIT_POLL_S)
                bot, matches = _fetch_status(api, args.name)
                done, code = _wait_done(args.wait, bot, matches)
    if args.json:
        _print_json({**bot, "recent_matches": matches})
    else:
        print("\n".join(_status_lines(bot, matches)))
    if args.wait == "rated" and code:
        print(f"error: {_never_rated(bot)}", file=sys.stderr)
    return code


def _latest_match(api: Any, bot: dict[str, Any]) -> int:
    """'latest', the one definition `bot logs` and `bot replay` share: of the bot's recent
    matches, the finished one that finished last (then the higher id). A bot on a ladder goes on
    playing, so two commands may resolve it to two matches: each prints the id it used, and the
    command for the same match again."""
    from ladder.client import ClientError

    finished = api.get_json(f"/api/bots/{int(bot['id'])}/matches", params={"limit": "50"})
    done = [m for m in finished if m.get("status") == "done"]
    if not done:
        raise ClientError(f"{bot['name']} has no finished match yet")
    return int(max(done, key=lambda m: (str(m.get("finished_at") or ""), int(m["id"])))["id"])


def _cmd_bot_logs(args: argparse.Namespace) -> int:
    """Print what the bot printed in one match, seat by seat (its owner's key); stderr names the
    match (the one 'latest' resolved to) and the command for its replay."""
    with _client(args) as api:
        match_id, seats = _match_and_seats(api, args)
        texts = [api.request("GET", f"/api/matches/{match_id}/logs/{seat}").text for seat in seats]
    # once they are fetched (a refusal stays one line)
    which = " (its latest finished match)" if args.match == "latest" else ""
    print(f"match {match_id}{which}: arena bot replay {shlex.quote(args.name)} --match {match_id} "
          "fetches its replay", file=sys.stderr)
    for seat, text in zip(seats, texts, strict=True):
        if len(seats) > 1:
            print(f"== match {match_id}, seat {seat} ==")
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
        if not text:  # an empty log is the bot's silence, not a failure: say so
            print(f"(seat {seat} of match {match_id}: the bot wrote nothing)", file=sys.stderr)
    return 0


def _match_and_seats(api: Any, args: argparse.Namespace) -> tuple[int, list[int]]:
    """The match `--match` names (an id, or 'latest': :func:`_latest_match`, resolved once) and
    the seats the bot `args.name` played in it (only `--seat`, when given)."""
    from ladder.client import ClientError

    bot = api.bot_by_name(args.name)
    if args.match == "latest":
        match_id = _latest_match(api, bot)
    elif args.match.isdigit():
        match_id = int(args.match)
    else:
        raise ClientError(f"--match: a match id or 'latest', not {args.match!r}")
    match = api.get_json(f"/api/matches/{match_id}")
    seats = [int(s["seat"]) for s in match.get("seats") or [] if s.get("bot_id") == bot["id"]]
    if args.seat is not None:
        if args.seat not in seats:
            raise ClientError(f"{args.name} did not play seat {args.seat} of match {match_id}")
        seats = [args.seat]
    if not seats:
        raise ClientError(f"{args.name} did not play in match {match_id}")
    return match_id, seats


def _qualification_target(api: Any, args: argparse.Namespace) -> tuple[str, str, int, str]:
    """The kept replay of the failed qualification game of version `--qualification` (its label
    or id): its API path, its default file name, the version's seat and how to name it."""
    from ladder.client import ClientError

    bot = api.bot_by_name(args.name)
    versions = bot.get("versions") or []
    wanted = args.qualification
    version = next((v for v in versions if wanted in (str(v.get("version")), str(v.get("id")))), None)
    if version is None:
        labels = ", ".join(str(v.get("version")) for v in versions) or "none"
        raise ClientError(f"{args.name} has no version {args.qualification!r} (versions: {labels})")
    kept = _detail(version).get("replay")
    if not isinstance(kept, dict):
        raise ClientError(
            f"{args.name} version {version.get('version')} has no kept qualification replay: only a "
            f"failed qualification game's is kept (it is {version.get('qualification')})"
        )
    path = f"/api/bots/{int(bot['id'])}/versions/{int(version['id'])}/qualification/replay"
    label = f"qualification game {kept.get('game')} of version {version.get('version')}"
    return path, f"qualification-{int(version['id'])}.replay.json.gz", int(kept.get("seat") or 0), label


def _cmd_bot_replay(args: argparse.Namespace) -> int:
    """Download a match's replay, or the failed qualification game's (`--qualification`: its
    owner's), check it re-simulates (the server's bytes are outside input), write it and say how
    to look at it as the bot's seat."""
    import contextlib
    import os

    from ladder.client import ClientError
    from referee.replay import MAX_INFLATED_BYTES, ReplayError, load
    from referee.replay_view import example_bot_command

    with _client(args) as api:
        if args.qualification is not None:
            path, default_name, seat_no, label = _qualification_target(api, args)
            seats = [seat_no]
            if args.seat is not None and args.seat != seat_no:
                raise ClientError(f"{args.name} played seat {seat_no} of its {label}, not {args.seat}")
        else:
            match_id, seats = _match_and_seats(api, args)
            path, default_name = f"/api/matches/{match_id}/replay", f"match-{match_id}.replay.json.gz"
            label = f"match {match_id}" + (", its latest finished match" if args.match == "latest" else "")
        out = Path(args.out or default_name)
        # streamed to a file beside the target, checked there, then renamed into place: nothing
        # at `out` unless it verifies, and never more than the cap in memory or on disk
        part = out.with_name(f".{out.name}.{os.urandom(4).hex()}.part")
        try:
            size_bytes = api.download(path, part, MAX_INFLATED_BYTES, f"{label}: the server's replay")
        except OSError as exc:
            raise ClientError(f"cannot write {out}: {exc.strerror or exc}") from None
    try:
        try:
            replay = load(part)  # bounded: its inflated size and nesting are capped
        except ReplayError as exc:
            raise ClientError(f"{label.split(',')[0]}: the server's replay does not verify: {exc}") from None
        try:
            part.replace(out)
        except OSError as exc:
            raise ClientError(f"cannot write {out}: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(OSError):
            part.unlink()
    steps = len(replay["steps"])
    seat_list = ", ".join(str(s) for s in seats)
    size = f"{size_bytes:,} bytes"
    print(f"wrote {out} ({label}; {replay['game']}, {steps} steps, {size}; re-simulated)")
    print(f"{args.name} played seat {seat_list}. What it saw, and a decision sent to your bot again "
          "(run from your bot's folder):")
    # absolute: the lines work from wherever the user runs them, the bot's folder included
    quoted = shlex.quote(str(out.resolve()))
    seat = seats[0]
    print(f"  arena replay show {quoted} --seat {seat}")
    records = replay["seats"]  # the server's: its seat list may not hold the API's seat number
    record = records[seat] if seat < len(records) and isinstance(records[seat], dict) else {}
    command = example_bot_command(record, "main")  # main.py, main.js: the READMEs' bots
    decided = [n for n, step in enumerate(replay["steps"], start=1)
               if "forfeit" not in step and step.get("seat") == seat]
    if decided:
        print(f"  arena replay rerun {quoted} --seat {seat} --step {decided[-1]} --bot \"{command}\"")
        print(f"  (step {decided[-1]} is its last decision; any step `arena replay show` lists for "
              f"seat {seat} works)")
    else:
        print(f"  (seat {seat} made no decision in this game: there is none to send again)")
    return 0


# --- ladders -----------------------------------------------------------------------------------


def _cmd_ladder_list(args: argparse.Namespace) -> int:
    with _client(args) as api:
        ladders = api.get_json("/api/ladders")
    if args.json:
        _print_json(ladders)
        return 0
    if not ladders:
        print("no ladders yet")
    for ladder in ladders:
        tc = ladder.get("time_control") or {}
        print(
            f"{ladder['id']:>4}  {ladder['name']:<24} {ladder.get('game')} {ladder.get('players')} players, "
            f"{ladder.get('kind', 'ffa')}, {tc.get('decision_ms', '?')} ms a decision, "
            f"engine {ladder.get('engine_version') or '?'}"
        )
    return 0


def _cmd_ladder_upgrade(args: argparse.Namespace) -> int:
    """On the server host: move a ladder to another engine version, closing its rating period
    (ladder/RATINGS.md, "Engine versions")."""
    from ladder.client import ClientError
    from ladder.errors import LadderError
    from ladder.ladders import upgrade_ladder

    engine, ladder_id = _operator_ladder(args)
    try:
        try:
            done = upgrade_ladder(engine, ladder_id, args.engine)
        except LadderError as exc:
            raise ClientError(str(exc)) from exc
    finally:
        engine.dispose()
    print(
        f"ladder {done.ladder} (id {ladder_id}): engine {done.old_version} -> {done.new_version}; "
        f"rating period {done.closed_period} ({done.old_version}) closed, its standings kept; "
        f"{done.bots} bots carry their ratings into period {done.closed_period + 1}, games counted "
        "from 0 (ladder/RATINGS.md, Engine versions)"
    )
    return 0


def _operator_ladder(args: argparse.Namespace) -> tuple[Any, int]:
    """On the server host: the database engine (migrated to the newest schema, else an error
    naming the command that migrates it) and the id of ladder `args.ladder` (a name or an id)."""
    import sqlalchemy as sa

    from ladder.account_commands import UPGRADE_FIRST
    from ladder.api_server import schema_problem
    from ladder.client import ClientError
    from ladder.db import create_engine, database_url
    from ladder.schema import ladders

    engine = create_engine(database_url(args.db))
    try:
        problem = schema_problem(engine, UPGRADE_FIRST)
        if problem is not None:
            raise ClientError(problem)
        with engine.connect() as conn:
            by = ladders.c.id == int(args.ladder) if args.ladder.isdigit() else ladders.c.name == args.ladder
            ladder_id = conn.execute(sa.select(ladders.c.id).where(by)).scalar_one_or_none()
        if ladder_id is None:
            raise ClientError(f"no ladder {args.ladder!r} (give its name or id: arena ladder list)")
    except BaseException:
        engine.dispose()
        raise
    return engine, int(ladder_id)


def _cmd_season_close(args: argparse.Namespace) -> int:
    """On the server host: close a ladder's season, archiving its standings and shrinking the
    ratings toward the mean (ladder/RATINGS.md, "Seasons")."""
    from ladder.client import ClientError
    from ladder.errors import LadderError
    from ladder.seasons import close_season

    engine, ladder_id = _operator_ladder(args)
    try:
        try:
            done = close_season(engine, ladder_id)
        except LadderError as exc:
            raise ClientError(str(exc)) from exc
    finally:
        engine.dispose()
    print(
        f"ladder {done.ladder} (id {ladder_id}): season {done.season} ({done.engine_version}) closed, "
        f"its standings archived; {done.bots} bots start season {done.season + 1} at "
        f"{done.mean:.1f} + {done.carry:g} x (rating - {done.mean:.1f}), games counted from 0 "
        "(ladder/RATINGS.md, Seasons)"
    )
    return 0


def _cmd_season_list(args: argparse.Namespace) -> int:
    """On the server host: a ladder's seasons, the current one last."""
    from ladder.seasons import seasons

    engine, ladder_id = _operator_ladder(args)
    try:
        with engine.connect() as conn:
            listed = seasons(conn, ladder_id) or []
    finally:
        engine.dispose()
    if args.json:
        _print_json(listed)
        return 0
    for season in listed:
        start = season["started_at"][:16].replace("T", " ")
        end = (season["ended_at"] or "")[:16].replace("T", " ")
        if season["current"]:
            how = "current"
        elif season["closed_by"] == "upgrade":
            how = "closed by an engine upgrade, ratings carried"
        else:
            how = f"closed, ratings carried x {season['carry']:g} toward {season['mean']:.1f}"
        print(
            f"season {season['number']:>3}  {season['engine_version']:<10} {start} .. {end or 'now':<16}  "
            f"{season['bots']} bots, {how}"
        )
    return 0


def _rating_policy(args: argparse.Namespace) -> RatingPolicy:
    """The rating policy `arena ladder create`'s options ask for: each option left out keeps the
    platform's value, except that `--k-factor` alone sets both Ks (one K for every game); a
    value the policy refuses is one line naming the option."""
    import dataclasses

    from ladder.client import ClientError
    from ladder.rating_policy import DEFAULT_POLICY

    given: dict[str, Any] = {
        "k_established": args.k_factor,
        "k_provisional": args.k_provisional if args.k_provisional is not None else args.k_factor,
        "provisional_games": args.provisional_games,
        "initial_rating": args.initial_rating,
        "prior_games": args.prior_games,
        "confidence": args.confidence,
    }
    try:
        return dataclasses.replace(DEFAULT_POLICY, **{k: v for k, v in given.items() if v is not None})
    except ValueError as exc:
        field, _, why = str(exc).partition(": ")
        option = {"k_established": "k-factor"}.get(field, field.replace("_", "-"))
        raise ClientError(f"--{option}: {why}") from None


def _cmd_ladder_create(args: argparse.Namespace) -> int:
    """On the server host: a ladder in the database itself (there is no API for it), with the
    game's reference bots on it so a newcomer has opponents from its first match. Its kind is
    the game's (`ladder_kind`): `--kind` may only say the same."""
    from ladder.account_commands import UPGRADE_FIRST
    from ladder.api_server import schema_problem
    from ladder.client import ClientError
    from ladder.db import create_engine, database_url
    from ladder.errors import LadderError
    from ladder.rating_policy import DEFAULT_POLICY
    from workers.qualification import reference_bots

    try:
        kind = ladder_kind(args.game)
    except KeyError as exc:
        raise ClientError(str(exc.args[0])) from None
    if args.kind is not None and args.kind != kind:
        raise ClientError(
            f"--kind {args.kind}: {args.game}'s ladders are kind {kind!r} "
            f"(give --kind {kind}, or leave --kind out)"
        )
    policy = _rating_policy(args)
    plan = None
    if args.divisions is not None:
        from ladder.divisions import parse_divisions

        try:
            plan = parse_divisions(args.divisions, args.game)
        except LadderError as exc:
            raise ClientError(f"--divisions: {str(exc).removeprefix('divisions: ')}") from None
        if kind != "ffa":
            raise ClientError(
                f"--divisions: {args.game}'s ladders are kind {kind!r}; only free-for-all ladders "
                "have divisions"
            )
    engine = create_engine(database_url(args.db))
    try:
        problem = schema_problem(engine, UPGRADE_FIRST)
        if problem is not None:
            raise ClientError(problem)
        try:
            ladder_id = create_ladder_with_reference_bots(
                engine, args.name, args.game, args.players, decision_ms=args.decision_ms,
                bank_ms=args.bank_ms, max_strikes=args.max_strikes,
                reference=reference_bots(args.game) if args.reference_bots else (), policy=policy,
            )
            divided = [] if plan is None else add_divisions(engine, ladder_id, args.game, plan)
        except LadderError as exc:
            raise ClientError(str(exc)) from exc
    finally:
        engine.dispose()
    print(f"created ladder {args.name} (id {ladder_id}): {args.game}, {args.players} players, kind {kind}")
    if divided:
        print(f"divisions, bottom first: {', '.join(divided)}; every bot starts in the bottom one")
    if policy != DEFAULT_POLICY:
        print(
            f"rating policy: K {policy.k_provisional:g} for a bot's first {policy.provisional_games} "
            f"games, then {policy.k_established:g}; bots start at {policy.initial_rating:g}; "
            f"{policy.confidence:.0%} intervals, {policy.prior_games:g} prior games"
        )
    if kind == "campaign":
        # no single games on it: `arena beat` starts its campaigns, each rated once when it
        # finishes (workers/campaign_ladders.py, ladder/RATINGS.md "Campaign ladders")
        print(
            "the matchmaker plays no single games on it: `arena beat` starts campaigns on it among "
            "its bots (those that joined and qualified, with its reference bots); start one by "
            f"hand with: arena campaign run --ladder {ladder_id} --players {args.players} "
            "--bots bot:NAME,... --db URL"
        )
    return 0


def _cmd_ladder_reference_bots(args: argparse.Namespace) -> int:
    """On the server host: put the game's reference bots on an existing ladder, enough for every
    seat but one (a ladder made before that rule, or without --reference-bots)."""
    import sqlalchemy as sa

    from ladder.account_commands import UPGRADE_FIRST
    from ladder.api_server import schema_problem
    from ladder.client import ClientError
    from ladder.db import create_engine, database_url
    from ladder.errors import LadderError
    from ladder.schema import ladders
    from workers.qualification import reference_bots

    engine = create_engine(database_url(args.db))
    try:
        problem = schema_problem(engine, UPGRADE_FIRST)
        if problem is not None:
            raise ClientError(problem)
        column = ladders.c.id if args.ladder.isdigit() else ladders.c.name
        wanted: int | str = int(args.ladder) if args.ladder.isdigit() else args.ladder
        with engine.connect() as conn:
            row = conn.execute(sa.select(ladders).where(column == wanted)).one_or_none()
        if row is None:
            raise ClientError(f"no ladder {args.ladder!r}")
        try:
            added = add_reference_bots(engine, row.id, row.game, row.players, reference_bots(row.game))
        except LadderError as exc:
            raise ClientError(str(exc)) from exc
    finally:
        engine.dispose()
    names = ", ".join(added) or "none (it had enough)"
    print(f"ladder {row.name} (id {row.id}), {row.players} players: reference bots added: {names}")
    return 0


def ladder_kind(game: str) -> str:
    """The kind of `game`'s ladders, from its spec: "coop" for a cooperative game, "campaign"
    for a campaign game, else "ffa". KeyError for an unknown game (one line: its message)."""
    from referee.games import game_spec

    spec = game_spec(game)
    return "coop" if spec.cooperative else "campaign" if spec.campaign else "ffa"


def add_reference_bots(
    engine: Any, ladder_id: int, game: str, players: int, strategies: Sequence[str]
) -> list[str]:
    """Put the reference bots of :func:`reference_bot_names` on ladder `ladder_id` (each made
    once, shared by the game's ladders); the names of those it was not on yet.

    A reference bot is the platform's: found by its name *and* its owner (REFERENCE_OWNER, no
    account). A bot of that name held by anyone else is never seated in its place: Conflict,
    naming the bot and `arena audit` (an account took the name before names were reserved).
    """
    import sqlalchemy as sa

    from ladder.bots import REFERENCE_OWNER, add_bot_version, reference_bot_names, register_bot
    from ladder.ladders import join_ladder
    from ladder.schema import ladder_entries
    from workers.bot_commands import builtin_command

    found = _reference_bot_ids(engine, game, players, strategies)
    added = []
    for bot_name, strategy in reference_bot_names(game, players, strategies):
        bot_id = found.get(bot_name)
        with engine.connect() as conn:
            on = bot_id is not None and conn.execute(
                sa.select(ladder_entries.c.bot_id).where(
                    ladder_entries.c.ladder_id == ladder_id, ladder_entries.c.bot_id == bot_id
                )
            ).first() is not None
        if on:
            continue
        if bot_id is None:
            bot_id = register_bot(engine, bot_name, REFERENCE_OWNER, game=game).bot_id
            add_bot_version(engine, bot_id, "1", builtin_command(strategy))
        join_ladder(engine, ladder_id, bot_id)
        added.append(bot_name)
    return added


def _reference_bot_ids(
    engine: Any, game: str, players: int, strategies: Sequence[str]
) -> dict[str, int]:
    """The reference bots of :func:`reference_bot_names` that exist (name -> id); Conflict for a
    name held by a bot that is not the platform's (see :func:`add_reference_bots`)."""
    import sqlalchemy as sa

    from ladder.bots import REFERENCE_OWNER, reference_bot_names
    from ladder.errors import Conflict
    from ladder.schema import bots

    names = [name for name, _strategy in reference_bot_names(game, players, strategies)]
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(bots.c.id, bots.c.name, bots.c.owner, bots.c.account_id).where(bots.c.name.in_(names))
        ).all()
    for row in rows:
        if row.owner != REFERENCE_OWNER or row.account_id is not None:
            raise Conflict(
                f"bot {row.id} {row.name!r} belongs to {row.owner}, not the platform: it is not "
                "seated as a reference bot, and none can be made under its name; `arena audit` "
                "says how to free the name"
            )
    return {str(row.name): int(row.id) for row in rows}


def create_ladder_with_reference_bots(
    engine: Any, name: str, game: str, players: int, *, decision_ms: int, bank_ms: int,
    max_strikes: int, reference: Sequence[str], policy: RatingPolicy | None = None,
) -> int:
    """Create ladder `name` of the game's kind (`ladder_kind`), rated by `policy` (default: the
    platform's, ``ladder.rating_policy.DEFAULT_POLICY``), and put the reference bots of
    `reference` strategies on it (:func:`add_reference_bots`: one for every seat but one, at
    least one per strategy). On a campaign ladder those bots are seats a campaign may name
    (``bot:reference-<game>-<strategy>``)."""
    from ladder.ladders import create_ladder
    from ladder.rating_policy import DEFAULT_POLICY

    _reference_bot_ids(engine, game, players, reference)  # a taken name: refused before the ladder
    ladder_id: int = create_ladder(
        engine, name, game, players, decision_ms=decision_ms, bank_ms=bank_ms,
        max_strikes=max_strikes, kind=ladder_kind(game), policy=policy or DEFAULT_POLICY,
    )
    add_reference_bots(engine, ladder_id, game, players, reference)
    return ladder_id


def add_divisions(engine: Any, ladder_id: int, game: str, plan: Sequence[tuple[str, str]]) -> list[str]:
    """Give ladder `ladder_id` the divisions of `plan` ((name, boss strategy) bottom to top:
    ``ladder.divisions.parse_divisions``), each boss a reference bot of the platform named
    ``reference-<game>-boss<N>-<strategy>`` (made once, shared by the game's ladders), put on the
    ladder in its division. Checked before any boss is made: an error changes nothing. Returns
    one line per division, bottom first."""
    import sqlalchemy as sa

    from ladder.bots import REFERENCE_OWNER, add_bot_version, register_bot
    from ladder.divisions import check_can_divide, set_divisions
    from ladder.errors import Conflict
    from ladder.ladders import join_ladder
    from ladder.schema import bots
    from workers.bot_commands import builtin_command

    names = [f"reference-{game}-boss{n}-{strategy}" for n, (_, strategy) in enumerate(plan, start=1)]
    with engine.connect() as conn:
        check_can_divide(conn, ladder_id)
        found = {
            str(row.name): row
            for row in conn.execute(
                sa.select(bots.c.id, bots.c.name, bots.c.owner, bots.c.account_id)
                .where(bots.c.name.in_(names))
            )
        }
    for row in found.values():
        if row.owner != REFERENCE_OWNER or row.account_id is not None:
            raise Conflict(
                f"bot {row.id} {row.name!r} belongs to {row.owner}, not the platform: no boss can be made "
                "under its name"
            )
    bosses = []
    for bot_name, (_, strategy) in zip(names, plan, strict=True):
        bot_id = int(found[bot_name].id) if bot_name in found else None
        if bot_id is None:
            bot_id = register_bot(engine, bot_name, REFERENCE_OWNER, game=game).bot_id
            add_bot_version(engine, bot_id, "1", builtin_command(strategy))
        join_ladder(engine, ladder_id, bot_id)
        bosses.append(bot_id)
    set_divisions(engine, ladder_id, [(name, boss) for (name, _), boss in zip(plan, bosses, strict=True)])
    return [f"{name} (boss {bot_name})" for (name, _), bot_name in zip(plan, names, strict=True)]


def _cmd_ladder_divisions(args: argparse.Namespace) -> int:
    """On the server host: give an existing ladder its divisions, each with its boss."""
    import sqlalchemy as sa

    from ladder.client import ClientError
    from ladder.divisions import parse_divisions
    from ladder.errors import LadderError
    from ladder.schema import ladders

    engine, ladder_id = _operator_ladder(args)
    try:
        with engine.connect() as conn:
            row = conn.execute(
                sa.select(ladders.c.name, ladders.c.game).where(ladders.c.id == ladder_id)
            ).one()
        try:
            lines = add_divisions(engine, ladder_id, row.game, parse_divisions(args.divisions, row.game))
        except LadderError as exc:
            raise ClientError(str(exc)) from exc
    finally:
        engine.dispose()
    print(f"ladder {row.name} (id {ladder_id}): divisions, bottom first: {', '.join(lines)}; every bot "
          "starts in the bottom one (ladder/RATINGS.md, Divisions)")
    return 0


def _find_ladder(ladders: Sequence[dict[str, Any]], wanted: str) -> dict[str, Any]:
    from ladder.client import ClientError

    for ladder in ladders:
        if ladder.get("name") == wanted or str(ladder.get("id")) == wanted:
            return ladder
    names = ", ".join(str(ladder.get("name")) for ladder in ladders) or "none"
    raise ClientError(f"no ladder {wanted!r} (ladders: {names})")


def _cmd_ladder_join(args: argparse.Namespace) -> int:
    with _client(args) as api:
        bot = api.bot_by_name(args.name)
        ladder = _find_ladder(api.get_json("/api/ladders"), args.ladder)
        answer = api.post_json(f"/api/ladders/{int(ladder['id'])}/entries", {"bot_id": int(bot["id"])})
    if args.json:
        _print_json(answer)
        return 0
    print(
        f"{args.name} is on ladder {ladder['name']} (id {ladder['id']}); it is seated once a "
        "version has qualified"
    )
    return 0


# --- registration ------------------------------------------------------------------------------


def _common(parser: argparse.ArgumentParser, *, json_flag: bool = True) -> None:
    parser.add_argument("--server", help="the API's URL (default: the one `arena login` stored)")
    parser.add_argument("--ca", metavar="FILE", help="CA certificate(s) to trust for https://")
    parser.add_argument(
        "--allow-plain-http", action="store_true",
        help="send the key over plain http:// to a host other than this machine (else refused)",
    )
    if json_flag:
        parser.add_argument("--json", action="store_true", help="print the API's answer as JSON")


def register(sub: Commands) -> None:
    """Add login, logout, account, bot create/upload/remote/status/logs/replay, ladder list/join."""
    # no abbreviations: `--key SECRET` must be an error, not taken as `--key-file SECRET`
    login = sub.add_parser(
        "login", allow_abbrev=False,
        help="check an API key against a server and store both (mode 0600)",
        description="The key is read from --key-file, else $ARENA_API_KEY, else stdin (a hidden "
        "prompt on a terminal); never from the command line.",
    )
    login.add_argument("--server", required=True, help="the API's URL, e.g. https://arena.example.org")
    login.add_argument("--key-file", help="read the API key from this file")
    login.add_argument("--ca", metavar="FILE", help="CA certificate(s) to trust for https://")
    login.add_argument(
        "--allow-plain-http", action="store_true",
        help="send the key over plain http:// to a host other than this machine (anyone on the "
        "way can read it; stored for this server only). Without it such a server is refused",
    )
    login.set_defaults(func=_guarded(_cmd_login))

    logout = sub.add_parser("logout", help="forget the stored server and key")
    logout.set_defaults(func=_guarded(_cmd_logout))

    accounts = sub.add_parser("account", help="accounts (operators)").add_subparsers(
        dest="account_command", required=True
    )
    create_account = accounts.add_parser("create", help="create an account and its first API key")
    create_account.add_argument("name", help="the account's name")
    create_account.add_argument(
        "--key-file", help="write the new key to this file (0600) instead of printing it"
    )
    create_account.add_argument(
        "--db", help="create it directly in this database, not through the API (on the server "
        "host; with --operator alone, $DATABASE_URL)")
    create_account.add_argument("--operator", action="store_true",
                                help="an operator account (implies the database route)")
    _common(create_account)
    create_account.set_defaults(func=_guarded(_cmd_account_create))

    bots = sub.group("bot")  # shared with the referee's `arena bot check`
    create = bots.add_parser("create", help="register a bot under your account")
    create.add_argument("name", help="the bot's name (unique on the server)")
    create.add_argument("--game", required=True, help="clank, alien, ...")
    create.add_argument(
        "--kit", choices=sorted(KIT_RUN),
        help="the starter kit your bot uses, for the upload command it suggests (default: the "
        "kit whose main.py or main.js is in this folder)",
    )
    _common(create)
    create.set_defaults(func=_guarded(_cmd_bot_create))

    upload = bots.add_parser(
        "upload", help="upload a directory or archive as a new hosted version",
        description="A directory is packed into a tar.gz here (leaving out .git, .hg, .svn, "
        "__pycache__, *.pyc, .DS_Store; node_modules and vendored packages are kept: the sandbox "
        "has no network). A .tar.gz, .tgz or .zip is sent as it is.",
    )
    upload.add_argument("name", help="the bot's name")
    upload.add_argument("path", help="the bot's directory, or a .tar.gz/.tgz/.zip")
    upload.add_argument("--run", required=True, help='the command that starts it, e.g. "python main.py"')
    upload.add_argument("--version", help="a label for the version (default: the server numbers it)")
    _common(upload)
    upload.set_defaults(func=_guarded(_cmd_bot_upload))

    remote = bots.add_parser("remote", help="a new remote version: prints its token and how to run it")
    remote.add_argument("name", help="the bot's name")
    remote.add_argument("--version", help="a label for the version (default: the server numbers it)")
    remote.add_argument("--command", default="python main.py", help="your bot's command, for the hint")
    remote.add_argument(
        "--referee", help="the referee's HOST:PORT, for the hint (default: the address the server gives)"
    )
    remote.add_argument("--token-file", help="write the bot token to this file (0600) instead of printing it")
    _common(remote)
    remote.set_defaults(func=_guarded(_cmd_bot_remote))

    status = bots.add_parser("status", help="versions, qualification, ratings, recent matches")
    status.add_argument("name", help="the bot's name")
    status.add_argument(
        "--wait", choices=("qualified", "rated"),
        help="wait until the newest hosted or remote version's qualification ends (exit 1 if it "
        "failed; a remote one plays once its bot is connected), "
        "or until the newest version that passed has played a rated match (exit 1 at once when "
        "none passed and the newest failed)",
    )
    status.add_argument("--timeout", type=float, default=600.0, help="seconds --wait waits (default 600)")
    _common(status)
    status.set_defaults(func=_guarded(_cmd_bot_status))

    logs = bots.add_parser("logs", help="what your bot printed in one match (owner only)")
    logs.add_argument("name", help="the bot's name")
    logs.add_argument("--match", required=True, help="a match id, or 'latest' (its latest finished match)")
    logs.add_argument("--seat", type=int, help="one seat (default: every seat the bot played)")
    _common(logs, json_flag=False)
    logs.set_defaults(func=_guarded(_cmd_bot_logs))

    replay = bots.add_parser(
        "replay", help="download one match's replay (checked: it must re-simulate) to show or rerun it"
    )
    replay.add_argument("name", help="the bot's name")
    which = replay.add_mutually_exclusive_group(required=True)
    which.add_argument("--match", help="a match id, or 'latest' (its latest finished match)")
    which.add_argument(
        "--qualification", metavar="VERSION",
        help="the qualification game that failed this version (its label or id; yours only)",
    )
    replay.add_argument("--seat", type=int, help="the seat to name in the hints (default: the bot's first)")
    replay.add_argument(
        "--out", help="write it here (default: match-ID.replay.json.gz, qualification-ID.replay.json.gz)"
    )
    _common(replay, json_flag=False)
    replay.set_defaults(func=_guarded(_cmd_bot_replay))

    ladders = sub.add_parser("ladder", help="ladders").add_subparsers(dest="ladder_command", required=True)
    create_ladder = ladders.add_parser(
        "create", help="(operator, on the server host) create a ladder in the database",
    )
    create_ladder.add_argument("name", help="the ladder's name, e.g. clank-2p")
    create_ladder.add_argument("--game", required=True, help="game name, e.g. clank")
    create_ladder.add_argument("--players", type=int, default=2, help="seats per match (default 2)")
    create_ladder.add_argument("--decision-ms", type=int, default=1000,
                               help="per-decision allowance (default 1000)")
    create_ladder.add_argument("--bank-ms", type=int, default=30_000,
                               help="per-seat time bank (default 30000)")
    create_ladder.add_argument("--max-strikes", type=int, default=3,
                               help="strikes that forfeit a seat (default 3)")
    create_ladder.add_argument(
        "--kind", choices=("ffa", "coop", "campaign"),
        help="how it rates (default: the game's kind: coop for a cooperative game, campaign for "
             "a campaign game such as clank_legacy, else ffa); only the game's kind is accepted",
    )
    rating = create_ladder.add_argument_group(
        "rating policy", "how the ladder rates (ladder/RATINGS.md, \"Rating policy\"); fixed once "
        "it is created, since its history was rated with it")
    rating.add_argument("--k-factor", type=float, metavar="K",
                        help="K of an established bot (default 20); alone, the K of every game")
    rating.add_argument("--k-provisional", type=float, metavar="K",
                        help="K of a bot in its provisional games (default 40, or --k-factor's)")
    rating.add_argument("--provisional-games", type=int, metavar="N",
                        help="rated games a new bot is provisional for (default 20; 0: none)")
    rating.add_argument("--initial-rating", type=float, metavar="R",
                        help="the rating a bot joins with (default 1500)")
    rating.add_argument("--prior-games", type=float, metavar="G",
                        help="virtual draws behind a rating's deviation (default 1)")
    rating.add_argument("--confidence", type=float, metavar="P",
                        help="level of the standings' intervals, ranked by their low end (default 0.95)")
    create_ladder.add_argument(
        "--reference-bots", action="store_true",
        help="put the game's built-in reference bots on it, one for every seat but one (opponents "
             "from the first match)",
    )
    create_ladder.add_argument(
        "--divisions", metavar="SPEC",
        help="leagues, bottom first: 'default' (Wood,Bronze,Silver,Gold,Legend) or NAME[:BUILTIN],... "
             "each guarded by a boss (a built-in; left out: weakest at the bottom, the strongest at "
             "the top); ladder/RATINGS.md, Divisions",
    )
    create_ladder.add_argument("--db", help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    create_ladder.set_defaults(func=_guarded(_cmd_ladder_create))
    divide = ladders.add_parser(
        "divisions",
        help="(operator, on the server host) give a ladder divisions (leagues), each guarded by a boss",
    )
    divide.add_argument("ladder", help="the ladder's name or id")
    divide.add_argument("divisions", metavar="SPEC",
                        help="'default' or NAME[:BUILTIN],... bottom first (as ladder create --divisions)")
    divide.add_argument("--db", help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    divide.set_defaults(func=_guarded(_cmd_ladder_divisions))
    refs = ladders.add_parser(
        "reference-bots",
        help="(operator, on the server host) put the game's reference bots on an existing ladder, "
             "one for every seat but one",
    )
    refs.add_argument("ladder", help="the ladder's name or id")
    refs.add_argument("--db", help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    refs.set_defaults(func=_guarded(_cmd_ladder_reference_bots))
    upgrade = ladders.add_parser(
        "upgrade",
        help="(operator, on the server host) move a ladder to another engine version, a new rating period",
    )
    upgrade.add_argument("ladder", help="the ladder's name or id")
    upgrade.add_argument("--engine", required=True, help="the engine version to play, e.g. clank-2")
    upgrade.add_argument("--db", help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    upgrade.set_defaults(func=_guarded(_cmd_ladder_upgrade))
    season = ladders.add_parser(
        "season", help="(operator, on the server host) a ladder's seasons: close one, list them",
    ).add_subparsers(dest="season_command", required=True)
    close = season.add_parser(
        "close",
        help="archive the ladder's standings and start a new season, ratings shrunk toward the mean",
    )
    close.add_argument("ladder", help="the ladder's name or id")
    close.add_argument("--db", help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    close.set_defaults(func=_guarded(_cmd_season_close))
    seasons = season.add_parser("list", help="the ladder's seasons, the current one last")
    seasons.add_argument("ladder", help="the ladder's name or id")
    seasons.add_argument("--json", action="store_true", help="print JSON")
    seasons.add_argument("--db", help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    seasons.set_defaults(func=_guarded(_cmd_season_list))
    listing = ladders.add_parser("list", help="the ladders")
    _common(listing)
    listing.set_defaults(func=_guarded(_cmd_ladder_list))
    join = ladders.add_parser("join", help="put a bot on a ladder (by ladder name or id)")
    join.add_argument("name", help="the bot's name")
    join.add_argument("ladder", help="the ladder's name or id")
    _common(join)
    join.set_defaults(func=_guarded(_cmd_ladder_join))
