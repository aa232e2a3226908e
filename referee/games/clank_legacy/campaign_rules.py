"""Clank! Legacy's campaign as the platform outside the game handles it (`SPEC.campaign_rules`):
campaign states as JSON in and out, so the ladder and the workers start, store and report
campaigns without importing this game (the rules themselves: `campaign.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from referee.core.effects import Effect
from referee.games.clank_legacy.campaign import DEFAULT_NAMES, CampaignState, close_game, new_campaign
from referee.games.clank_legacy.content import LegacyContent, default_content

__all__ = ["RULES", "LegacyCampaignRules"]


class LegacyCampaignRules:
    """The `referee.games.spec.CampaignRules` of Clank! Legacy (see there for each method)."""

    def default_names(self, players: int) -> list[str]:
        """The deck boxes' names a campaign gets when nobody names them."""
        return list(DEFAULT_NAMES[:players])

    def new_state(self, players: int, names: Sequence[str]) -> dict[str, Any]:
        """The campaign state before game 1 (ValueError for a player count or names it refuses)."""
        return new_campaign(players, names).to_json()

    def game_summary(self, state: Mapping[str, Any], index: int) -> dict[str, Any]:
        """Game `index` (1-based) of the campaign as `state` (after it) logged it: its passages,
        board side, MVP, group choices and the checkmarks each seat held after it."""
        campaign = CampaignState.from_json(state)
        report = campaign.reports[index - 1]
        return {
            "prologue": report.prologue,
            "epilogue": report.epilogue,
            "board": report.board,
            "mvp": report.mvp,
            "choices": list(report.choices),
            "checkmarks": _checkmarks_after(campaign, index),
        }

    def summary(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """The campaign as a whole: over or not, each seat's promotions, facts and abilities."""
        campaign = CampaignState.from_json(state)
        return {
            "over": campaign.over,
            "promotions": [list(p) for p in campaign.promotions],
            "facts": sorted(campaign.facts),
            "abilities": list(campaign.abilities),
        }

    def changes(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[dict[str, str]]:
        """What one game changed: `before` the state it started from, `after` the state after
        it (its Mission Report last). Lines ``{"kind", "text"}`` in this order: names (the
        deck boxes, named before game 1 or renamed), board (the side the prologue chose),
        vote (each group choice of its prologue and epilogue), cards (added to or removed from
        the Adventure deck), ability (Franchise abilities gained or lost), path (opened or
        blocked), fact (recorded), promotion (Employee Reviews), end (the next prologue, or
        the campaign's end). ValueError for a state the game refuses."""
        old, new = CampaignState.from_json(before), CampaignState.from_json(after)
        if len(new.reports) != len(old.reports) + 1:
            raise ValueError("changes: `after` is not the state one game after `before`")
        c = default_content()
        report = new.reports[-1]
        out: list[dict[str, str]] = []

        def line(kind: str, text: str) -> None:
            out.append({"kind": kind, "text": text})

        if not old.reports:
            line("names", "deck boxes named " + ", ".join(f"seat {i}: {n}" for i, n in enumerate(old.names)))
        for i, (a, b) in enumerate(zip(old.names, new.names, strict=True)):
            if a != b:
                line("names", f"seat {i} renamed {a} -> {b}")
        if report.board:
            board = c.boards.get(report.board)
            line("board", f"played on {board.name if board else report.board} ({report.board})")
        for text in _votes(c, report.prologue, report.epilogue, report.choices):
            line("vote", text)
        for cid in sorted(set(old.adventure_changes) | set(new.adventure_changes)):
            delta = new.adventure_changes.get(cid, 0) - old.adventure_changes.get(cid, 0)
            if delta:
                verb = "added to" if delta > 0 else "removed from"
                line("cards", f"{abs(delta)} x {_card(c, cid)} {verb} the Adventure deck")
        for a in new.abilities:
            if a not in old.abilities:
                line("ability", f"ability gained: {_ability(c, a)}")
        for a in old.abilities:
            if a not in new.abilities:
                line("ability", f"ability lost: {_ability(c, a)}")
        for key in sorted(set(old.paths) | set(new.paths)):
            if old.paths.get(key) != new.paths.get(key):
                line("path", f"path {key} {new.paths.get(key, 'reset')}")
        for f in sorted(new.facts - old.facts):
            fact = c.facts.get(f)
            line("fact", f"fact recorded: {fact.text if fact else f}" + (f" ({f})" if fact else ""))
        for seat, (was, now) in enumerate(zip(old.promotions, new.promotions, strict=True)):
            for upgrade in now[len(was) :]:
                line("promotion", f"{new.names[seat]} promoted: {_card(c, upgrade)} joins the starting deck")
        if new.over:
            line("end", "the campaign ended")
        else:
            line("end", f"next game: prologue {new.next_prologue}")
        return out


def _card(c: LegacyContent, cid: str) -> str:
    card = c.cards.get(cid)
    return card.name if card is not None else cid


def _ability(c: LegacyContent, aid: str) -> str:
    ability = c.franchise.abilities.get(aid)
    return ability.name if ability is not None else aid


def _describe(c: LegacyContent, effects: Sequence[Effect]) -> str:
    """A chosen option's campaign effects in a few words (its other effects by op name)."""
    parts = []
    for e in effects:
        if e.op == "gain_ability":
            parts.append(f"gain {_ability(c, e.arg)}")
        elif e.op in ("add_card", "remove_card"):
            parts.append(f"{'add' if e.op == 'add_card' else 'remove'} {max(e.n, 1)} x {_card(c, e.arg)}")
        elif e.op == "record_fact":
            parts.append(f"record {e.arg}")
        elif e.op in ("reveal_path", "block_path"):
            parts.append(f"{'open' if e.op == 'reveal_path' else 'block'} {e.arg}")
        elif e.op == "next_game":
            parts.append(f"next prologue {e.n}")
        elif e.op == "end_campaign":
            parts.append("end the campaign")
        else:
            parts.append(e.op)
    return ", ".join(parts) or "nothing"


def _votes(c: LegacyContent, prologue: int, epilogue: int, choices: Sequence[int]) -> list[str]:
    """Each group choice of the game's prologue and epilogue, described; the passages' chooses
    in order (into the chosen option, never into an `if`, whose branch the report does not
    record: a choice it cannot place is shown by its number alone)."""
    out: list[str] = []
    left = list(choices)

    def walk(passage_title: str, effects: Sequence[Effect]) -> None:
        for e in effects:
            if e.op != "choose" or not left:
                continue
            pick = left.pop(0)
            if 0 <= pick < len(e.options):
                out.append(
                    f"vote in {passage_title}: option {pick + 1} of {len(e.options)} "
                    f"({_describe(c, e.options[pick])})"
                )
                walk(passage_title, e.options[pick])
            else:
                out.append(f"vote in {passage_title}: option {pick + 1}")

    for pid in (prologue, epilogue):
        passage = c.passages.get(pid)
        if passage is not None:
            walk(f"{passage.kind} {pid} '{passage.title}'", passage.effects)
    out.extend(f"vote: option {pick + 1}" for pick in left)
    return out


def _checkmarks_after(state: CampaignState, index: int) -> list[int]:
    """Checkmarks each seat held after game `index`: the Employee Reviews of the first `index`
    Mission Reports folded again with ``close_game`` (only the reviews: the state carries the
    reports, not the counters after each)."""
    folded = new_campaign(state.players, state.names)
    for report in state.reports[:index]:
        folded = close_game(replace(folded, over=True), report)
    return list(folded.checkmarks)


#: the object the spec names
RULES = LegacyCampaignRules()
