"""Toy Nim: a typed game made of one folder (tests/toy_game/README.md)."""
