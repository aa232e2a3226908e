"""Toy Nim: one pile, a seat takes 1 to 3 stones, whoever takes the last one wins."""

from referee.core.game import Action, Decision, Game, InvalidConfig, Result


class ToyGame(Game):
    name = "toy"
    engine_version = "toy-1"
    passive_kinds = ("take",)

    def __init__(self, stones, current=0, winner=None, step=0, taken=None):
        self.stones, self.current, self.winner, self.step = stones, current, winner, step
        #: per seat, the stones of each take, in order
        self.taken = [list(t) for t in taken] if taken is not None else [[], []]
        self.last = None  # (seat, stones) of the last take
        self._decision = None

    @classmethod
    def new_game(cls, config, seed):
        if config.get("players") != 2:
            raise InvalidConfig("toy: 2 players")
        return cls(int(config.get("stones", 11)))

    @classmethod
    def default_config(cls, players):
        return {"players": players, "stones": 11}

    @property
    def num_seats(self):
        return 2

    @property
    def content_version(self):
        return "toy-content-1"

    def _make_decision(self):
        takes = tuple(Action("take", (n,), f"take {n}") for n in range(1, min(3, self.stones) + 1))
        return Decision(self.step, self.current, "turn", "take stones", takes)

    def _apply(self, decision, action):
        self.stones -= action.args[0]
        self.taken[self.current].append(action.args[0])
        self.last = (self.current, action.args[0])
        self.step += 1
        if self.stones == 0:
            self.winner = self.current
        self.current = 1 - self.current

    def forfeit(self, seat):
        self.winner, self.stones, self._decision = 1 - seat, 0, None

    def hidden_variant(self, seat, seed):
        return self.copy()

    def observe(self, seat):
        # winner None while playing, taken a list of lists, last {} before any take: the shapes
        # toy.proto's view options give back (arena_bot.observation_dict)
        last = {} if self.last is None else {"seat": self.last[0], "stones": self.last[1]}
        return {"game": "toy", "seat": seat, "current": self.current, "stones": self.stones,
                "over": self.is_over(), "winner": self.winner, "taken": [list(t) for t in self.taken],
                "last": last}

    def observe_all(self):
        return self.observe(-1)

    def is_over(self):
        return self.winner is not None

    def result(self):
        places = tuple(1 if s == self.winner else 2 for s in range(2))
        outcomes = tuple("won" if p == 1 else "lost" for p in places)
        return Result(tuple(2 - p for p in places), places, outcomes)

    def copy(self):
        game = ToyGame(self.stones, self.current, self.winner, self.step, self.taken)
        game.last = self.last
        return game

    def to_json(self):
        return {"stones": self.stones, "current": self.current, "winner": self.winner, "step": self.step,
                "taken": self.taken, "last": self.last}

    @classmethod
    def from_json(cls, data):
        game = cls(data["stones"], data["current"], data["winner"], data["step"], data["taken"])
        game.last = tuple(data["last"]) if data["last"] is not None else None
        return game
