"""OpenSpiel's ISMCTS bot against our heuristic and our ismcts, side by side.

    python benchmarks/openspiel_ismcts.py --games 40 --simulations 50

Two players on the OpenSpiel game of a ruleset (one round): OpenSpiel's Python
``ISMCTSBot`` (random rollouts, its resampler the engine's ``sample_world``) in one seat,
one of our agents in the other, seats swapped every game, chance drawn from a seeded
generator. Our ismcts gets the same number of simulations. Prints a markdown table of
the OpenSpiel bot's mean return (zero-sum points per game, with a 95% normal interval)
and its win share (a tie counts half), for docs/strength.md.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import cardenv.adapters.openspiel  # noqa: F401  (registers the games)
from cardenv.agents.specs import make_agent
from cardenv.envs.info import ruleset_info


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="cut_v0")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--simulations", type=int, default=50)
    parser.add_argument("--max-turns", type=int, default=30, help="max_turns_per_round of the games")
    args = parser.parse_args()
    options = {"num_players": 2, "single_round": True, "max_turns_per_round": args.max_turns}
    params = ",".join(f"{'players' if k == 'num_players' else k}={str(v).lower()}" for k, v in options.items())
    game = pyspiel.load_game(f"cardenv_{args.ruleset}({params})")
    info = ruleset_info(args.ruleset, **options)
    print(f"`cardenv_{args.ruleset}({params})`, {args.games} games per row, seats swapped every game\n")
    print("| OpenSpiel ISMCTSBot vs | its mean return (points) [95% CI] | its win share | seconds |")
    print("|---|---|---|---|")
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
        wins = np.mean((returns > 0) + 0.5 * (returns == 0))
        print(f"| {spec} | {returns.mean():+.2f} [{returns.mean() - half:+.2f}, {returns.mean() + half:+.2f}] | "
              f"{wins:.3f} | {seconds:.0f} |", flush=True)
        agent.close()
    print(f"\nOpenSpiel's bot: `ismcts.ISMCTSBot` with {args.simulations} simulations, random rollouts, uct_c=2.")


if __name__ == "__main__":
    main()
