"""The mini variant of "150": small enough to solve exactly (its whole OpenSpiel tree
fits in memory), the rules otherwise unchanged.

Three players, the fewest O-01 allows. Dealt two cards each, from the seven cards that
needs at least, the deal has 5,040 orders and the tree with a turn each about 2.4
million histories (estimated from random deals), too many to keep in memory; so one
card each (seen, O-05) from five cards of distinct ranks with the three powers, and
three turns, one each. O-07..O-13: any rank can be matched (always failing here: a
penalty card), J trades blind with an opponent, Q peeks at an own card, K draws again.
"""

MINI_VARIANT = {"num_players": 3, "initial_slots": 1, "max_hand_slots": 5, "single_round": True,
                "max_turns_per_round": 3, "first_starter": 0, "deck": "AS 5S JS QS KS"}
