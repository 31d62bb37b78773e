"""The mini variant of "KABOOM": small enough to solve exactly (its whole OpenSpiel tree
fits in memory), the rules otherwise unchanged.

Two players, a five-card deck with one card of each rank it holds (so a snap attempt
always fails), a grid of two slots (the lower one seen at the deal), one round of two
turns (one each, player 0 first). K-05..K-08: 7 looks at an own card, 9 at an
opponent's, Q swaps blind, a black K looks and may swap.
"""

MINI_VARIANT = {"num_players": 2, "initial_slots": 2, "max_hand_slots": 5, "single_round": True,
                "max_turns_per_round": 2, "first_starter": 0, "deck": "AS 7S 9S QS KS"}
