"""A greedy Clank! bot over the wire: play everything, buy well, grab an artifact it can bring
home, get out. It uses only the SDK: the observation (`observation_dict`), the legal actions, and
the static content the referee sends in GameStart (`self.content`: cards and this match's board,
PROTOCOL.md "Static content"), so it runs anywhere the SDK does, the sandbox included.

It decides as the referee's built-in `greedy` bot does, so the two play the same game from the
same seed (a test checks it). Plan each decision:
1. pending choices: trash/discard the weakest starting cards, pick the richest option;
2. play every card in hand;
3. take tokens where it stands (artifact if it has none yet);
4. move one tunnel along the cheapest path to its target (artifact, or the exit once it has
   one), spending Swords to avoid tunnel damage when health is low;
5. buy the best card its Skill affords, fight the best monster its Swords beat;
6. end the turn.

    python bots/python/examples/greedy_clank_bot.py --referee HOST:PORT --token T
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

from arena_bot import Action, Bot, observation_dict, run

#: what one unit of each effect is worth to this bot
RESOURCE_VALUE = {
    "skill": 1.0,
    "swords": 0.9,
    "boots": 1.2,
    "gold": 0.5,
    "draw": 1.1,
    "heal": 0.8,
    "teleport": 1.5,
    "clank": -0.6,
    "clank_all": 0.0,
    "rage": 0.0,
}
#: starting cards to get rid of, weakest first
TRASH_ORDER = ("stumble", "burgle", "sidestep")
#: "far away" for rooms no path reaches
FAR = 1e9


def effects_value(effects: Sequence[dict[str, Any]]) -> float:
    """Worth of a list of effects (the content's JSON form: op, n, then, options)."""
    total = 0.0
    for e in effects:
        op = e["op"]
        if op in RESOURCE_VALUE:
            total += RESOURCE_VALUE[op] * e.get("n", 0)
        elif op == "trash":
            total += 0.8
        elif op == "discard_for":
            total += 0.5 * effects_value(e.get("then", []))
        elif op == "choose":
            total += max(effects_value(o) for o in e.get("options", []))
        elif op == "if":
            total += 0.4 * effects_value(e.get("then", []))
    return total


def card_value(card: dict[str, Any]) -> float:
    """How much a card is worth owning (or, for devices, using now)."""
    if card["kind"] == "device":
        return effects_value(card["use"])
    return effects_value(card["play"]) + 0.3 * effects_value(card["acquire"]) + 0.35 * float(card["points"])


def other_end(board: dict[str, Any], tunnel_index: int, room: str) -> str:
    """The room at the far end of tunnel `tunnel_index` from `room`."""
    t = board["tunnels"][tunnel_index]
    return str(t["b"] if t["a"] == room else t["a"])


def distances(board: dict[str, Any], target: str, has_key: bool) -> dict[str, float]:
    """Cost to reach `target` from every room (Boots, plus a little per monster icon)."""
    dist = {target: 0.0}
    heap = [(0.0, target)]
    while heap:
        d, room = heapq.heappop(heap)
        if d > dist.get(room, FAR):
            continue
        # walk tunnels backwards: from `prev` one can move into `room`
        for t_index in board["touching"][room]:
            t = board["tunnels"][t_index]
            prev = other_end(board, t_index, room)
            if t["one_way"] and t["b"] != room:
                continue
            if t["locked"] and not has_key:
                continue
            nd = d + t["boots"] + 0.7 * t["monsters"]
            if nd < dist.get(prev, FAR):
                dist[prev] = nd
                heapq.heappush(heap, (nd, prev))
    return dist


class GreedyClankBot(Bot):
    """Play everything, buy well, grab an artifact it can bring home, get out."""

    name = "greedy"
    version = "1"

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        if self.content is None:
            raise RuntimeError("the referee sent no static content: this bot needs the cards and board")
        index = self.choose(observation_dict(observation), legal_actions)
        self.note = legal_actions[index].text
        return index

    def choose(self, obs: dict[str, Any], legal_actions: Sequence[Action]) -> int:
        """Pick an action index (see the module docstring for the plan)."""
        assert self.content is not None
        cards: dict[str, Any] = self.content["cards"]
        board: dict[str, Any] = self.content["board"]
        kinds: dict[str, list[int]] = {}
        for i, a in enumerate(legal_actions):
            kinds.setdefault(a.kind, []).append(i)

        pending = obs.get("pending")
        if pending is not None:
            return self.pending(pending, legal_actions)

        me = obs["players"][obs["seat"]]
        pool = obs["pool"]
        if "play" in kinds:
            return kinds["play"][0]
        if "take" in kinds:
            tokens = {legal_actions[i].args[0]: i for i in kinds["take"]}
            for token in ("artifact", "major_secret", "minor_secret", "monkey_idol"):
                room_for_it = token != "artifact" or not me["artifacts"] or "backpack" in me["items"]
                if token in tokens and room_for_it:
                    return tokens[token]
        if "drink" in kinds and me["damage"] >= 2:
            return kinds["drink"][0]
        if "buy_item" in kinds:
            items = {legal_actions[i].args[0]: i for i in kinds["buy_item"]}
            for item in ("crown", "master_key", "backpack"):
                if item in items:
                    return items[item]

        has_key = "master_key" in me["items"]
        dist = distances(board, self.target(obs, board, me, has_key), has_key)
        here = dist.get(me["room"], FAR)
        for kind in ("move", "teleport"):
            best_i, best_d = -1, here
            for i in kinds.get(kind, []):
                a = legal_actions[i]
                t_index = int(a.args[0])
                tunnel = board["tunnels"][t_index]
                d = dist.get(other_end(board, t_index, me["room"]), FAR)
                if kind == "move":
                    if tunnel["monsters"] - int(a.args[1]) >= me["health"]:
                        continue
                    # spend swords to avoid damage unless health is plentiful
                    wants_spend = min(tunnel["monsters"], pool["swords"]) if me["health"] <= 6 else 0
                    if int(a.args[1]) != wants_spend:
                        continue
                if d < best_d:
                    best_i, best_d = i, d
            if best_i >= 0:
                return best_i

        best_i, best_v = -1, 0.0
        for i in kinds.get("acquire", []) + kinds.get("buy_reserve", []):
            card = cards[self.row_or_pile(obs, legal_actions[i])]
            value = card_value(card) + 0.1 * card["cost"]
            if value > best_v:
                best_i, best_v = i, value
        if best_i >= 0:
            return best_i
        best_i, best_v = -1, -1.0
        for i in kinds.get("fight", []):
            card = cards[self.row_or_pile(obs, legal_actions[i])]
            value = effects_value(card["defeat"]) + card["cost"]
            if value > best_v:
                best_i, best_v = i, value
        if best_i >= 0:
            return best_i
        for kind in ("fight_goblin", "end_turn"):
            if kind in kinds:
                return kinds[kind][0]
        return 0

    @staticmethod
    def target(obs: dict[str, Any], board: dict[str, Any], me: dict[str, Any], has_key: bool) -> str:
        """The room to head for: the exit once it holds an artifact, else the best artifact."""
        start = str(board["start"])
        if me["artifacts"]:
            return start
        home = distances(board, start, has_key)
        best, best_score = start, -FAR
        for room, value in obs["artifacts"].items():
            there = distances(board, room, has_key).get(me["room"], FAR)
            back = home.get(room, FAR)
            # deeper is worth more but the way back is the risk; health and rage temper greed
            risk = 1.2 + 0.15 * obs["rage"] + (0.3 if me["health"] < 6 else 0.0)
            score = value - risk * (there + back)
            if score > best_score:
                best, best_score = room, score
        return best

    @staticmethod
    def row_or_pile(obs: dict[str, Any], action: Action) -> str:
        """The card id an acquire/fight/buy_reserve action names."""
        if action.kind == "buy_reserve":
            return str(action.args[0])
        card = obs["row"][int(action.args[0])]
        assert card is not None
        return str(card)

    @staticmethod
    def pending(pending: dict[str, Any], legal_actions: Sequence[Action]) -> int:
        """Answer a pending choice: trash/discard weak starting cards, choose the richest option."""
        kind = pending["kind"]
        if kind in ("trash", "discard"):
            for preferred in TRASH_ORDER[: 1 if kind == "discard" else 2]:
                for i, a in enumerate(legal_actions):
                    if a.kind != "skip" and a.args[-1] == preferred:
                        return i
            return len(legal_actions) - 1  # skip is always last
        values = [effects_value(o) for o in pending["options"]]
        return max(range(len(legal_actions)), key=lambda i: values[int(legal_actions[i].args[0])])


if __name__ == "__main__":
    raise SystemExit(run(GreedyClankBot()))
