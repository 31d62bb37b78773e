"""Multi-agent PPO self-play with RLlib on onefifty_v0, then a cardenv tournament.

Every seat plays one shared, action-masked policy (cardenv.adapters.rllib.MaskedPPOTorchRLModule);
RLlib runs on a local Ray cluster. The checkpoint is then evaluated like any cardenv
agent, `rllib:CHECKPOINT`, against random_no_call opponents.

    pip install torch==2.13.0 && pip install -e '.[rllib]'
    python examples/rllib_selfplay.py --iterations 5 --out runs/rllib_onefifty

(`--per-seat` trains one policy per seat instead.) Everything is seeded, but RLlib's
sampling across env runners is not bit-for-bit reproducible.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cardenv.core.extras import MissingExtra

try:
    from cardenv.adapters.rllib import ppo_config, write_metadata
except MissingExtra as error:
    print(f"{Path(__file__).name}: {error}", file=sys.stderr)
    raise SystemExit(2) from None
import ray  # installed with the rllib extra

from cardenv.cli import main as cardenv_main


def train(ruleset: str, env_kwargs: dict, iterations: int, out: Path, per_seat: bool, batch: int, runners: int,
          seed: int) -> Path:
    config = (
        ppo_config(ruleset, env_kwargs, policies="per_seat" if per_seat else "shared", seed=seed, hidden=(128, 128))
        .env_runners(num_env_runners=runners)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=batch, minibatch_size=min(128, batch), num_epochs=3, lr=3e-4)
    )
    algo = config.build_algo()
    try:
        for i in range(iterations):
            started = time.perf_counter()
            result = algo.train()
            steps = result["env_runners"]["num_env_steps_sampled_lifetime"]
            print(f"iteration {i + 1}: {steps} env steps in all, {time.perf_counter() - started:.1f}s", flush=True)
        checkpoint = Path(algo.save_to_path(str(out.resolve() / "checkpoint")))
    finally:
        algo.stop()
    write_metadata(checkpoint, ruleset, env_kwargs)
    return checkpoint


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="onefifty_v0")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--batch", type=int, default=2000, help="env steps per training iteration")
    parser.add_argument("--runners", type=int, default=1, help="RLlib env runners (processes sampling games)")
    parser.add_argument("--per-seat", action="store_true", help="one policy per seat instead of one shared")
    parser.add_argument("--games", type=int, default=200, help="games of the final tournament")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--address", default=None, help="a running Ray cluster (default: start a local one)")
    parser.add_argument("--out", type=Path, default=Path("runs/rllib_onefifty"))
    args = parser.parse_args()
    ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    checkpoint = train(args.ruleset, {}, args.iterations, args.out, args.per_seat, args.batch, args.runners,
                       args.seed)
    print(f"checkpoint: {checkpoint}")
    module = "#player_0" if args.per_seat else ""
    return cardenv_main(["eval", args.ruleset, "--agent", f"rllib:{checkpoint}{module}", "--field", "random_no_call",
                         "--games", str(args.games), "--no-progress", "--seed", str(args.seed)])


if __name__ == "__main__":
    raise SystemExit(main())
