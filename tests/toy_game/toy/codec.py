"""Toy Nim's observation and actions as its typed messages (toy.proto)."""

from referee.wire._proto.arena.v1 import bot_pb2, toy_pb2


def encode_observation(obs):
    message = toy_pb2.ToyObservation(
        game=obs["game"], seat=obs["seat"], current=obs["current"], stones=obs["stones"], over=obs["over"],
        taken=[toy_pb2.ToyTakes(stones=t) for t in obs["taken"]],
    )
    if obs["winner"] is not None:
        message.winner = obs["winner"]
    if obs["last"]:
        message.last.CopyFrom(toy_pb2.ToyLast(**obs["last"]))
    return bot_pb2.Observation(toy=message)


def encode_action(action, obs):
    (stones,) = action.args
    return toy_pb2.ToyAction(take=toy_pb2.ToyTake(stones=stones, left=obs["stones"] - stones))
