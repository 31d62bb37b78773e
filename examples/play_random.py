"""Play one seeded game of a cardenv ruleset with random agents and print it.

    python examples/play_random.py                  # onefifty_v0, seed 0
    python examples/play_random.py cut_v0 --seed 3 --omniscient

The loop is the README's quickstart: every agent reads its observation and action mask
with ``env.last()`` and picks an action among the legal ones.
"""

import argparse

import numpy as np

import cardenv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ruleset", nargs="?", default="onefifty_v0")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--omniscient", action="store_true", help="render every card face up")
    parser.add_argument("--every", type=int, default=25, help="print the table every N decisions")
    args = parser.parse_args()

    env = getattr(cardenv, args.ruleset).env(render_mode="ansi", render_omniscient=args.omniscient)
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    decisions = 0
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            decisions += 1
            if decisions % args.every == 1:
                print(env.render(), end="\n\n")
        env.step(action)
    state = env.unwrapped.game
    print(env.render(), end="\n\n")
    print(f"{decisions} decisions, {len(state.round_results)} rounds")
    print("final scores: " + ", ".join(f"player_{p} {s}" for p, s in enumerate(state.scores)))
    print("ranks: " + ", ".join(f"player_{p} {r}" for p, r in enumerate(state.ranks())))


if __name__ == "__main__":
    main()
