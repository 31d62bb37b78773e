"""A best response to any agent: how exploitable it is, as a lower bound.

:func:`train_best_response` trains a fresh MaskablePPO (``cardenv train``) in one seat
against three copies of the target in the others, with a fixed budget and recipe that are
the same for every target (:data:`EXPLOIT_TIMESTEPS`, :data:`RECIPES`), then plays its
greedy policy (the most likely legal action) against the same field on ``games`` seeded
games, and the target itself in that seat on the same deals (its self-play share, about
1/players): the difference is the paired gain. A best response of a longer or better
training may find more, so the share is a lower bound on what exploiting the target can
reach (:attr:`BestResponseResult.bound` says so). The target is any agent spec: it plays
as an agent, as ``cardenv train --opponent SPEC`` does.

torch, stable-baselines3 and sb3-contrib (the ``train`` extra) are imported when a run
starts.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cardenv.agents.specs import parse_spec
from cardenv.core import validation
from cardenv.core.extras import require_extra
from cardenv.envs.info import ruleset_info
from cardenv.eval.intervals import paired_difference_interval, wilson_interval
from cardenv.eval.tournament import TournamentResult, run_tournament
from cardenv.train.config import TrainConfig

RECIPES = ("guided", "plain")
"""``guided`` (the default): PPO sees the heuristic's move as an input and learns where to
deviate from it (docs/training.md's guided policies), which found weaknesses that PPO from
scratch (``plain``, the same flags without a guide) does not find in the same budget."""

RECIPE_FLAGS = dict(learning_rate=1e-4, clip_range=0.1, ent_coef=0.001, n_steps=512, batch_size=1024, n_epochs=4,
                    net_arch=(128, 128), n_envs=8)
"""MaskablePPO's options for every best response (the other options are ``cardenv
train``'s defaults). A rollout is ``n_steps × n_envs`` = 4,096 learner steps."""

ROLLOUT = RECIPE_FLAGS["n_steps"] * RECIPE_FLAGS["n_envs"]

EXPLOIT_TIMESTEPS = 24 * ROLLOUT
"""The default budget: 98,304 learner steps (24 rollouts), a few minutes against the
heuristic (docs/training.md gives the measured times and figures). 32,768 steps did not
move the guided policy off the heuristic's moves."""

EXPLOIT_GAMES = 400
"""The default evaluation: games of the best response, and as many of the target on the
same deals."""

EVAL_SEED_OFFSET = 2_000_000
"""The evaluation plays env seeds from ``seed + EVAL_SEED_OFFSET``, apart from the
training's, as ``cardenv train``'s final evaluation does."""

@dataclass
class BestResponseResult:
    """A best response against three copies of ``target`` and the target's own share on
    the same deals. Shares count a game won jointly by k players as 1/k."""

    ruleset: str
    target: str
    env_kwargs: dict
    recipe: str
    seed: int
    timesteps: int  # learner steps trained (whole rollouts)
    games: int  # evaluation games of each side (whole seat rotations)
    players: int  # the target plays every seat but one: players - 1 copies
    win_share: float  # the best response's, against the target in every other seat
    win_share_ci95: tuple[float, float]  # Wilson score
    target_share: float  # the target's in the same seat on the same deals (its self-play share)
    target_share_ci95: tuple[float, float]
    gain: float  # win_share - target_share
    gain_ci95: tuple[float, float]  # the paired t-interval over the per-deal differences
    points_per_round: float  # the best response's points per round (fewer is better)
    target_points_per_round: float
    call_rate: float  # the best response's calls per round
    train_seconds: float
    eval_seconds: float
    model: str | None = None  # the trained model's file (None when no output_dir kept it)
    bound: str = "lower"  # the share is a lower bound on what a best response reaches
    outcomes: list = field(default_factory=list, repr=False)  # per deal: (best response's, target's) share

    def describe(self) -> str:
        """One sentence: the figures and that they are a lower bound."""
        low, high = self.win_share_ci95
        glow, ghigh = self.gain_ci95
        return (f"A best response trained for {self.timesteps:,} steps ({self.recipe} recipe, seed {self.seed}) won "
                f"{self.win_share:.3f} [{low:.3f}, {high:.3f}] of {self.games:,} games of {self.ruleset} against "
                f"{self.players - 1} × {self.target}, which itself wins {self.target_share:.3f} on the same deals "
                f"(gain {self.gain:+.3f} [{glow:+.3f}, {ghigh:+.3f}]): a lower bound on how exploitable "
                f"{self.target} is, since a longer or better training may find more.")

    def to_dict(self, with_games: bool = False) -> dict:
        """The figures as JSON-ready values (the per-deal shares with ``with_games``)."""
        data = asdict(self)
        for key in ("win_share_ci95", "target_share_ci95", "gain_ci95"):
            data[key] = list(data[key])
        if with_games:
            data["outcomes"] = [list(pair) for pair in self.outcomes]
        else:
            data.pop("outcomes")
        return data


def best_response_config(ruleset: str, target: str, timesteps: int, recipe: str, seed: int, output_dir: str,
                         env_kwargs: dict | None = None, progress: bool = False,
                         overwrite: bool = False) -> TrainConfig:
    """The training run of a best response: the recipe's flags, no periodic evaluation or
    checkpoints (the evaluation is :func:`train_best_response`'s)."""
    return TrainConfig(ruleset=ruleset, opponent=target, total_timesteps=timesteps, seed=seed, output_dir=output_dir,
                       overwrite=overwrite, guide="heuristic" if recipe == "guided" else "", eval_every=0,
                       checkpoint_every=0, final_eval_games=1, final_eval_fields=(target,), progress_bar=progress,
                       env_kwargs=dict(env_kwargs or {}), **RECIPE_FLAGS)


def check_best_response(ruleset: str, target: str, timesteps: int, recipe: str, seed: int, games: int,
                        env_kwargs: dict | None) -> None:
    """Every argument, nothing trained: one-line TypeError or ValueError."""
    parse_spec(target)  # one spec (no per-seat list, no selfplay): the target plays as an agent
    if recipe not in RECIPES:
        raise ValueError(f"recipe must be one of {', '.join(RECIPES)}, got {recipe!r}")
    validation.integer("timesteps", timesteps, ROLLOUT,
                       accepted=f"an integer of at least {ROLLOUT:,} (one rollout of the best response's recipe)")
    validation.integer("games", games, 1)
    validation.integer("seed", seed, 0)
    ruleset_info(ruleset, **dict(validation.mapping("env_kwargs", env_kwargs) or {}))


def train_best_response(ruleset: str, target_spec: str, timesteps: int = EXPLOIT_TIMESTEPS, recipe: str = "guided",
                        seed: int = 0, games: int = EXPLOIT_GAMES, output_dir: str | Path | None = None,
                        env_kwargs: dict | None = None, progress: bool = False,
                        overwrite: bool = False) -> BestResponseResult:
    """Train a best response to ``target_spec`` on ``ruleset`` (in one seat, the target in
    every other) and measure it (see the module docstring). ``timesteps`` is rounded up to whole rollouts of 4,096.
    ``output_dir`` keeps the run's folder (the model, its learning curve; a folder that
    holds a run needs ``overwrite``); without it the run is made in a temporary folder
    and deleted. Every argument is checked before anything is trained (one-line
    TypeError or ValueError; :class:`cardenv.core.extras.MissingExtra` without the
    ``train`` extra). The same arguments give the same result."""
    check_best_response(ruleset, target_spec, timesteps, recipe, seed, games, env_kwargs)
    require_extra("train", "a best response")
    if output_dir is None:
        with tempfile.TemporaryDirectory(prefix="cardenv-best-response-") as folder:
            return _run(ruleset, target_spec, timesteps, recipe, seed, games, Path(folder) / "run", env_kwargs,
                        progress, overwrite, keep=False)
    return _run(ruleset, target_spec, timesteps, recipe, seed, games, Path(output_dir), env_kwargs, progress,
                overwrite, keep=True)


def _run(ruleset, target, timesteps, recipe, seed, games, out: Path, env_kwargs, progress, overwrite, keep):
    from cardenv.train.trainer import train

    config = best_response_config(ruleset, target, timesteps, recipe, seed, str(out), env_kwargs, progress, overwrite)
    started = time.perf_counter()
    summary = train(config, evaluate=False)
    train_seconds = time.perf_counter() - started
    started = time.perf_counter()
    eval_seed = seed + EVAL_SEED_OFFSET
    mine = run_tournament(ruleset, f"ppo:{summary['model']}", [target], games, seed=eval_seed,
                          env_kwargs=config.env_kwargs, progress=progress)
    theirs = run_tournament(ruleset, target, [target], games, seed=eval_seed, env_kwargs=config.env_kwargs,
                            progress=progress)
    eval_seconds = time.perf_counter() - started
    return _result(config, recipe, summary["timesteps"], mine, theirs, train_seconds, eval_seconds,
                   summary["model"] if keep else None)


def _result(config: TrainConfig, recipe: str, timesteps: int, mine: TournamentResult, theirs: TournamentResult,
            train_seconds: float, eval_seconds: float, model: str | None) -> BestResponseResult:
    pairs = [(a.share, b.share) for a, b in zip(mine.outcomes, theirs.outcomes)]
    gain, gain_ci95 = paired_difference_interval([a for a, _ in pairs], [b for _, b in pairs])
    return BestResponseResult(
        ruleset=config.ruleset, target=config.opponent, env_kwargs=dict(config.env_kwargs), recipe=recipe,
        seed=config.seed, timesteps=int(timesteps), games=mine.games,
        players=ruleset_info(config.ruleset, **config.env_kwargs).num_players, win_share=mine.win_share,
        win_share_ci95=mine.win_share_ci95, target_share=theirs.win_share,
        target_share_ci95=wilson_interval(sum(b for _, b in pairs), theirs.games),
        gain=gain, gain_ci95=gain_ci95,
        points_per_round=mine.mean_points_per_round, target_points_per_round=theirs.mean_points_per_round,
        call_rate=mine.call_rate, train_seconds=round(train_seconds, 1), eval_seconds=round(eval_seconds, 1),
        model=model, outcomes=pairs)


__all__ = ["BestResponseResult", "EXPLOIT_GAMES", "EXPLOIT_TIMESTEPS", "RECIPES", "RECIPE_FLAGS",
           "train_best_response"]
