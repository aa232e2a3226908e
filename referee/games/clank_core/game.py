"""The `Game` parts Clank! and Clank! Legacy share, as a base of their engines.

`ClankGameBase` adds to `referee.core.state_game.StateGame` (the seat count, the content
version, whether the game is over, copying, JSON, `from_json` and the digest, which every
engine answers alike) what both Clank! games do alike: forfeits (hook `_in_play`), the decision (the pending
choice on top of the stack, else the main turn; hook `_stack_decision`), scores (cards,
artifacts, gold, kept secrets; hooks `_keeps_points` and `_own_points`), outcomes
(`knocked_out_outcomes`) and the result with its tie-break (the most valuable artifact; hook
`_result_details`) and the accessors of the board side in play and of a card (`board`, `card`;
the base is generic in the game's board and card types). Each game keeps what differs: its
setup, its state class and content (`state_type`, `game_content`, which `from_json` reads), its
main actions, turn structure and observations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

from referee.core.game import Action, Decision, IllegalAction, Result
from referee.core.state_game import GameStateLike, StateGame, check_content_version
from referee.games.clank_core.rules import ClankCore, CoreCard, CoreContent
from referee.games.clank_core.scoring import places
from referee.games.clank_core.state import ESCAPED, KNOCKED_OUT, PLAYING, CorePlayer, CoreState

__all__ = ["MAIN", "ClankGameBase", "GameContent", "GamePlayer", "GameState", "check_content_version"]

#: the kind of the active player's main decision
MAIN = "turn"


class GamePlayer(CorePlayer, Protocol):
    """What the shared accessors read of a player, beyond the core rules' shape."""

    #: a forfeited seat scores zero and its artifacts break no tie
    forfeited: bool


class GameState(CoreState, GameStateLike, Protocol):
    """What the shared accessors read of a game state, beyond the core rules' shape."""

    stack: list[dict[str, Any]]
    #: the board side in play (a key of the content's `boards`)
    board: str

    @property
    def players(self) -> Sequence[GamePlayer]:
        """The players in seat order."""


BoardT = TypeVar("BoardT", covariant=True)
CardT = TypeVar("CardT", bound=CoreCard, covariant=True)


class GameContent(CoreContent, Protocol[BoardT, CardT]):
    """What the shared accessors read of a game's content, beyond the core rules' shape."""

    @property
    def version(self) -> str:
        """The content's digest."""

    @property
    def boards(self) -> Mapping[str, BoardT]:
        """The board sides by id."""

    @property
    def cards(self) -> Mapping[str, CardT]:
        """Card definitions by id."""


class ClankGameBase(ClankCore, StateGame, Generic[BoardT, CardT]):
    """The `Game` parts both Clank! engines share (the shared rules come from `ClankCore`), for
    a game whose board sides are `BoardT` and cards `CardT`."""

    __slots__ = ()

    s: GameState
    content: GameContent[BoardT, CardT]

    @property
    def board(self) -> BoardT:
        """The board side in play."""
        return self.content.boards[self.s.board]

    def card(self, card_id: str) -> CardT:
        """The definition of a card."""
        return self.content.cards[card_id]

    def _best_artifacts(self) -> list[int]:
        """Each seat's tie-break: its most valuable artifact ("the tied player with the more
        valuable artifact wins"); 0 for a forfeited seat, whose artifacts break no tie."""
        return [0 if p.forfeited else max(p.artifacts, default=0) for p in self.s.players]

    # --- the end: forfeits, scores, outcomes, the result ------------------------------------------

    #: a knocked-out player's outcome: (when it keeps its points, when it does not)
    knocked_out_outcomes: tuple[str, str] = ("knocked_out", "lost")

    def _in_play(self) -> bool:
        """Whether play is on (a forfeit then knocks a seat still playing out)."""
        return not self.s.over

    def forfeit(self, seat: int) -> None:
        """Forfeit `seat` (a referee decision: timeouts, crash, disconnect): a player still
        playing is knocked out where it stands and scores 0; if it was that seat's turn, the turn
        ends and play passes on. A player who already escaped or was knocked out keeps what it
        earned (so does a seat forfeited while play is not on)."""
        if not 0 <= seat < self.s.players_n:
            raise IllegalAction(f"no seat {seat}")
        p = self.s.players[seat]
        if not self._in_play() or p.status != PLAYING:
            return
        self._decision = None
        self.s.step += 1
        p.forfeited = True
        self._knock_out(seat)
        if seat == self.s.current:
            self.s.stack.clear()
            self._end_turn()

    def _end_turn(self) -> None:
        """End the active player's turn (the game's turn structure)."""
        raise NotImplementedError

    def _keeps_points(self, p: Any) -> bool:
        """Whether a knocked-out player keeps its points (the game's rule)."""
        raise NotImplementedError

    def _own_points(self, p: Any) -> int:
        """The points a player scores beyond its cards, artifacts, gold and kept secrets."""
        raise NotImplementedError

    def outcome(self, seat: int) -> str:
        """How `seat` finished: forfeited, escaped, one of `knocked_out_outcomes`, or playing."""
        p = self.s.players[seat]
        if p.forfeited:
            return "forfeited"
        if p.status == ESCAPED:
            return "escaped"
        if p.status == KNOCKED_OUT:
            kept, lost = self.knocked_out_outcomes
            return kept if self._keeps_points(p) else lost
        return "playing"

    def score(self, seat: int) -> int:
        """Points of `seat` now: cards, artifacts, gold, kept secrets and the game's own
        (`_own_points`); 0 for a forfeited seat or a knocked-out one that keeps nothing."""
        p = self.s.players[seat]
        if p.forfeited or (p.status == KNOCKED_OUT and not self._keeps_points(p)):
            return 0
        content = self.content
        cards = p.deck + p.hand + p.play + p.discard
        total: int = sum(content.cards[c].points for c in cards)
        total += sum(p.artifacts) + p.gold
        total += sum(content.secrets[x].points for x in p.kept_secrets)
        return total + self._own_points(p)

    def _result_details(self) -> dict[str, Any]:
        """The result's details: the rounds and steps played (a game may add its own)."""
        return {"rounds": self.s.round, "steps": self.s.step}

    def result(self) -> Result:
        if not self.s.over:
            raise IllegalAction("the game is not over")
        n = self.s.players_n
        scores = [self.score(seat) for seat in range(n)]
        # Tie-break: the more valuable artifact -- zero scorers too (the seed makes no exception)
        return Result(
            scores=tuple(scores),
            places=places(scores, self._best_artifacts()),
            outcomes=tuple(self.outcome(seat) for seat in range(n)),
            details=self._result_details(),
        )

    # --- decisions ------------------------------------------------------------------------------

    def _main_actions(self) -> list[Action]:
        """The active player's main decision's actions."""
        raise NotImplementedError

    def _stack_decision(self, top: dict[str, Any]) -> Decision:
        """The decision of the pending choice `top` (a game may have kinds of its own)."""
        return Decision(self.s.step, top["seat"], top["kind"], top["prompt"], self._pending_actions(top))

    def _make_decision(self) -> Decision:
        s = self.s
        if s.stack:
            return self._stack_decision(s.stack[-1])
        return Decision(s.step, s.current, MAIN, "your turn", tuple(self._main_actions()))
