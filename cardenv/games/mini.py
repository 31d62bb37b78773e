"""The mini variants: per ruleset, an option set that makes a game small enough to solve
exactly (its whole OpenSpiel tree fits in memory), the rules otherwise unchanged.

    env = cardenv.cut_v0.env(**cardenv.MINI_VARIANTS["cut_v0"])
    game = pyspiel.load_game("cardenv_cut_mini")     # cardenv.adapters.openspiel

Each is 2 players (150: three, the fewest O-01 allows), a deck of five cards (150: seven,
the fewest that deal three players two each and leave one to draw) with one card of each
rank it holds (so a match or a snap attempt always fails: with two cards of a rank, a
chain of windows, penalty cards and reshuffles can go on without end), a grid of two
slots (the lower one seen at the deal), one round of two turns (player 0's, then player
1's). The powers the deck holds stay in play. In 150 the seven cards' 5,040 deal orders
make the tree large and a third turn would multiply it by four (about 2.4 million
histories, estimated from random deals), so its third player only holds two cards and is
scored (O-19, O-20). carte_v0's is 2 players with hands of three (``hand_size``, R-03
deals ten) from two copies each of four cards, one go each: it has no grid, and a meld
needs its three cards.
"""

from __future__ import annotations

_SMALL = {"num_players": 2, "initial_slots": 2, "max_hand_slots": 5, "single_round": True,
          "max_turns_per_round": 2, "first_starter": 0}

MINI_VARIANTS: dict[str, dict] = {
    # C-10: 5 looks at an own card, 6 at an opponent's, Q swaps blind, K looks and may swap.
    "cut_v0": {**_SMALL, "deck": "AS 5S 6S QS KS"},
    # O-07..O-13: any rank can be matched (always failing here: a penalty card), J trades
    # blind with an opponent, Q peeks at an own card, K draws again.
    "onefifty_v0": {**_SMALL, "num_players": 3, "deck": "AS 2S 5S 10S JS QS KS"},
    # R-03 with hands of three (hand_size): a meld takes three cards, so the first
    # go can put one down. Two copies of each card: 6H 5H 7H is a run, 5S 5S 5H a set.
    "carte_v0": {"num_players": 2, "single_round": True, "max_turns_per_round": 2, "first_starter": 0,
                 "hand_size": 3, "deck": "5S 5S 5H 5H 6H 6H 7H 7H"},
    # K-05..K-08: 7 looks at an own card, 9 at an opponent's, Q swaps blind, a black K looks and may swap.
    "kaboom_v0": {**_SMALL, "deck": "AS 7S 9S QS KS"},
}
