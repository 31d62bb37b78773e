"""MaskablePPO training on the single-seat view (``cardenv train``).

torch, stable-baselines3 and sb3-contrib are imported inside :func:`train`, so importing
this module costs nothing without the ``train`` extra.

Outputs under the run folder: ``final_model.zip``, ``checkpoints/``, ``logs/``
(TensorBoard events and ``progress.csv``), ``monitor.csv`` (every training episode),
``eval_history.csv`` (periodic win share), ``learning_curve.png``, ``eval.json`` and
``eval_table.txt`` (the final evaluation). Models are saved with a ``cardenv.json`` inside
the zip (ruleset and env options), so ``cardenv eval ... --agent ppo:MODEL.zip`` needs no
``--env-arg`` to match them.
"""

from __future__ import annotations

import csv
import json
import shutil
import sys
import time
from dataclasses import asdict
from functools import partial
from pathlib import Path

import numpy as np

from cardenv.envs.frame_stack import SingleSeatFrameStack
from cardenv.agents.ppo import METADATA_NAME, PPOAgent, model_metadata
from cardenv.agents.pretrained import PRETRAINED, pretrained_model_path, shipped_rulesets
from cardenv.agents.specs import MIXTURE_SEPARATOR, make_agent, make_mixture
from cardenv.envs.info import ruleset_info
from cardenv.eval.tournament import format_table, run_tournament, usable_cores
from cardenv.train.config import SELFPLAY, TrainConfig
from cardenv.train.single_seat import SingleSeatEnv
from cardenv.train.warm_start import clone_into, collect_demonstrations, warm_started_ppo_class

LEARNER = "learner"


def _opponent_factory(pool_size: int, spec, info, rng):
    if MIXTURE_SEPARATOR in spec:
        return make_mixture(spec, info, rng, partial(_opponent_factory, pool_size))
    if spec == SELFPLAY:
        from cardenv.agents.ppo import PolicyPoolAgent

        return PolicyPoolAgent(info, rng, pool_size=pool_size, agent_factory=make_agent)
    return make_agent(spec, info, rng)


def make_training_env(ruleset: str, opponent, env_kwargs: dict, pool_size: int, single_thread: bool,
                      guide: str | None = None, frame_stack: int = 1):
    """One single-seat env (module-level, so SubprocVecEnv can pickle its constructor),
    frame-stacked when ``frame_stack`` > 1."""
    if single_thread:
        import torch

        torch.set_num_threads(1)  # worker processes: one core each, no oversubscription
    env = SingleSeatEnv(ruleset, opponent, env_kwargs, agent_factory=partial(_opponent_factory, pool_size),
                        guide=guide)
    return SingleSeatFrameStack(env, frame_stack) if frame_stack > 1 else env


SUBPROC_MIN_CORES = 4  # vec_env="auto" runs the envs in subprocesses from this many usable cores


