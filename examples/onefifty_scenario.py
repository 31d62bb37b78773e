"""The worked example of docs/onefifty.md: a stacked three-player round of 150.

    python examples/onefifty_scenario.py
"""

import cardenv


def play_worked_example(render: bool = True):
    env = cardenv.onefifty_v0.raw_env(num_players=3, single_round=True, render_mode="ansi")
    env.reset(
        seed=7,
        options={
            "hands": [
                ["KS", "9D", "AH", "2C"],  # player_0 sees AH 2C (slots 2 and 3, O-05)
                ["5S", "QH", "10D", "7C"],  # player_1 sees 10D 7C
                ["3D", "3C", "8H", "JD"],  # player_2 sees 8H JD
            ],
            "draw_pile": ["QC", "3S", "4D"],  # top card first
            "starter": 0,
        },
    )
    moves = [
        "draw",  # player_0 draws QC ...
        "discard drawn",  # ... and discards it to fire the Queen (O-12)
        "queen: peek own slot 0",  # sees KS
        "pass",  # O-10a
        "draw",  # player_1 draws 3S ...
        "swap drawn into slot 1",  # ... and swaps out QH (O-08)
        "call END",  # then calls (O-10a); two final turns follow (O-15)
        "take discard into slot 3",  # player_2 takes the QH, discarding JD (O-09)
        "draw",  # player_0 draws 4D ...
        "swap drawn into slot 0",  # ... and swaps out the KS it peeked at
    ]
    for name in moves:
        if render:
            print(f"{env.agent_selection}: {name}")
        env.step(env.action_from_name(name))
    if render:
        print()
        print(env.render())
    return env.unwrapped.game.round_results[-1]


if __name__ == "__main__":
    result = play_worked_example()
    print()
    print(f"hand totals {result.hand_totals}, points added {result.points_added}")
