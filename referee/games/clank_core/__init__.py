"""The Clank! deck-building core shared by Clank! and Clank! Legacy.

`state` holds the pieces both games' states are made of (the turn pool, player statuses, the
shapes the core rules read); `rules` holds the rules both games play by (drawing and
reshuffling, Clank! cubes and the dragon bag, damage and healing, Rage, the shared effect
primitives, the trash / discard / choose pending choices, the card actions of a turn, its
clean-up and a dragon attack's draw); `scoring` the placing rule; `game` the base of both engines
(the `Game` accessors, forfeits, decisions, scores, outcomes and the result); `observation` the
parts of a seat's view both build alike; `greedy` the parts of the greedy reference bot both
games share. Each game keeps its own board, content, turn structure and ending.
"""
