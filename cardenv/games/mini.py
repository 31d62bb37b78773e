"""The mini variants: per ruleset, an option set that makes a game small enough to solve
exactly (its whole OpenSpiel tree fits in memory), the rules otherwise unchanged.

    env = cardenv.cut_v0.env(**cardenv.MINI_VARIANTS["cut_v0"])
    game = pyspiel.load_game("cardenv_cut_mini")     # cardenv.adapters.openspiel

cut_v0's and kaboom_v0's are 2 players, a five-card deck with one card of each rank it
holds (so a match or a snap attempt always fails: with two cards of a rank, a chain of
windows, penalty cards and reshuffles can go on without end), a grid of two slots (the
lower one seen at the deal), one round of two turns (one each, player 0 first). The
powers the deck holds stay in play.

onefifty_v0's has three players, the fewest O-01 allows. Dealt two cards each, from the
seven cards that needs at least, the deal has 5,040 orders and the tree with a turn each
about 2.4 million histories (estimated from random deals), too many to keep in memory;
so one card each (seen, O-05) from five cards of distinct ranks with the three powers,
and three turns, one each.

carte_v0's is 2 players with hands of two (``hand_size``; R-03 deals ten) from seven
cards, two copies of three of them (R-01), one go each: a go's draw makes three, so a
meld can go down and the player go out (R-08, R-09).
"""

from __future__ import annotations

_SMALL = {"num_players": 2, "initial_slots": 2, "max_hand_slots": 5, "single_round": True,
          "max_turns_per_round": 2, "first_starter": 0}

MINI_VARIANTS: dict[str, dict] = {
    # C-10: 5 looks at an own card, 6 at an opponent's, Q swaps blind, K looks and may swap.
    "cut_v0": {**_SMALL, "deck": "AS 5S 6S QS KS"},
    # O-07..O-13: any rank can be matched (always failing here: a penalty card), J trades
    # blind with an opponent, Q peeks at an own card, K draws again.
    "onefifty_v0": {**_SMALL, "num_players": 3, "initial_slots": 1, "max_turns_per_round": 3,
                    "deck": "AS 5S JS QS KS"},
    # R-03 with hands of two (hand_size): with the go's draw, three cards, a meld:
    # the run 5H 6H 7H or a set of fives (two copies of a card, R-01).
    "carte_v0": {"num_players": 2, "single_round": True, "max_turns_per_round": 2, "first_starter": 0,
                 "hand_size": 2, "deck": "5S 5H 5H 6H 6H 7H 7H"},
    # K-05..K-08: 7 looks at an own card, 9 at an opponent's, Q swaps blind, a black K looks and may swap.
    "kaboom_v0": {**_SMALL, "deck": "AS 7S 9S QS KS"},
}
