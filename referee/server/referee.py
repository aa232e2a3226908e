"""The referee: every match held by one process, and the seat tokens that lead to them."""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from referee.core.game import GameError
from referee.server.config import MatchSpec, ServerLimits
from referee.server.lobby import Authenticator, Lobby
from referee.server.session import MatchSession, SeatState, State

__all__ = ["MatchLimitReached", "Referee", "SpecError"]

log = logging.getLogger("arena.referee")


class SpecError(ValueError):
    """A match request is not acceptable (the message says which field)."""


class MatchLimitReached(RuntimeError):
    """The process holds as many matches as its limits allow."""


class Referee:
    """Creates match sessions, runs each as its own task, finds them by id or seat token.

    With an `authenticator` (bot token -> ladder bot), bots may also connect with their bot
    token and wait in the `lobby` for the matches whose seats are bound to them.
    """

    def __init__(
        self, limits: ServerLimits | None = None, authenticator: Authenticator | None = None
    ) -> None:
        self.limits = limits or ServerLimits()
        self.matches: OrderedDict[str, MatchSession] = OrderedDict()
        self.tokens: dict[str, tuple[MatchSession, SeatState]] = {}
        self.authenticator = authenticator
        self.lobby = Lobby()
        self._tasks: set[asyncio.Task[None]] = set()

    def create(self, spec: MatchSpec) -> MatchSession:
        """Create a match and start it (it waits for its bots). Raises SpecError, MatchLimitReached."""
        self._evict()
        if len(self.matches) >= self.limits.max_matches:
            raise MatchLimitReached(f"this referee already holds {len(self.matches)} matches")
        if spec.match_id and spec.match_id in self.matches:
            raise SpecError(f"match id {spec.match_id!r} is taken")
        if not spec.seat_names:
            raise SpecError("a match needs at least one seat")
        bound = [b for b in spec.seat_bot_ids if b]
        if bound and self.authenticator is None:
            raise SpecError("seats bound to remote bots need a referee started with a ladder database")
        if len(set(bound)) != len(bound):
            raise SpecError("a remote bot can be bound to one seat of a match only")
        try:
            session = MatchSession(spec, self.limits)
        except KeyError as exc:
            raise SpecError(str(exc.args[0])) from None
        except (GameError, ValueError, TypeError) as exc:
            raise SpecError(f"bad match config: {exc}") from None
        self.matches[session.match_id] = session
        session.bot_present = self.lobby.present
        for seat in session.seats:
            if seat.bot_id is None:
                self.tokens[seat.token] = (session, seat)
        task = asyncio.get_running_loop().create_task(session.run(), name=f"match-{session.match_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        for seat in session.seats:
            if seat.bot_id is not None:
                self.lobby.bind(session, seat, seat.bot_id)
        return session

    def _evict(self) -> None:
        finished = [m for m in self.matches.values() if m.state is State.FINISHED]
        for session in finished[: max(0, len(finished) - self.limits.keep_finished)]:
            del self.matches[session.match_id]
            for seat in session.seats:
                self.tokens.pop(seat.token, None)

    def get(self, match_id: str) -> MatchSession | None:
        """The match with this id, if held."""
        return self.matches.get(match_id)

    def running(self) -> int:
        """Matches not yet finished."""
        return sum(1 for m in self.matches.values() if m.state is not State.FINISHED)

    async def close(self) -> None:
        """Stop every match task (server shutdown)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def parse_config(text: str) -> Mapping[str, Any] | None:
    """A match's config_json (empty: the game's default). Raises SpecError."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpecError(f"config_json is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise SpecError("config_json must be a JSON object")
    return value
