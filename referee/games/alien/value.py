"""A state evaluation for Alien: the team's chance to win, read from a position's public quantities.

`builtin:ismcts` cuts its rollouts at a horizon and scores the position there with
:func:`team_value` (ISMCTS.md, "Alien"): a full rollout of a cooperative game is some 370 steps,
and at the ladder's time budget the search finished no sample in most decisions.

The estimate is a heuristic: a logistic function of a weighted sum (:data:`WEIGHTS`, set by
hand) of :func:`features` (objective progress, the team's health, the threat in the Combat Zone
and the Complex, the Hive left, the round, the Attack in the team's decks), read as the team's
chance to win. The search compares the positions its root actions lead to, so what matters is
that it ranks them, not that its chance is calibrated.

It reads the state it is given, which in a search is a sample of the determinizer, never the
true game; the engine is not changed by it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from referee.core.game import Game
from referee.games.alien.content import AlienContent
from referee.games.alien.engine import ROUND_LIMIT, AlienGame
from referee.games.alien.state import ALIVE

__all__ = ["FEATURES", "HORIZON", "WEIGHTS", "evaluate", "features", "team_value", "win_chance"]

#: actions after its root at which `builtin:ismcts` cuts a rollout and scores it by `evaluate`
#: (about one turn at 2 players: 7,375 steps in 559 turns of 20 coop games)
HORIZON = 15

#: the names of :func:`features`, in order (the last is the constant)
FEATURES = (
    "objective",
    "conditions_met",
    "alive",
    "health_left",
    "weakest_health",
    "combat_attack",
    "combat_enemies",
    "facehuggers",
    "complex_pressure",
    "round",
    "hive_left",
    "deck_attack",
    "cards_owned",
    "strike_pool",
    "bias",
)

#: the heuristic's weights, set by hand with the signs the rules give (an Objective, a living
#: player, health and Attack in the decks help the team; enemies in the Combat Zone, facehuggers,
#: a crowded Complex near the Airlock, strikes to come and the rounds spent hurt it). A logistic
#: fit on ``coop``'s own games (positions labelled with the game's end) predicted little better
#: than a constant (log loss 0.658 against 0.687 on held-out games) and learnt confounded signs
#: (a dead player "helped": long games are the won ones), which a search would exploit
WEIGHTS: tuple[float, ...] = (
    +2.0,  # objective
    +1.0,  # conditions_met
    +2.0,  # alive
    +1.5,  # health_left
    +1.0,  # weakest_health
    -1.0,  # combat_attack
    -0.5,  # combat_enemies
    -0.5,  # facehuggers
    -0.5,  # complex_pressure
    -1.0,  # round
    -0.5,  # hive_left
    +1.0,  # deck_attack
    +0.3,  # cards_owned
    -0.5,  # strike_pool
    -3.0,  # bias
)


#: per content object, each player card's Attack when played (features reads it for every card)
_ATTACK: dict[int, tuple[AlienContent, dict[str, int]]] = {}


def _attack_table(content: AlienContent) -> dict[str, int]:
    held = _ATTACK.get(id(content))
    if held is None or held[0] is not content:
        table = {c: sum(e.n for e in card.play if e.op == "attack") for c, card in content.cards.items()}
        held = _ATTACK[id(content)] = (content, table)
    return held[1]


def features(game: AlienGame) -> list[float]:
    """The position's quantities :data:`FEATURES` names, each scaled to about [0, 1]."""
    s = game.s
    content = game.content
    hive = content.hive_cards
    punch = _attack_table(content)
    n = max(1, s.players_n)
    alive = [i for i, p in enumerate(s.players) if p.status == ALIVE]
    health = sum(p.health for p in s.players) or 1
    left = [max(0, s.players[i].health - game.damage(i)) for i in alive]
    biggest = max(p.health for p in s.players) or 1
    combat = [hive[c] for c in s.combat if hive[c].is_enemy]
    pressure = 0.0
    for k, room in enumerate(s.complex):
        if room is not None:
            pressure += (k + 1) / len(s.complex)
    attack = owned = 0
    for i in alive:
        p = s.players[i]
        for pile in (p.deck, p.hand, p.discard, p.play, p.vigilant, p.set_aside):
            for c in pile:
                owned += 1
                attack += punch.get(c, 0)  # a Hive card among them (a burster) adds none
    return [
        s.objective / 3,
        sum(s.met) / max(1, len(s.met)),
        len(alive) / n,
        sum(left) / health,
        min(left, default=0) / biggest,
        sum(c.attack for c in combat) / 10,
        sum(c.strikes for c in combat) / 5,
        len(s.facehuggers) / n,
        pressure / 3,
        s.round / ROUND_LIMIT,
        len(s.hive) / 40,
        attack / max(1, owned),
        owned / n / 30,
        len(s.strike_queue) / 5,
        1.0,
    ]


def win_chance(game: AlienGame, weights: Sequence[float] = WEIGHTS) -> float:
    """The team's chance to win from here (1 or 0 once the game is over)."""
    if game.s.over:
        return 1.0 if game.s.won else 0.0
    z = sum(w * x for w, x in zip(weights, features(game), strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def team_value(game: AlienGame) -> list[float]:
    """Every seat's score in [-1, 1] as `referee.bots.ismcts.rewards` scores a finished game
    (+1 won, -1 lost): 2 * win_chance - 1 for the whole team."""
    v = 2.0 * win_chance(game) - 1.0
    return [v] * game.s.players_n


def evaluate(game: Game) -> list[float]:
    """`team_value` of an Alien game (the search bot's hook: ``referee.bots.ismcts``)."""
    assert isinstance(game, AlienGame), game
    return team_value(game)
