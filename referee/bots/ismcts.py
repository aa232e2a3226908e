"""`builtin:ismcts`: information-set Monte Carlo tree search over a game's determinizer.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): one tree of action sequences from
the bot's decision, searched over many determinizations. Each iteration

1. samples a full state consistent with the observation and the legal actions it was sent
   (``sample_state(observation, seat, rng, legal_actions)`` of
   ``referee/games/<game>/determinize.py``: it reads those only, so the bot never sees the true
   hidden state; a sample whose decision is not the one the bot was asked is dropped);
2. tries every root action on that same sample (a copy each): the rollouts of one sample share
   its deal and its random streams, so the actions' scores differ by what the actions do, not by
   the luck of the draw (common random numbers);
3. below the root action, descends the tree: at each decision of the sampled state (any seat's)
   it takes the child with the best UCB score among the actions legal in *this* sample, counting
   each such child as available (subset-armed bandit: a child unavailable in most samples is
   not favoured by its few visits), until it meets an action with no child yet, which it adds;
4. plays on with the game's heuristic bot at every seat (``greedy`` in Clank!, ``coop`` in
   Alien; ``random`` for a game with none), observing as a bot would: to the end of the game,
   or, in a game with a position evaluation (``referee/games/<game>/value.py``: Alien), until
   ``HORIZON`` actions after the root;
5. scores the end for every seat (`rewards`), or the cut position by the game's ``evaluate``
   (the same scale), and adds each node's score for the seat that chose its action.

The answer is the root action with the best mean score if it beats the heuristic bot's own
choice clearly: over at least MIN_SAMPLES samples, its mean gain on the same samples above
PREFER_MARGIN and above CONFIDENCE standard errors of that gain. Otherwise the heuristic's (a
handful of samples cannot tell two card plays apart, and a coin flip between them is worse than
the heuristic's order). The search stops at a wall-clock budget (`time_ms`; by default the
operator's ``ARENA_SEARCH_MS``, 250 ms unless set, well inside the ladder's 1,000 ms a decision,
the same in rated and qualification games so a seat's timing does not tell them apart; checked
before every rollout from the root, a sample cut short is left out) or, for tests and
reproducible runs, after `iterations` samples; with an iteration budget and a seed it is
deterministic. A decision with one legal action is answered at once. ISMCTS.md has the
choices and the measurements.
"""

from __future__ import annotations

import importlib
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from referee import settings
from referee.core.game import Action, Game
from referee.games.determinize import Sampler
from referee.games.determinize import sampler as sampler_of

__all__ = ["DEFAULT_TIME_MS", "IsmctsBot", "rewards"]

#: wall-clock search time per decision: the ladder allows 1,000 ms (DEFAULT_DECISION_MS), and
#: the referee's round trip and a loaded worker need the rest
DEFAULT_TIME_MS = 250
#: UCB exploration constant for rewards in [-1, 1]
EXPLORATION = 1.0
#: another root action overrules the heuristic bot's choice only with at least MIN_SAMPLES
#: samples, a mean paired gain over it above PREFER_MARGIN and above CONFIDENCE standard errors
MIN_SAMPLES = 3
PREFER_MARGIN = 0.05
CONFIDENCE = 2.0
#: points of margin worth about 0.76 of the margin half of a reward (tanh(1))
MARGIN_SCALE = 20.0
#: a rollout that has not ended after this many actions scores 0 for every seat
MAX_ROLLOUT_STEPS = 3000

def _evaluation(game: str) -> tuple[int | None, Callable[[Game], list[float]] | None]:
    """The game's rollout horizon and position evaluation (``HORIZON`` and ``evaluate`` of
    ``referee/games/<game>/value.py``), or (None, None): rollouts to the end."""
    try:
        module = importlib.import_module(f"referee.games.{game}.value")
    except ModuleNotFoundError:
        return None, None
    return int(module.HORIZON), module.evaluate


def _rollout_factory(game: str) -> Callable[[int], Any]:
    """The game's heuristic bot (its own built-in bots but this one, first by name), else random."""
    from referee.bots.random_bot import RandomBot
    from referee.games import game_spec
    from referee.games.spec import load

    own = sorted(name for name in game_spec(game).bots if name != IsmctsBot.name)
    if not own:
        return RandomBot
    target = game_spec(game).bots[own[0]]
    return lambda seed: load(target)()


