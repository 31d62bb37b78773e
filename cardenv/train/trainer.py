"""MaskablePPO training on the single-seat view (``cardenv train``).

torch, stable-baselines3 and sb3-contrib are imported inside :func:`train` (with the run's
callbacks, :mod:`cardenv.train.callbacks`), so importing this module costs nothing without
the ``train`` extra.

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

from cardenv.agents.ppo import METADATA_NAME, PPOAgent, model_metadata
from cardenv.agents.pretrained import PRETRAINED, pretrained_model_path, shipped_rulesets
from cardenv.agents.specs import MIXTURE_SEPARATOR, make_agent, make_mixture
from cardenv.envs.frame_stack import SingleSeatFrameStack
from cardenv.envs.info import ruleset_info
from cardenv.eval.tournament import format_table, run_tournament, table_legend, usable_cores
from cardenv.train.config import SELFPLAY, TrainConfig
from cardenv.train.regularised_ppo import regularised_ppo_class
from cardenv.train.single_seat import SingleSeatEnv
from cardenv.train.warm_start import clone_into, collect_demonstrations

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


def train(config: TrainConfig, evaluate: bool = True) -> dict:
    """Train MaskablePPO as ``config`` says and evaluate the final model (unless
    ``evaluate`` is False: a caller that evaluates it its own way); returns the
    run's summary (paths, steps, speed, the final table). Every option is checked, and a
    run already in the output folder refused, before anything is written."""
    import torch

    from cardenv.train.callbacks import PeriodicEvaluation

    started = time.perf_counter()
    out, resume_from = start_run(config)
    cores = usable_cores()
    use_subproc = runs_in_subprocesses(config, cores)
    # One thread: these networks are small, and a second thread spin-waiting on a busy
    # core made each batch-1 forward pass over 100× slower (measured on 2 cores).
    torch.set_num_threads(1)
    vec_env = make_vec_env(config, out, use_subproc)
    model = make_model(config, vec_env, resume_from, out)
    metadata = run_metadata(config)
    learner_factory = partial(_learner_or_agent, model, config)
    eval_history: list[dict] = read_eval_history(out / "eval_history.csv") if resume_from else []
    start_timesteps = model.num_timesteps
    planned = config.planned_timesteps(start_timesteps)
    if planned > config.total_timesteps:
        print(f"training to {planned:,} learner steps, not {config.total_timesteps:,}: PPO trains in whole rollouts "
              f"of {config.rollout():,} (n_steps {config.n_steps} × n_envs {config.n_envs}; lower them for shorter "
              f"rollouts)", file=sys.stderr)
    periodic = PeriodicEvaluation(config.eval_every, partial(_evaluate_against_random, config, learner_factory),
                                  eval_history, planned, started, print_lines=not config.progress_bar)
    callbacks = training_callbacks(config, out, metadata, periodic, cores if not use_subproc else 1)
    learn_started = time.perf_counter()
    try:
        learn(model, planned - start_timesteps, callbacks, config.progress_bar, resumed=resume_from is not None)
    finally:
        vec_env.close()
        torch.set_num_threads(1)  # the evaluations below play batch-1 forward passes
    learn_seconds = time.perf_counter() - learn_started
    model_path = out / "final_model.zip"
    save_model(model, model_path, metadata)
    train_seconds = time.perf_counter() - started
    # Evaluate the final model unless the last periodic evaluation was within one rollout of the end.
    if config.eval_every > 0 and (not eval_history
                                  or eval_history[-1]["timesteps"] < model.num_timesteps - config.rollout()):
        periodic.num_timesteps = model.num_timesteps
        periodic.evaluate()
    _write_eval_history(out / "eval_history.csv", eval_history)
    table = final_evaluation(config, model, learner_factory, out) if evaluate else ""
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


def runs_in_subprocesses(config: TrainConfig, cores: int) -> bool:
    """Whether the envs run in subprocesses (SubprocVecEnv) rather than in this process."""
    # Subprocesses pay only when the env workers do not compete with the learner for
    # cores: on 2 cores DummyVecEnv was faster (default options: ~1,110 vs ~725
    # steps/s before the events piece; 399 vs 319 after).
    return config.vec_env == "subproc" or (config.vec_env == "auto" and cores >= SUBPROC_MIN_CORES
                                           and config.n_envs > 1)


def check_run(config: TrainConfig) -> Path | None:
    """Every check of a run, writing nothing: the options (:meth:`TrainConfig.check_setup`)
    and the output folder (:func:`check_output_dir`); returns the model to resume from."""
    config.check_setup()
    return check_output_dir(Path(config.resolved_output_dir()), config)


def start_run(config: TrainConfig) -> tuple[Path, Path | None]:
    """Check the run, then make its folder (:func:`prepare_output_dir`): the folder and
    the model to resume from (None for a new run)."""
    config.check_setup()
    out = Path(config.resolved_output_dir())
    return out, prepare_output_dir(out, config)


def make_vec_env(config: TrainConfig, out: Path, use_subproc: bool):
    """The ``n_envs`` training envs (in subprocesses or in this one), monitored into
    ``out/monitor.csv`` and seeded."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    env_fns = [partial(make_training_env, config.ruleset, config.opponent_specs(), config.env_kwargs,
                       config.pool_size, use_subproc, config.guide_spec(), config.frame_stack)
               for _ in range(config.n_envs)]
    vec_env = SubprocVecEnv(env_fns) if use_subproc else DummyVecEnv(env_fns)
    vec_env = VecMonitor(vec_env, filename=str(out / "monitor.csv"), info_keywords=("win_share",))
    vec_env.seed(config.seed)
    return vec_env


