"""OpenSpiel's ISMCTS bot against our heuristic and our ismcts, side by side.

    python benchmarks/openspiel_ismcts.py --games 40 --simulations 50
    python benchmarks/openspiel_ismcts.py --games 60 --simulations 50 --record   # into docs/results/strength.json

Two players on the OpenSpiel game of a ruleset (one round): OpenSpiel's Python
``ISMCTSBot`` (random rollouts, its resampler the engine's ``sample_world``) in one seat,
one of our agents in the other, seats swapped every game, chance drawn from a seeded
generator. Our ismcts gets the same number of simulations. Prints a markdown table of
the OpenSpiel bot's mean return (zero-sum points per game, with a 95% normal interval)
and its win share (a tie counts half) with its 95% Wilson interval; ``--record`` puts it into
docs/results/strength.json and redraws strength.md.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import cardenv.adapters.openspiel  # noqa: F401  (registers the games)
from cardenv.agents.specs import make_agent
from cardenv.envs.info import ruleset_info
from cardenv.eval.intervals import wilson_interval


def play(game, bot, agent, bot_seat: int, rng: np.random.Generator) -> float:
    """One game; the OpenSpiel bot's return."""
    state = game.new_initial_state()
    agent.reset()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif state.current_player() == bot_seat:
            state.apply_action(bot.step(state))
        else:
            seat = state.current_player()
            observation = {"observation": np.asarray(state.observation_tensor(seat), np.float32),
                           "action_mask": state.engine.legal_action_mask().copy()}
            state.apply_action(agent.act(observation, state.engine, seat))
    return state.returns()[bot_seat]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="cut_v0")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--simulations", type=int, default=50)
    parser.add_argument("--max-turns", type=int, default=30, help="max_turns_per_round of the games")
    parser.add_argument("--record", action="store_true",
                        help="put the table into docs/results/strength.json and redraw strength.md")
    args = parser.parse_args(argv)
    options = {"num_players": 2, "single_round": True, "max_turns_per_round": args.max_turns}
    params = ",".join(f"{'players' if k == 'num_players' else k}={str(v).lower()}" for k, v in options.items())
    game = pyspiel.load_game(f"cardenv_{args.ruleset}({params})")
    info = ruleset_info(args.ruleset, **options)
    print(f"`cardenv_{args.ruleset}({params})`, {args.games} games per row, seats swapped every game\n")
    print("| OpenSpiel ISMCTSBot vs | its mean return (points) [95% CI] | its win share [95% Wilson] | seconds |")
    print("|---|---|---|---|")
    rows = []
    for spec in ("heuristic", f"ismcts:{args.simulations}"):
        rng = np.random.default_rng(0)
        resample_rng = np.random.default_rng(1)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(2)), uct_c=2.0,
                               max_simulations=args.simulations, random_state=np.random.RandomState(3))
        bot.set_resampler(lambda state, player: state.resample_for(player, resample_rng))
        agent = make_agent(spec, info, np.random.default_rng(4))
        start = time.perf_counter()
        returns = np.array([play(game, bot, agent, g % 2, rng) for g in range(args.games)])
        seconds = time.perf_counter() - start
        half = 1.96 * returns.std(ddof=1) / math.sqrt(len(returns))
        wins = float(np.mean((returns > 0) + 0.5 * (returns == 0)))
        low, high = wilson_interval(wins * len(returns), len(returns))
        print(f"| {spec} | {returns.mean():+.2f} [{returns.mean() - half:+.2f}, {returns.mean() + half:+.2f}] | "
              f"{wins:.3f} [{low:.3f}, {high:.3f}] | {seconds:.0f} |", flush=True)
        rows.append({"opponent": spec, "mean_return": float(returns.mean()),
                     "ci95_return": [float(returns.mean() - half), float(returns.mean() + half)],
                     "win_share": wins, "ci95": [low, high], "seconds": seconds})
        agent.close()
    print(f"\nOpenSpiel's bot: `ismcts.ISMCTSBot` with {args.simulations} simulations, random rollouts, uct_c=2.")
    if args.record:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import results

        data = {"game": f"cardenv_{args.ruleset}({params})", "games": args.games, "simulations": args.simulations,
                "rows": rows}
        results.record("strength", "openspiel_ismcts", "openspiel_ismcts",
                       results.command_line("openspiel_ismcts.py", argv), data,
                       title="A peer search: OpenSpiel's ISMCTSBot")


if __name__ == "__main__":
    main()
