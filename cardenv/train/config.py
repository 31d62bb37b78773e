"""Options of ``cardenv train`` (torch-free, so the CLI can list them without the extra)."""

from __future__ import annotations

import argparse
import ast
from dataclasses import dataclass, field, fields

OPPONENTS = ("random_no_call", "heuristic", "selfplay")


@dataclass
class TrainConfig:
    """Defaults finish on 2 CPU cores in about 10 minutes, evaluation included."""

    ruleset: str = "onefifty_v0"
    opponent: str = "random_no_call"  # or heuristic, selfplay (a pool of frozen snapshots of the learner)
    total_timesteps: int = 200_000
    n_envs: int = 4
    vec_env: str = "auto"  # "subproc", "dummy", or "auto": subproc from 4 usable CPU cores (trainer.py)
    seed: int = 0
    output_dir: str = "runs/{ruleset}"
    env_kwargs: dict = field(default_factory=dict)
    # MaskablePPO
    learning_rate: float = 3e-4
    n_steps: int = 512
    batch_size: int = 512
    n_epochs: int = 5
    gamma: float = 0.995
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    net_arch: tuple[int, ...] = (256, 256)
    # self-play
    snapshot_every: int = 50_000
    pool_size: int = 5
    # periodic evaluation, checkpoints, final evaluation
    eval_every: int = 50_000
    eval_games: int = 40
    checkpoint_every: int = 100_000
    final_eval_games: int = 200
    final_eval_fields: tuple[str, ...] = ("random_no_call", "heuristic")
    progress_bar: bool = True

    def resolved_output_dir(self) -> str:
        return self.output_dir.format(ruleset=self.ruleset)


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = TrainConfig()
    parser.add_argument("ruleset", nargs="?", default=defaults.ruleset)
    parser.add_argument("--opponent", choices=OPPONENTS, default=defaults.opponent)
    for f in fields(TrainConfig):
        if f.name in ("ruleset", "opponent", "env_kwargs", "progress_bar"):
            continue
        value = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(value, tuple):
            parser.add_argument(flag, nargs="+", type=type(value[0]), default=list(value))
        else:
            parser.add_argument(flag, type=type(value), default=value)
    parser.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="env option, e.g. num_players=3 (repeatable)")
    parser.add_argument("--no-progress", action="store_true")


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    values = {}
    for f in fields(TrainConfig):
        if f.name in ("env_kwargs", "progress_bar"):
            continue
        value = getattr(args, f.name)
        values[f.name] = tuple(value) if isinstance(value, list) else value
    return TrainConfig(**values, env_kwargs=parse_env_args(args.env_arg), progress_bar=not args.no_progress)


def parse_env_args(pairs: list[str]) -> dict:
    """``key=value`` env options; values parsed as Python literals when they are one."""
    kwargs = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep:
            raise SystemExit(f"--env-arg expects key=value, got {pair!r}")
        try:
            kwargs[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            kwargs[key] = text
    return kwargs
