"""The stable-baselines3 callbacks of a ``cardenv train`` run (imports torch and
stable-baselines3: :mod:`cardenv.train.trainer` imports this module only when training
runs). Each gets what it needs from the run when it is made; none reads the trainer."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback

# Saves a model to a path with the run's cardenv.json (cardenv.train.trainer.save_model).
SaveModel = Callable[[object, Path], None]


class PeriodicEvaluation(BaseCallback):
    """Every ``every`` learner steps (0: never): ``play()``, a short tournament of the
    learner against random_no_call, appended to ``history`` and logged; without a
    progress bar also a line on stderr. :meth:`evaluate` runs one at any time."""

    def __init__(self, every: int, play: Callable, history: list[dict], planned_timesteps: int, started: float,
                 print_lines: bool):
        super().__init__()
        self.every, self.play, self.history = every, play, history
        self.planned_timesteps, self.started, self.print_lines = planned_timesteps, started, print_lines
        self.next_at = every
        self.start_timesteps = 0

    def _on_training_start(self) -> None:
        self.start_timesteps = self.num_timesteps

    def _on_step(self) -> bool:
        if self.every > 0 and self.num_timesteps >= self.next_at:
            self.next_at += self.every
            self.evaluate()
        return True

    def evaluate(self) -> None:
        result = self.play()
        self.history.append({"timesteps": self.num_timesteps, "win_share": result.win_share,
                             "ci_low": result.win_share_ci95[0], "ci_high": result.win_share_ci95[1],
                             "points_per_round": result.mean_points_per_round})
        self.logger.record("eval/win_share_vs_random_no_call", result.win_share)
        self.logger.record("eval/points_per_round_vs_random_no_call", result.mean_points_per_round)
        if self.print_lines:
            low, high = result.win_share_ci95
            rate = (self.num_timesteps - self.start_timesteps) / (time.perf_counter() - self.started)
            print(f"{self.num_timesteps}/{self.planned_timesteps} steps ({rate:.0f}/s): win share vs "
                  f"random_no_call {result.win_share:.3f} [{low:.3f}, {high:.3f}]", file=sys.stderr, flush=True)


class SelfPlaySnapshots(BaseCallback):
    """Freeze the learner into the opponents' pool at the start and every ``every``
    learner steps: saved as ``folder/snapshot_N.zip``, then added to every env's pool."""

    def __init__(self, every: int, folder: Path, save: SaveModel):
        super().__init__()
        self.every, self.folder, self.save = every, folder, save
        self.next_at = 0

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_at:
            self.next_at += self.every
            path = self.folder / f"snapshot_{self.num_timesteps}.zip"
            path.parent.mkdir(exist_ok=True)
            self.save(self.model, path)
            self.training_env.env_method("add_snapshot", str(path))
        return True


class ThreadsForUpdates(BaseCallback):
    """``cores`` torch threads for the gradient updates, one while collecting rollouts
    (batch-1 and batch-n_envs forward passes lose to thread start-up and spinning).
    Only with DummyVecEnv: subprocess workers need those cores."""

    def __init__(self, cores: int):
        super().__init__()
        self.cores = cores

    def _on_rollout_start(self) -> None:
        torch.set_num_threads(1)

    def _on_rollout_end(self) -> None:
        torch.set_num_threads(self.cores)

    def _on_step(self) -> bool:
        return True


class CheckpointsWithMetadata(CheckpointCallback):
    """SB3's checkpoints, each saved by ``save`` (with ``cardenv.json``) so that it plays
    as an agent."""

    def __init__(self, save_freq: int, save_path: str, save: SaveModel, name_prefix: str = "model"):
        super().__init__(save_freq, save_path, name_prefix=name_prefix)
        self.save = save

    def _on_step(self) -> bool:
        if self.n_calls % self.save_freq == 0:
            self.save(self.model, Path(self._checkpoint_path(extension="zip")))
        return True
