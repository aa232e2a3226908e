"""Toy Nim's registration."""

from referee.games.spec import GameSpec

SPEC = GameSpec(
    name="toy",
    title="Toy Nim",
    engine="referee.games.toy.engine:ToyGame",
    min_players=2,
    max_players=2,
    passive_kinds=("take",),
    observation_codec="referee.games.toy.codec:encode_observation",
    action_codec="referee.games.toy.codec:encode_action",
)
