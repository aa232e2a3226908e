"""The Clank! deck-building core shared by Clank! and Clank! Legacy.

`state` holds the pieces both games' states are made of (the turn pool, player statuses, the
shapes the core rules read); `rules` holds the rules both games play by (drawing and
reshuffling, Clank! cubes and the dragon bag, damage and healing, Rage, the shared effect
primitives and the trash / discard / choose pending choices); `scoring` the placing rule;
`game` the base of both engines (the `Game` accessors that read the state alike); `greedy` the
parts of the greedy reference bot both games share. Each game keeps its own board, content,
turn structure and ending.
"""
