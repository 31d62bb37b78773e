"""The mini variant of "Cut!": small enough to solve exactly (its whole OpenSpiel tree
fits in memory), the rules otherwise unchanged.

Two players, a five-card deck with one card of each rank it holds (so a match attempt
always fails: with two cards of a rank, a chain of windows, penalty cards and reshuffles
can go on without end), a grid of two slots (the lower one seen at the deal), one round
of two turns (one each, player 0 first). C-10: 5 looks at an own card, 6 at an
opponent's, Q swaps blind, K looks and may swap.
"""

MINI_VARIANT = {"num_players": 2, "initial_slots": 2, "max_hand_slots": 5, "single_round": True,
                "max_turns_per_round": 2, "first_starter": 0, "deck": "AS 5S 6S QS KS"}