def rewards(game: Game) -> list[float]:
    """Per seat, the score of a finished game in [-1, 1]. Cooperative: +1 won, -1 lost.
    Otherwise half the place (1 for first down to -1 for last, linear; a shared place scores
    alike) and half the points margin over the best other seat (tanh of margin / MARGIN_SCALE):
    a search whose rollouts all end in the same place still sees which line loses by less."""
    result = game.result()
    n = game.num_seats
    if result.team_won is not None:
        return [1.0 if result.team_won else -1.0] * n
    if n < 2:
        return [1.0 if place == 1 else -1.0 for place in result.places]
    out = []
    for seat, place in enumerate(result.places):
        best_other = max(score for other, score in enumerate(result.scores) if other != seat)
        margin = math.tanh((result.scores[seat] - best_other) / MARGIN_SCALE)
        out.append(0.5 * (1.0 - 2.0 * (place - 1) / (n - 1)) + 0.5 * margin)
    return out


class _Node:
    """A tree node: reached by an action of `seat`; its statistics are that seat's."""

    __slots__ = ("avail", "children", "seat", "total", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        self.children: dict[Action, _Node] = {}


class IsmctsBot:
    """The information-set MCTS reference bot (module docstring)."""

    name = "ismcts"

    def __init__(
        self,
        game: str,
        seed: int = 0,
        *,
        time_ms: float | Literal["setting"] | None = "setting",
        iterations: int | None = None,
        sampler: Sampler | None = None,
        rollout: Callable[[int], Any] | None = None,
        rollout_steps: int = MAX_ROLLOUT_STEPS,
        horizon: int | None = None,
        evaluate: Callable[[Game], list[float]] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        """`iterations` (when given) replaces the time budget: that many samples, a seeded,
        reproducible search; `time_ms` "setting" (the default) is ``ARENA_SEARCH_MS``. `sampler`
        defaults to the game's determinizer, `rollout` (a factory seed -> bot) to its heuristic
        bot; a rollout not over after `rollout_steps` actions
        scores 0 for every seat. With `evaluate` (a position -> every seat's score in [-1, 1],
        as `rewards` scores an end), a rollout is cut `horizon` actions after the root and that
        position is scored instead; both default to the game's ``value.py`` (`_evaluation`), else
        rollouts go to the end. `clock` (seconds) measures the time budget."""
        if iterations is None and time_ms is None:
            raise ValueError("ismcts needs a time budget or an iteration budget")
        self.game = game
        self.time_ms: float | None = settings.current().search_ms if time_ms == "setting" else time_ms
        self.iterations = iterations
        self.sampler = sampler if sampler is not None else sampler_of(game)
        self.rollout_bot = rollout if rollout is not None else _rollout_factory(game)
        self.rollout_steps = rollout_steps
        if evaluate is None:
            game_horizon, evaluate = _evaluation(game)
            horizon = horizon if horizon is not None else game_horizon
        if evaluate is not None and horizon is None:
            raise ValueError("an evaluation needs a horizon")
        self.horizon = horizon if evaluate is not None else None
        self.evaluate = evaluate
        self.clock = clock
        self._rng = random.Random(seed)
        #: what the last search did: iterations, samples dropped, root visits per action
        self.last_search: dict[str, Any] = {}

    def act(self, observation: dict[str, Any], legal_actions: Sequence[Action]) -> int:
        """The root action with the best mean score, or the heuristic bot's own choice unless
        another beats it by more than PREFER_MARGIN (module docstring)."""
        if len(legal_actions) == 1:
            return 0
        seat = int(observation["seat"])
        wanted = set(legal_actions)
        deadline = None if self.iterations is not None else self.clock() + (self.time_ms or 0) / 1000
        bots = [self.rollout_bot(self._rng.randrange(1 << 30)) for _ in range(self._seats(observation))]
        prefer = int(bots[seat].act(observation, legal_actions))
        root = _Node(seat)
        #: per root action, its score on each sample (paired: the same samples for every action)
        paired: dict[Action, list[float]] = {a: [] for a in legal_actions}
        done = dropped = 0
        late = False
        while not late:
            if self.iterations is not None:
                if done + dropped >= self.iterations:
                    break
            elif done and deadline is not None and self.clock() >= deadline:
                break
            state = self.sampler(observation, seat, self._rng, legal_actions)
            d = state.decision()
            if d is None or d.seat != seat or set(d.actions) != wanted:
                dropped += 1  # not the decision asked: the sample says nothing about it
                if self.iterations is None and dropped > 1000 and not done:
                    break
                continue
            # every root action on the same sample: its rollouts share the sample's deal and
            # random streams, so the actions' scores differ by what the actions do
            for i, action in enumerate(d.actions):
                if deadline is not None and self.clock() >= deadline:
                    # out of time within a sample (one sample of a long game can take a good
                    # part of the budget): its rollouts so far are not paired, leave them out
                    late = True
                    break
                child = root.children.get(action)
                if child is None:
                    child = root.children[action] = _Node(seat)
                child.avail += 1
                branch = state.copy()
                branch.apply_index(i)
                paired[action].append(self._iterate(child, branch, bots))
            else:
                root.visits += 1
                done += 1
        for scores in paired.values():
            del scores[done:]
        self.last_search = {
            "iterations": done,
            "dropped": dropped,
            "prefer": legal_actions[prefer],
            "visits": {a: child.visits for a, child in root.children.items()},
            "means": {a: sum(scores) / done for a, scores in paired.items() if done},
            "scored": {a: len(scores) for a, scores in paired.items()},
        }
        if done < MIN_SAMPLES:
            return prefer
        means = self.last_search["means"]
        best = max(range(len(legal_actions)), key=lambda k: means[legal_actions[k]])
        ours, theirs = paired[legal_actions[best]], paired[legal_actions[prefer]]
        diffs = [a - b for a, b in zip(ours, theirs, strict=True)]
        mean = sum(diffs) / done
        spread = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (done - 1) / done)
        self.last_search["gain"] = (mean, spread)
        if mean > PREFER_MARGIN and mean > CONFIDENCE * spread:
            return best
        return prefer

    @staticmethod
    def _seats(observation: Mapping[str, Any]) -> int:
        players = observation.get("players")
        return len(players) if isinstance(players, list) else 1

    def _iterate(self, top: _Node, state: Game, bots: list[Any]) -> float:
        """One descent from `top` (a root child, its action applied to `state`), an expansion,
        a rollout and the scores added along the path; `top`'s seat's score."""
        node = top
        path = [top]
        rng = self._rng
        while True:
            d = state.decision()
            if d is None:
                break
            untried = []
            for i, action in enumerate(d.actions):
                child = node.children.get(action)
                if child is None:
                    untried.append(i)
                    continue
                child.avail += 1
            if untried:
                i = untried[rng.randrange(len(untried))]
                child = _Node(d.seat)
                child.avail = 1
                node.children[d.actions[i]] = child
                state.apply_index(i)
                path.append(child)
                break
            best_i, best_score = -1, -math.inf
            for i, action in enumerate(d.actions):
                child = node.children[action]
                explore = EXPLORATION * math.sqrt(math.log(child.avail) / child.visits)
                score = child.total / child.visits + explore
                if score > best_score:
                    best_i, best_score = i, score
            node = node.children[d.actions[best_i]]
            state.apply_index(best_i)
            path.append(node)
        if self.horizon is not None and self.evaluate is not None:
            # the path's actions count towards the horizon (the root action is one of them)
            scores = self._rollout(state, bots, max(0, self.horizon - len(path)), self.evaluate)
        else:
            scores = self._rollout(state, bots, self.rollout_steps)
        for n in path:
            n.visits += 1
            n.total += scores[n.seat]
        return scores[top.seat]

    @staticmethod
    def _rollout(
        state: Game, bots: list[Any], steps: int, evaluate: Callable[[Game], list[float]] | None = None
    ) -> list[float]:
        """Play `steps` actions by `bots` (or to the end): the end's `rewards`, else the cut
        position's `evaluate` (0 for every seat without one)."""
        for _ in range(steps):
            d = state.decision()
            if d is None:
                return rewards(state)
            if len(d.actions) == 1:
                state.apply_index(0)
                continue
            state.apply_index(bots[d.seat].act(state.observe(d.seat), d.actions))
        if state.decision() is None:
            return rewards(state)
        return evaluate(state) if evaluate is not None else [0.0] * state.num_seats
