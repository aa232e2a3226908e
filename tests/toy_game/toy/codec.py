"""Toy Nim's observation and actions as its typed messages (toy.proto)."""

from referee.wire._proto.arena.v1 import bot_pb2, toy_pb2


def encode_observation(obs):
    return bot_pb2.Observation(toy=toy_pb2.ToyObservation(**obs))


def encode_action(action, obs):
    (stones,) = action.args
    return toy_pb2.ToyAction(take=toy_pb2.ToyTake(stones=stones, left=obs["stones"] - stones))
