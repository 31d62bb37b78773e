"""Options of ``cardenv train`` (torch-free, so the CLI can list them without the extra).

Every option is a field of :class:`TrainConfig` whose metadata holds its help text; the
command line is generated from the fields, so the two cannot drift apart.
"""

from __future__ import annotations

import argparse
import ast
import re
from dataclasses import dataclass, field, fields

from cardenv.agents.base import MIXTURE_SEPARATOR
from cardenv.agents.specs import split_seat_specs
from cardenv.core import validation
from cardenv.rulesets import ruleset_names

SELFPLAY = "selfplay"
VEC_ENVS = ("auto", "dummy", "subproc")
FRAME_ENCODERS = ("mlp", "gru")


def _option(default, help_text: str, **kwargs):
    if isinstance(default, (dict, list)):
        return field(default_factory=lambda: type(default)(default), metadata={"help": help_text, **kwargs})
    return field(default=default, metadata={"help": help_text, **kwargs})


@dataclass
class TrainConfig:
    """Defaults finish on 2 CPU cores in about 5 minutes, evaluation included."""

    ruleset: str = _option(ruleset_names()[0], "the ruleset to train on", positional=True)
    opponent: str = _option(
        "random_no_call",
        "who plays the other seats: one agent spec for all (random, random_no_call, heuristic, heuristic_no_call, "
        "heuristic_cautious, ismcts[:N], ppo:MODEL.zip, or selfplay: a pool of frozen snapshots of the learner), or one spec per other seat "
        "separated by commas (a mixed field, e.g. heuristic,random_no_call,selfplay); specs joined by | are drawn "
        "anew every game (heuristic|heuristic_no_call|selfplay)")
    total_timesteps: int = _option(200_704, "learner steps (decisions of the learner's seat) to train for, rounded "
                                            "up to whole rollouts (n-steps × n-envs; at least one; the run says so when it rounds)")
    n_envs: int = _option(8, "envs collecting experience in parallel")
    vec_env: str = _option("auto", "how the envs run: dummy (in this process), subproc (one process each) or "
                                   "auto (subproc from 4 usable cores, else dummy: measured faster on 2)",
                           choices=VEC_ENVS)
    seed: int = _option(0, "seed of the training run (envs, network, evaluations)")
    output_dir: str = _option("runs/{ruleset}", "run folder ({ruleset} is replaced); must not hold a run "
                                                "unless --resume or --overwrite")
    resume: bool = _option(False, "continue the run in the output folder from its final model or newest "
                                  "checkpoint up to --total-timesteps")
    overwrite: bool = _option(False, "replace a run already in the output folder")
    env_kwargs: dict = _option({}, "env options (--env-arg KEY=VALUE)", cli=False)
    guide: str = _option("", "an agent spec (e.g. heuristic) whose choice the policy sees as a one-hot and adds, "
                             "times a learned weight, to its logits: training refines that agent's play "
                             "(empty: no guide)")
    guide_weight: float = _option(4.0, "guide: the weight's starting value")
    frame_stack: int = _option(1, "decisions the policy sees at once: the observation now and those of the learner's "
                                  "last N-1 decisions (cardenv.envs.frame_stack), a memory of its own for "
                                  "memory=none (1: the observation alone)")
    frame_encoder: str = _option("mlp", "how the policy reads a frame stack: mlp (the frames side by side into its "
                                        "layers) or gru (one GRU reads the frames oldest first and its last state "
                                        "joins the observation now: cardenv.train.frame_encoder)",
                                 choices=FRAME_ENCODERS)
    frame_encoder_size: int = _option(128, "gru frame encoder: its units")
    warm_start: str = _option("", "an agent spec (e.g. heuristic) whose decisions, recorded in tables of it, the policy "
                                  "is first trained to copy (behaviour cloning), so PPO starts from its play; the "
                                  "policy still sees only the observation (empty: no warm start)")
    warm_start_decisions: int = _option(400_000, "warm start: decisions recorded (all seats of its tables)")
    warm_start_epochs: int = _option(8, "warm start: passes of the cloning over the recorded decisions")
    warm_start_explore: float = _option(0.05, "warm start: share of the recorded tables' moves played at random "
                                              "(labelled with the agent's choice), so the clone learns to recover")
    kl_to_warm_start: float = _option(0.0, "warm start: weight of a KL pull toward the cloned policy after every "
                                           "update, falling linearly to 0 by the end of the run (0: none)")
    critic_warmup_steps: int = _option(0, "learner steps at the start in which only the value network trains")
    # magnetic mirror descent (Sokota et al., ICLR 2023)
    magnet_kl: float = _option(0.0, "magnetic mirror descent: weight of a pull of the policy toward a magnet policy, "
                                    "KL(policy ‖ magnet), descended after every update (0: none). With selfplay "
                                    "opponents of the newest snapshot, the recipe that converges toward an "
                                    "equilibrium rather than cycling (docs/training.md)")
    magnet_every: int = _option(0, "magnet: updates between moves of the magnet to the current policy (0: the magnet "
                                   "stays the starting policy, a pull toward near-uniform play)")
    # MaskablePPO
    learning_rate: float = _option(3e-4, "Adam learning rate (above 0, at most 1)")
    n_steps: int = _option(256, "steps per env per rollout")
    batch_size: int = _option(512, "minibatch size of the updates (2 to the rollout, n-steps × n-envs)")
    n_epochs: int = _option(5, "passes over each rollout")
    gamma: float = _option(0.995, "discount factor (0 to 1)")
    gae_lambda: float = _option(0.95, "GAE lambda (0 to 1)")
    clip_range: float = _option(0.2, "PPO clipping of the probability ratio (above 0, at most 1)")
    ent_coef: float = _option(0.01, "entropy bonus (0 or more)")
    net_arch: tuple[int, ...] = _option((64, 64), "hidden layer sizes of the policy and value networks")
    # self-play
    snapshot_every: int = _option(50_000, "selfplay: freeze the learner into the pool every this many steps")
    pool_size: int = _option(5, "selfplay: the newest snapshots the opponents draw from")
    # periodic evaluation, checkpoints, final evaluation
    eval_every: int = _option(50_000, "steps between short evaluations against random_no_call (0: none)")
    eval_games: int = _option(40, "games per periodic evaluation")
    checkpoint_every: int = _option(100_000, "steps between checkpoints (0: none)")
    final_eval_games: int = _option(200, "games of the final evaluation against each field")
    final_eval_fields: tuple[str, ...] = _option(("random_no_call", "heuristic"),
                                                 "agent specs the final model is evaluated against")
    progress_bar: bool = _option(True, "a progress bar (--no-progress: a line every evaluation instead)", cli=False)

    def __post_init__(self):
        """Every option's own range (one-line TypeError or ValueError naming the option,
        the value and what is accepted); :meth:`check_setup` checks what needs the
        ruleset (its env options, the agent specs)."""
        for name in ("ruleset", "opponent", "output_dir", "guide", "warm_start"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a string, got {validation.show(getattr(self, name))}")
        for name in ("resume", "overwrite", "progress_bar"):
            validation.boolean(name, getattr(self, name))
        validation.mapping("env_kwargs", self.env_kwargs)
        if self.vec_env not in VEC_ENVS:
            raise ValueError(f"vec_env must be one of {', '.join(VEC_ENVS)}, got {self.vec_env!r}")
        if self.resume and self.overwrite:
            raise ValueError("resume and overwrite exclude each other: resume continues the run in the output "
                             "folder, overwrite replaces it")
        for name, low in (("total_timesteps", 1), ("n_envs", 1), ("n_steps", 1), ("n_epochs", 1), ("seed", 0),
                          ("eval_games", 1), ("final_eval_games", 1), ("pool_size", 1), ("snapshot_every", 1),
                          ("eval_every", 0), ("checkpoint_every", 0), ("warm_start_decisions", 1), ("frame_stack", 1),
                          ("warm_start_epochs", 1), ("critic_warmup_steps", 0), ("frame_encoder_size", 1)):
            validation.integer(name, getattr(self, name), low)
        self._check_rollout()
        for name in ("learning_rate", "clip_range"):
            validation.real(name, getattr(self, name), 0, 1, low_inclusive=False)
        for name in ("gamma", "gae_lambda"):
            validation.real(name, getattr(self, name), 0, 1)
        validation.real("ent_coef", self.ent_coef, 0)
        for size in validation.sequence("net_arch", self.net_arch, "layer sizes (integers of at least 1)"):
            validation.integer("net_arch", size, 1, accepted="a list of layer sizes, each an integer of at least 1")
        fields_given = validation.sequence("final_eval_fields", self.final_eval_fields, "agent specs")
        if not fields_given or not all(isinstance(spec, str) for spec in fields_given):
            raise ValueError(f"final_eval_fields must be a list of at least one agent spec (a string), got "
                             f"{validation.show(self.final_eval_fields)}")
        if self.frame_encoder not in FRAME_ENCODERS:
            raise ValueError(f"frame_encoder must be one of {', '.join(FRAME_ENCODERS)}, got {self.frame_encoder!r}")
        if self.frame_encoder == "gru" and self.frame_stack < 2:
            raise ValueError(f"--frame-encoder gru reads a frame stack: it needs --frame-stack 2 or more, got "
                             f"{self.frame_stack}")
        if self.frame_encoder == "gru" and self.guide:
            raise ValueError(f"--frame-encoder gru takes no --guide (got {self.guide!r}): the guided policy reads "
                             f"the frames side by side")
        validation.real("guide_weight", self.guide_weight)
        validation.real("warm_start_explore", self.warm_start_explore, 0, 1)
        validation.real("kl_to_warm_start", self.kl_to_warm_start, 0)
        validation.real("magnet_kl", self.magnet_kl, 0)
        validation.integer("magnet_every", self.magnet_every, 0)
        if self.magnet_every and not self.magnet_kl:
            raise ValueError(f"magnet_every moves the magnet of magnet_kl: it needs --magnet-kl above 0, got "
                             f"magnet_every={self.magnet_every} with magnet_kl=0")
        if self.kl_to_warm_start > 0 and not self.warm_start:
            raise ValueError("kl_to_warm_start pulls toward the cloned policy: it needs --warm-start AGENT")

    def rollout(self) -> int:
        """Learner steps collected between two updates: ``n_steps`` in each of ``n_envs`` envs."""
        return self.n_steps * self.n_envs

    def _check_rollout(self) -> None:
        """The rollout and the batch size: PPO normalises the advantages over a minibatch,
        so both hold at least 2 steps, and a minibatch is a part of one rollout."""
        rollout, product = self.rollout(), f"n_steps × n_envs = {self.n_steps} × {self.n_envs}"
        if rollout < 2:
            raise ValueError(f"a rollout ({product} = {rollout} learner step) must hold at least 2 steps (PPO "
                             f"normalises the advantages over it): raise n_steps or n_envs")
        validation.integer("batch_size", self.batch_size, 2, rollout,
                           accepted=f"an integer from 2 to {rollout} (the rollout, {product})")
        # PPO collects whole rollouts: a run asked for less than one would train a whole one.
        validation.integer("total_timesteps", self.total_timesteps, rollout,
                           accepted=f"an integer of at least {rollout:,} (one rollout, {product}; "
                                    f"lower n_steps or n_envs for a shorter run)")

    def planned_timesteps(self, already: int = 0) -> int:
        """The learner steps the run ends at, having trained ``already``: ``total_timesteps``
        rounded up to whole rollouts from ``already`` (PPO collects whole rollouts; a total
        below one rollout is refused when the config is made); the trainer says so when it
        rounds, and its progress bar counts to this number."""
        if self.total_timesteps <= already:
            return already
        rollout = self.rollout()
        return already + -(-(self.total_timesteps - already) // rollout) * rollout

    def resolved_output_dir(self) -> str:
        return self.output_dir.format(ruleset=self.ruleset)

    def guide_spec(self) -> str | None:
        """The guide's agent spec, or None without one."""
        return self.guide or None

    def opponent_specs(self) -> str | list[str]:
        """The opponent spec for every other seat, or the list of one per other seat."""
        specs = split_seat_specs(self.opponent)
        return specs if len(specs) > 1 else self.opponent

    def uses_selfplay(self) -> bool:
        """Whether some seat plays (sometimes, in a mixture) from the learner's snapshots."""
        return any(SELFPLAY in spec.split(MIXTURE_SEPARATOR) for spec in split_seat_specs(self.opponent))

    def check_setup(self) -> None:
        """What needs the ruleset: the ruleset itself, its env options (by building the
        env once), the number of opponent specs and every agent spec, each agent built
        once (a model made for another ruleset is refused here, not in a running
        training); one-line TypeError or ValueError (:class:`cardenv.core.extras.MissingExtra`
        for an agent whose extra is missing). Nothing is written or trained."""
        import numpy as np

        from cardenv.agents.specs import make_agent, seat_specs
        from cardenv.envs.info import make_raw_env, ruleset_info
        from cardenv.rulesets import check_ruleset

        check_ruleset(self.ruleset)
        make_raw_env(self.ruleset, **self.env_kwargs)  # checks the env options
        info = ruleset_info(self.ruleset, **self.env_kwargs)
        specs = [alternative for spec in seat_specs(self.opponent, info.num_players, "opponent", self.ruleset)
                 for alternative in spec.split(MIXTURE_SEPARATOR) if alternative != SELFPLAY]
        for spec in dict.fromkeys([*specs, *self.final_eval_fields, self.guide, self.warm_start]):
            if spec:
                make_agent(spec, info, np.random.default_rng(0)).close()


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    for f in fields(TrainConfig):
        meta = f.metadata
        if meta.get("cli", True) is False:
            continue
        value = f.default
        if meta.get("positional"):
            parser.add_argument(f.name, nargs="?", default=value, help=meta["help"])
            continue
        flag = "--" + f.name.replace("_", "-")
        if isinstance(value, bool):
            parser.add_argument(flag, action="store_true", help=meta["help"])
        elif isinstance(value, tuple):
            parser.add_argument(flag, nargs="+", type=type(value[0]), default=list(value), help=meta["help"])
        else:
            parser.add_argument(flag, type=type(value), default=value, choices=meta.get("choices"),
                                help=meta["help"])
    parser.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="env option, e.g. num_players=3 (repeatable)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar: one line per periodic evaluation instead")


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The config of parsed ``cardenv train`` arguments, every option checked
    (:meth:`TrainConfig.check_setup` included); raises TypeError or ValueError, one line
    naming the option by its flag (``--learning-rate``), for a bad value."""
    values = {}
    for f in fields(TrainConfig):
        if f.metadata.get("cli", True) is False:
            continue
        value = getattr(args, f.name)
        values[f.name] = tuple(value) if isinstance(value, list) else value
    try:
        config = TrainConfig(**values, env_kwargs=parse_env_args(args.env_arg), progress_bar=not args.no_progress)
        config.check_setup()
    except (TypeError, ValueError) as error:
        raise type(error)(named_as_flags(str(error))) from None
    return config


def named_as_flags(message: str) -> str:
    """``message`` with the options named as on the command line: ``learning_rate``
    becomes ``--learning-rate`` (a one-word option only where it starts the message)."""
    names = [f.name for f in fields(TrainConfig) if f.metadata.get("cli", True) and not f.metadata.get("positional")]
    for name in sorted(names, key=len, reverse=True):
        flag = "--" + name.replace("_", "-")
        if "_" in name:
            message = re.sub(rf"(?<![\w-]){name}(?![\w-])", flag, message)
        elif message.startswith(name + " "):
            message = flag + message[len(name):]
    return message


def parse_env_args(pairs: list[str]) -> dict:
    """``key=value`` env options; values parsed as Python literals when they are one
    (``3``, ``True``, ``None``; ``true`` and ``false`` too, as a shell user writes them),
    else kept as strings (``memory=none``)."""
    kwargs = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--env-arg expects KEY=VALUE, got {pair!r}")
        if text in ("true", "false"):
            kwargs[key] = text == "true"
            continue
        try:
            kwargs[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            kwargs[key] = text
    return kwargs