def make_model(config: TrainConfig, vec_env, resume_from: Path | None, out: Path):
    """A new MaskablePPO (warm-started when ``config.warm_start``), or the one to resume,
    on ``vec_env``, logging into ``out/logs``."""
    from stable_baselines3.common.logger import configure

    ppo_class = regularised_ppo_class()  # MaskablePPO itself unless a warm start's or the magnet's options are set
    if resume_from is None:
        policy, policy_kwargs = policy_of(config)
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
    # A resumed run's magnet starts again from the policy as it was saved.
    model.pull_toward_magnet(config.magnet_kl, config.magnet_every)
    model.set_logger(configure(str(out / "logs"), ["csv", "tensorboard"]))
    return model


def policy_of(config: TrainConfig) -> tuple[object, dict]:
    """The policy (class or SB3 name) and its keyword arguments: an MLP, guided with
    ``config.guide``, reading a frame stack through a GRU with ``frame_encoder="gru"``."""
    policy, policy_kwargs = "MlpPolicy", {"net_arch": list(config.net_arch)}
    if config.guide_spec():
        from cardenv.train.guided_policy import GuidedMaskablePolicy

        policy, policy_kwargs["guide_weight"] = GuidedMaskablePolicy, config.guide_weight
    if config.frame_encoder == "gru":
        from cardenv.train.frame_encoder import RecurrentFrameEncoder

        policy_kwargs["features_extractor_class"] = RecurrentFrameEncoder
        policy_kwargs["features_extractor_kwargs"] = {"num_frames": config.frame_stack,
                                                      "hidden_size": config.frame_encoder_size}
    return policy, policy_kwargs


def run_metadata(config: TrainConfig) -> dict:
    """What a saved model was trained on (``cardenv.json`` in its zip)."""
    return {"ruleset": config.ruleset, "env_kwargs": config.env_kwargs, "guide": config.guide_spec(),
            "frame_stack": config.frame_stack, "frame_encoder": config.frame_encoder}


def _learner_or_agent(model, config: TrainConfig, spec: str, info, rng):
    """The evaluations' agent factory: :data:`LEARNER` is the model being trained."""
    if spec == LEARNER:
        return PPOAgent(info, rng, model, guide=config.guide_spec(), agent_factory=make_agent,
                        frame_stack=config.frame_stack)
    return make_agent(spec, info, rng)


def _evaluate_against_random(config: TrainConfig, learner_factory):
    """A periodic evaluation: the learner against random_no_call, ``eval_games`` games."""
    return run_tournament(config.ruleset, LEARNER, ["random_no_call"], config.eval_games,
                          seed=config.seed + 1_000_000, env_kwargs=config.env_kwargs, agent_factory=learner_factory)


