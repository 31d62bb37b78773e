"""The mini variant of carte: small enough to solve exactly (its whole OpenSpiel tree fits
in memory), the rules otherwise unchanged.

Two players with hands of two (``hand_size``; R-03 deals ten) from seven cards, two
copies of three of them (R-01), one go each: a go's draw makes three, so a meld can go
down and the player go out (R-08, R-09): the run 5H 6H 7H or a set of fives.
"""

MINI_VARIANT = {"num_players": 2, "single_round": True, "max_turns_per_round": 2, "first_starter": 0,
                "hand_size": 2, "deck": "5S 5H 5H 6H 6H 7H 7H"}