def train(config: TrainConfig) -> dict:
    import torch
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    started = time.perf_counter()
    out = Path(config.resolved_output_dir())
    resume_from = prepare_output_dir(out, config)
    guide = config.guide_spec()
    (out / "config.json").write_text(json.dumps(asdict(config), indent=2) + "\n")
    cores = usable_cores()
    # Subprocesses pay only when the env workers do not compete with the learner for
    # cores: on 2 cores DummyVecEnv was faster (default options of the first ruleset: ~1,110 vs ~725
    # steps/s before the events piece; 399 vs 319 after).
    use_subproc = config.vec_env == "subproc" or (config.vec_env == "auto" and cores >= SUBPROC_MIN_CORES
                                                  and config.n_envs > 1)
    # One thread: these networks are small, and a second thread spin-waiting on a busy
    # core made each batch-1 forward pass over 100× slower (measured on 2 cores).
    torch.set_num_threads(1)
    opponents = config.opponent_specs()
    env_fns = [partial(make_training_env, config.ruleset, opponents, config.env_kwargs, config.pool_size,
                       use_subproc, guide, config.frame_stack) for _ in range(config.n_envs)]
    vec_env = SubprocVecEnv(env_fns) if use_subproc else DummyVecEnv(env_fns)
    vec_env = VecMonitor(vec_env, filename=str(out / "monitor.csv"), info_keywords=("win_share",))
    vec_env.seed(config.seed)

    ppo_class = warm_started_ppo_class()  # MaskablePPO itself unless a warm start's options are set
    if resume_from is None:
        policy, policy_kwargs = "MlpPolicy", {"net_arch": list(config.net_arch)}
        if guide:
            from cardenv.train.guided_policy import GuidedMaskablePolicy

            policy, policy_kwargs["guide_weight"] = GuidedMaskablePolicy, config.guide_weight
        if config.frame_encoder == "gru":
            from cardenv.train.frame_encoder import RecurrentFrameEncoder

            policy_kwargs["features_extractor_class"] = RecurrentFrameEncoder
            policy_kwargs["features_extractor_kwargs"] = {"num_frames": config.frame_stack,
                                                          "hidden_size": config.frame_encoder_size}
        model = ppo_class(
            policy, vec_env, learning_rate=config.learning_rate, n_steps=config.n_steps,
            batch_size=config.batch_size, n_epochs=config.n_epochs, gamma=config.gamma, gae_lambda=config.gae_lambda,
            clip_range=config.clip_range, ent_coef=config.ent_coef, policy_kwargs=policy_kwargs, seed=config.seed,
            device="cpu", verbose=0,
        )
        if config.warm_start:
            warm_start_policy(model.policy, config, out)
    else:
        # A resumed run keeps the critic warm-up by its step count; the KL target, the
        # clone as it was, is not saved with the model.
        model = ppo_class.load(str(resume_from), env=vec_env, device="cpu")
    model.keep_close_to_clone(config.kl_to_warm_start if resume_from is None else 0.0, config.critic_warmup_steps)
    model.set_logger(configure(str(out / "logs"), ["csv", "tensorboard"]))
    metadata = {"ruleset": config.ruleset, "env_kwargs": config.env_kwargs, "guide": guide,
                "frame_stack": config.frame_stack, "frame_encoder": config.frame_encoder}

    def learner_factory(spec, info, rng):
        if spec == LEARNER:
            return PPOAgent(info, rng, model, guide=guide, agent_factory=make_agent, frame_stack=config.frame_stack)
        return make_agent(spec, info, rng)

    eval_history: list[dict] = read_eval_history(out / "eval_history.csv") if resume_from else []

    class PeriodicEvaluation(BaseCallback):
        """Every ``eval_every`` steps: a short tournament against random_no_call."""

        def __init__(self):
            super().__init__()
            self.next_at = config.eval_every

        def _on_step(self) -> bool:
            if config.eval_every > 0 and self.num_timesteps >= self.next_at:
                self.next_at += config.eval_every
                self.evaluate()
            return True

        def evaluate(self) -> None:
            result = run_tournament(config.ruleset, LEARNER, ["random_no_call"], config.eval_games,
                                    seed=config.seed + 1_000_000, env_kwargs=config.env_kwargs,
                                    agent_factory=learner_factory)
            eval_history.append({"timesteps": self.num_timesteps, "win_share": result.win_share,
                                 "ci_low": result.win_share_ci95[0], "ci_high": result.win_share_ci95[1],
                                 "points_per_round": result.mean_points_per_round})
            self.logger.record("eval/win_share_vs_random_no_call", result.win_share)
            self.logger.record("eval/points_per_round_vs_random_no_call", result.mean_points_per_round)
            if not config.progress_bar:
                low, high = result.win_share_ci95
                rate = (self.num_timesteps - start_timesteps) / (time.perf_counter() - started)
                print(f"{self.num_timesteps}/{config.total_timesteps} steps ({rate:.0f}/s): win share vs "
                      f"random_no_call {result.win_share:.3f} [{low:.3f}, {high:.3f}]", file=sys.stderr, flush=True)

    class SelfPlaySnapshots(BaseCallback):
        """Freeze the learner into the opponents' pool at the start and every ``snapshot_every`` steps."""

        def __init__(self):
            super().__init__()
            self.next_at = 0

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_at:
                self.next_at += config.snapshot_every
                path = out / "snapshots" / f"snapshot_{self.num_timesteps}.zip"
                path.parent.mkdir(exist_ok=True)
                save_model(self.model, path, metadata)
                self.training_env.env_method("add_snapshot", str(path))
            return True

    class UpdateThreads(BaseCallback):
        """Every core for the gradient updates, one thread while collecting rollouts
        (batch-1 and batch-n_envs forward passes lose to thread start-up and spinning).
        Only with DummyVecEnv: subprocess workers need those cores."""

        def _on_rollout_start(self) -> None:
            torch.set_num_threads(1)

        def _on_rollout_end(self) -> None:
            torch.set_num_threads(cores)

        def _on_step(self) -> bool:
            return True

    periodic = PeriodicEvaluation()
    callbacks = [periodic]
    if not use_subproc and cores > 1:
        # Measured on 2 cores (default options, DummyVecEnv): 525 learner steps/s
        # with two threads against 399 with one.
        callbacks.append(UpdateThreads())
    if config.checkpoint_every > 0:
        class Checkpoints(CheckpointCallback):
            """SB3's checkpoints, saved with ``cardenv.json`` so that they play as agents."""

            def _on_step(self) -> bool:
                if self.n_calls % self.save_freq == 0:
                    save_model(self.model, Path(self._checkpoint_path(extension="zip")), metadata)
                return True

        callbacks.append(Checkpoints(max(1, config.checkpoint_every // config.n_envs), str(out / "checkpoints"),
                                     name_prefix="model"))
    if config.uses_selfplay():
        callbacks.insert(0, SelfPlaySnapshots())
    start_timesteps = model.num_timesteps
    learn_started = time.perf_counter()
    # torch checks every distribution's parameters when it is made (three per forward
    # pass in MaskablePPO; 7% of a profiled run). Skipping the checks made a
    # null env's training ~20% faster; on a real ruleset the gain is within the noise of
    # 2-core runs. Only for the run: the setting is global, so it is put back after.
    validating = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(False)
    try:
        model.learn(total_timesteps=max(0, config.total_timesteps - start_timesteps), callback=CallbackList(callbacks),
                    progress_bar=config.progress_bar, reset_num_timesteps=resume_from is None)
    finally:
        torch.distributions.Distribution.set_default_validate_args(validating)
        vec_env.close()
        torch.set_num_threads(1)  # the evaluations below play batch-1 forward passes
    learn_seconds = time.perf_counter() - learn_started
    model_path = out / "final_model.zip"
    save_model(model, model_path, metadata)
    train_seconds = time.perf_counter() - started
    # Evaluate the final model unless the last periodic evaluation was within one rollout of the end.
    rollout = config.n_steps * config.n_envs
    if config.eval_every > 0 and (not eval_history or eval_history[-1]["timesteps"] < model.num_timesteps - rollout):
        periodic.num_timesteps = model.num_timesteps
        periodic.evaluate()
    _write_eval_history(out / "eval_history.csv", eval_history)

    results = [
        run_tournament(config.ruleset, LEARNER, [field], config.final_eval_games, seed=config.seed + 2_000_000 + i,
                       env_kwargs=config.env_kwargs, agent_factory=learner_factory, progress=config.progress_bar)
        for i, field in enumerate(config.final_eval_fields)
    ]
    for r in results:
        r.candidate = "ppo"
        model.logger.record(f"eval/final_win_share_vs_{'_'.join(sorted(set(r.field)))}", r.win_share)
    model.logger.dump(model.num_timesteps)
    shipped = shipped_policy_for(config)
    if shipped is not None:  # the same games, seed for seed, so the rows compare deal for deal
        results += [run_tournament(config.ruleset, shipped, [field], config.final_eval_games,
                                   seed=config.seed + 2_000_000 + i, env_kwargs=config.env_kwargs,
                                   progress=config.progress_bar)
                    for i, field in enumerate(config.final_eval_fields) if field == SHIPPED_POLICY_FIELD]
    table = format_table(results) + "\n" + final_table_legend(config, shipped)
    (out / "eval_table.txt").write_text(table + "\n")
    (out / "eval.json").write_text("[" + ",\n".join(r.to_json() for r in results) + "]\n")
    plot_path = plot_learning_curve(out / "monitor.csv", eval_history, out / "learning_curve.png", config)
    return {
        "model": str(model_path),
        "output_dir": str(out),
        "timesteps": model.num_timesteps,
        "train_seconds": round(train_seconds, 1),
        # Learner steps per second of model.learn (collection, updates and the periodic
        # evaluations; not the set-up or the final evaluation).
        "steps_per_second": round((model.num_timesteps - start_timesteps) / learn_seconds),
        "total_seconds": round(time.perf_counter() - started, 1),
        "vec_env": "subproc" if use_subproc else "dummy",
        "learning_curve": str(plot_path),
        "evaluation_table": table,
    }


# The field the shipped policy plays beside the trained model: the one it was made to beat.
# Against random play a guided policy's games run to the turn cap, each decision asking its
# guide, and cost several times the trained model's.
SHIPPED_POLICY_FIELD = "heuristic"


def shipped_policy_for(config: TrainConfig) -> str | None:
    """``ppo:pretrained`` where a policy ships for the run's ruleset and env options (the
    final evaluation shows it beside the trained model), else None."""
    if config.ruleset not in shipped_rulesets():
        return None
    shipped_on = (model_metadata(pretrained_model_path(config.ruleset)) or {}).get("env_kwargs") or {}
    # Options that only append derived pieces do not matter: the policy appends them itself.
    derived = ruleset_info(config.ruleset).observer_class.derived_pieces

    def played_on(env_kwargs: dict):
        return ruleset_info(config.ruleset, **{k: v for k, v in env_kwargs.items() if k not in derived}).config

    if played_on(shipped_on) != played_on(config.env_kwargs):
        return None
    return f"ppo:{PRETRAINED}"


# What the final evaluation's fields are, for a reader who meets them for the first time.
FIELD_NOTES = {
    "random": "plays uniformly at random among the legal moves",
    "random_no_call": "plays uniformly at random but never calls the end of a round: the easiest field",
    "heuristic": "the ruleset's rule-based player, far stronger than random play; a run of the defaults (minutes "
                 "against random_no_call) scores near 0 against it, as expected",
}


def final_table_legend(config: TrainConfig, shipped: str | None) -> str:
    """How to read the final evaluation's table."""
    n = ruleset_info(config.ruleset, **config.env_kwargs).num_players
    lines = [f"win share: the games the candidate won, as a share of the {config.final_eval_games} it played against "
             f"{n - 1} copies of the field (a game won jointly by k players counts 1/k); {1 / n:.2f} is an even share "
             f"among {n} players; the 95% interval is beside it."]
    lines += [f"  {field}: {FIELD_NOTES[field]}." for field in dict.fromkeys(config.final_eval_fields)
              if field in FIELD_NOTES]
    lines.append("  ppo: the model this run trained.")
    if shipped is not None and SHIPPED_POLICY_FIELD in config.final_eval_fields:
        lines.append(f"  {shipped}: the policy that ships with cardenv for {config.ruleset}, on the same games "
                     f"against the {SHIPPED_POLICY_FIELD} (how it was trained: docs/agents.md).")
    return "\n".join(lines)


def prepare_output_dir(out: Path, config: TrainConfig) -> Path | None:
    """Make the run folder; returns the model to resume from (with ``resume``), else None.

    A folder that already holds a run is an error unless ``overwrite`` (it is emptied
    first) or ``resume`` (training continues from its final model, else its newest
    checkpoint; earlier training episodes are kept as ``monitor.N.csv``)."""
    holds_run = (out / "config.json").exists()
    if holds_run and not (config.resume or config.overwrite):
        raise FileExistsError(f"{out} already holds a training run; pass --resume to continue it or --overwrite "
                              f"to replace it (or choose another --output-dir)")
    if config.resume and not holds_run:
        raise FileNotFoundError(f"--resume: {out} holds no training run to continue")
    if config.overwrite and out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    resume_from = None
    if config.resume:
        checkpoints = sorted((out / "checkpoints").glob("model_*_steps.zip"), key=lambda p: int(p.stem.split("_")[1]))
        resume_from = out / "final_model.zip" if (out / "final_model.zip").exists() else (
            checkpoints[-1] if checkpoints else None)
        if resume_from is None:
            raise FileNotFoundError(f"--resume: {out} has neither final_model.zip nor a checkpoint")
        recorded = model_metadata(str(resume_from)) or {}
        trained_guide = recorded.get("guide")
        if trained_guide != config.guide_spec():
            raise ValueError(f"--resume: {resume_from} was trained "
                             f"{f'with --guide {trained_guide}' if trained_guide else 'without a guide'}; "
                             f"--guide must match it, got {config.guide or 'none'!r}")
        for option, default in (("frame_stack", 1), ("frame_encoder", "mlp")):
            trained, given = recorded.get(option, default), getattr(config, option)
            if trained != given:
                flag = "--" + option.replace("_", "-")
                raise ValueError(f"--resume: {resume_from} was trained with {flag} {trained}; {flag} must match it, "
                                 f"got {given}")
        if (out / "monitor.csv").exists():
            part = len(list(out.glob("monitor.*.csv"))) + 1
            (out / "monitor.csv").rename(out / f"monitor.{part}.csv")
    (out / "config.json").write_text(json.dumps(asdict(config), indent=2) + "\n")
    return resume_from


def warm_start_policy(policy, config: TrainConfig, out: Path) -> dict:
    """Clone ``config.warm_start``'s play into the policy's actor (behaviour cloning on
    decisions recorded in tables of that agent); the figures go to ``warm_start.json``."""
    started = time.perf_counter()

    def log(line: str) -> None:
        if not config.progress_bar:
            print(line, file=sys.stderr, flush=True)

    demos = collect_demonstrations(config.ruleset, config.warm_start, config.warm_start_decisions, seed=config.seed,
                                   env_kwargs=config.env_kwargs, explore=config.warm_start_explore,
                                   frame_stack=config.frame_stack)
    log(f"warm start: {len(demos)} decisions of {config.warm_start} from {demos.games} games "
        f"({time.perf_counter() - started:.0f} s)")
    result = clone_into(policy, demos, epochs=config.warm_start_epochs, seed=config.seed, log=log)
    del demos
    result = {"agent": config.warm_start, **result, "seconds": round(time.perf_counter() - started, 1)}
    (out / "warm_start.json").write_text(json.dumps(result, indent=2) + "\n")
    log(f"warm start: held-out agreement with {config.warm_start} {result['held_out_agreement']:.4f}")
    return result


def save_model(model, path: Path, metadata: dict) -> None:
    """``model.save`` plus ``cardenv.json`` (what the model was trained on) in the zip."""
    import zipfile

    model.save(str(path))
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(METADATA_NAME, json.dumps(metadata))


def export_policy(model_path: str | Path, out_path: str | Path) -> None:
    """Write a model file for playing only: the same policy and ``cardenv.json``, without
    the optimizer's running moments (two thirds of a trained model's size), as the
    policies shipped in ``cardenv/agents/pretrained`` are made. Training resumed from an
    exported model starts its optimizer afresh."""
    import zipfile

    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(model_path), device="cpu")
    model.policy.optimizer.state.clear()
    with zipfile.ZipFile(model_path) as archive:
        metadata = json.loads(archive.read(METADATA_NAME))
    save_model(model, Path(out_path), metadata)