def training_callbacks(config: TrainConfig, out: Path, metadata: dict, periodic, update_threads: int) -> list:
    """The run's callbacks, in order: self-play snapshots (with a selfplay opponent), the
    periodic evaluation, more threads for the updates (``update_threads`` > 1) and
    checkpoints (``checkpoint_every`` > 0)."""
    from cardenv.train.callbacks import CheckpointsWithMetadata, SelfPlaySnapshots, ThreadsForUpdates

    save = partial(save_model, metadata=metadata)
    callbacks = [periodic]
    if config.uses_selfplay():
        callbacks.insert(0, SelfPlaySnapshots(config.snapshot_every, out / "snapshots", save))
    if update_threads > 1:
        # Measured on 2 cores (default options, DummyVecEnv): 525 learner steps/s
        # with two threads against 399 with one.
        callbacks.append(ThreadsForUpdates(update_threads))
    if config.checkpoint_every > 0:
        callbacks.append(CheckpointsWithMetadata(max(1, config.checkpoint_every // config.n_envs),
                                                 str(out / "checkpoints"), save, name_prefix="model"))
    return callbacks


def learn(model, timesteps: int, callbacks: list, progress_bar: bool, resumed: bool) -> None:
    """``model.learn`` for ``timesteps`` more learner steps (whole rollouts, so that the
    progress bar ends at n/n), without torch's distribution checks."""
    import torch
    from stable_baselines3.common.callbacks import CallbackList

    # torch checks every distribution's parameters when it is made (three per forward
    # pass in MaskablePPO; 7% of a profiled run). Skipping the checks made a
    # null env's training ~20% faster; on a real ruleset the gain is within the noise of
    # 2-core runs. Only for the run: the setting is global, so it is put back after.
    validating = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(False)
    try:
        model.learn(total_timesteps=timesteps, callback=CallbackList(callbacks), progress_bar=progress_bar,
                    reset_num_timesteps=not resumed)
    finally:
        torch.distributions.Distribution.set_default_validate_args(validating)


def final_evaluation(config: TrainConfig, model, learner_factory, out: Path) -> str:
    """The final model against each of ``final_eval_fields`` (and the shipped policy on
    the same games, where one ships for the run's options): written to ``eval.json`` and
    ``eval_table.txt``; returns the table with its legend."""
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
    return table


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
    lines += ["the other columns:", table_legend(skip=("win share",))]
    return "\n".join(lines)


def prepare_output_dir(out: Path, config: TrainConfig) -> Path | None:
    """Make the run folder, once :func:`check_output_dir` finds nothing wrong with it, and
    write ``config.json`` into it; returns the model to resume from (with ``resume``),
    else None. With ``overwrite`` the folder is emptied first; with ``resume`` the earlier
    training episodes are kept as ``monitor.N.csv``."""
    resume_from = check_output_dir(out, config)
    if config.overwrite and out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    if config.resume and (out / "monitor.csv").exists():
        part = len(list(out.glob("monitor.*.csv"))) + 1
        (out / "monitor.csv").rename(out / f"monitor.{part}.csv")
    (out / "config.json").write_text(json.dumps(asdict(config), indent=2) + "\n")
    return resume_from


def check_output_dir(out: Path, config: TrainConfig) -> Path | None:
    """The run folder checked, nothing written: returns the model to resume from (with
    ``resume``: the folder's final model, else its newest checkpoint), else None.

    A folder that already holds a run is an error (FileExistsError) unless ``overwrite``
    or ``resume``; ``resume`` needs a run to continue (FileNotFoundError) trained with
    the same guide and frames (ValueError)."""
    holds_run = (out / "config.json").exists()
    if holds_run and not (config.resume or config.overwrite):
        raise FileExistsError(f"{out} already holds a training run; pass --resume to continue it or --overwrite "
                              f"to replace it (or choose another --output-dir)")
    if config.resume and not holds_run:
        raise FileNotFoundError(f"--resume: {out} holds no training run to continue")
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
    policies shipped in each ruleset package's ``pretrained/`` folder are made. Training
    resumed from an exported model starts its optimizer afresh."""
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