def read_eval_history(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return [{k: (int(v) if k == "timesteps" else float(v)) for k, v in row.items()} for row in csv.DictReader(f)]


def _write_eval_history(path: Path, history: list[dict]) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["timesteps", "win_share", "ci_low", "ci_high", "points_per_round"])
        writer.writeheader()
        writer.writerows(history)


def read_monitor(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cumulative learner steps, return and win share of every training episode, in
    order of ending (with the parts ``monitor.N.csv`` of a resumed run before ``path``)."""
    parts = sorted(path.parent.glob("monitor.*.csv"), key=lambda p: int(p.suffixes[0][1:]))
    lengths, returns, shares = [], [], []
    for part in [*parts, path]:
        with open(part) as f:
            next(f)  # the JSON header line VecMonitor writes
            for row in csv.DictReader(f):
                lengths.append(int(row["l"]))
                returns.append(float(row["r"]))
                shares.append(float(row.get("win_share") or 0.0))
    return np.cumsum(lengths), np.array(returns), np.array(shares)


def _running_mean(values: np.ndarray, window: int) -> np.ndarray:
    return np.convolve(values, np.ones(window) / window, mode="valid")


def plot_learning_curve(monitor_path: Path, eval_history: list[dict], png_path: Path, config: TrainConfig) -> Path:
    """Top: the return of every training game. Bottom: the learner's win share in its
    training games against its opponents (running mean) and the periodic evaluations
    against random_no_call, with their 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps, returns, shares = read_monitor(monitor_path)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    guided = f", guided by {config.guide}" if config.guide else ""
    top.set_title(f"MaskablePPO on {config.ruleset} vs {config.opponent}{guided}")
    if len(returns):
        window = max(1, min(200, len(returns) // 10))
        top.plot(steps, returns, ".", alpha=0.15, markersize=2, label="episode return")
        top.plot(steps[window - 1:], _running_mean(returns, window), label=f"mean of {window} episodes")
        top.legend()
        window = max(1, min(1000, len(shares) // 10))
        bottom.plot(steps[window - 1:], _running_mean(shares, window),
                    label=f"win share in training games vs {config.opponent} (mean of {window})")
    top.set_ylabel("learner's return per game")
    if eval_history:
        x = [e["timesteps"] for e in eval_history]
        bottom.plot(x, [e["win_share"] for e in eval_history], "o-", label="win share vs 3 × random_no_call")
        bottom.fill_between(x, [e["ci_low"] for e in eval_history], [e["ci_high"] for e in eval_history], alpha=0.2,
                            label="95% Wilson interval")
    bottom.axhline(1 / ruleset_info(config.ruleset, **config.env_kwargs).num_players, ls="--", color="gray",
                   label="equal share")
    bottom.legend()
    bottom.set_xlabel("learner steps")
    bottom.set_ylabel("win share")
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)
    return png_path
