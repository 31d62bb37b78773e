"""The ``cardenv`` command (also ``python -m cardenv``).

Subcommands: ``eval`` (tournaments with confidence intervals), ``compare`` (two agents
head to head on the same deals), ``rate`` (one rating on a fixed ladder), ``play`` (a person at one seat), ``replay`` (check and
show a recorded game) and ``train`` (MaskablePPO; needs the ``train`` extra). A user
error (an unknown ruleset or agent, a bad option, an output path that cannot be written,
a missing extra) is one line on stderr, exit status 2, and is found before any game is
played.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from cardenv.core.extras import MissingExtra, require_extra
from cardenv.rulesets import ruleset_names

RULESETS_HELP = "one of: " + ", ".join(ruleset_names())
_EXAMPLE, _OTHER = (ruleset_names() * 2)[:2]
DESCRIPTION = f"""\
cardenv: multi-agent RL environments for card games of hidden and remembered information.
Rulesets: {", ".join(ruleset_names())}.

  cardenv eval {_EXAMPLE} --agent heuristic --field random_no_call --games 400
  cardenv eval {_OTHER} --agent ismcts:50 --field heuristic --save-games games/
  cardenv compare {_EXAMPLE} ppo:pretrained heuristic --field heuristic --games 400
  cardenv rate {_EXAMPLE} --agent ppo:pretrained --quick --png card.png
  cardenv play {_EXAMPLE} --seat 0 --opponents heuristic,heuristic,ismcts --seed 3
  cardenv replay games/game_00000.json --viewer player_1
  cardenv train {_EXAMPLE} --total-timesteps 100000
"""


class UsageError(Exception):
    """A bad value given on the command line: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but an error is the one line ``cardenv CMD: error: ...`` (no usage dump)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """argparse's "(default: X)" after an option's help, only where it says something: not
    for a default of None, False, "" or [] (an option that is off or empty unless given),
    nor where the help already says its default."""

    def _get_help_string(self, action):
        help_text = action.help or ""
        default = action.default
        if "default" in help_text or default is None or default is False or default in ("", [], argparse.SUPPRESS):
            return help_text
        return super()._get_help_string(action)


def _version() -> str:
    from cardenv.core.version import __version__

    return __version__


# --- shared checks --------------------------------------------------------------------
def check_env(ruleset: str, env_args: list[str], base: dict | None = None) -> dict:
    """The env options: ``base`` updated by the ``--env-arg`` pairs, checked by building
    the env once."""
    from cardenv.envs.info import make_raw_env
    from cardenv.rulesets import check_ruleset
    from cardenv.train.config import parse_env_args

    try:
        check_ruleset(ruleset)
        env_kwargs = {**(base or {}), **parse_env_args(env_args)}
        make_raw_env(ruleset, **env_kwargs)
    except (TypeError, ValueError) as error:
        raise UsageError(str(error)) from None
    return env_kwargs


def check_specs(specs: list[str]) -> None:
    from cardenv.agents.specs import parse_spec

    for spec in specs:
        try:
            parse_spec(spec)
        except (TypeError, ValueError) as error:
            raise UsageError(str(error)) from None


def seats_of(specs: str | list[str], num_players: int, option: str, ruleset: str) -> list[str]:
    """One spec per other seat, from one spec or one per other seat (comma-separated):
    the syntax of eval's --field, play's --opponents and train's --opponent."""
    from cardenv.agents.specs import seat_specs

    try:
        return seat_specs(specs, num_players, option, ruleset)
    except ValueError as error:
        raise UsageError(str(error)) from None


def check_agents(specs: list[str], ruleset: str, env_kwargs: dict) -> None:
    """Build each agent once: a model that does not fit the ruleset, or a checkpoint
    that needs a module named, is a user error."""
    import numpy as np

    from cardenv.agents.specs import make_agent
    from cardenv.envs.info import ruleset_info

    info = ruleset_info(ruleset, **env_kwargs)
    for spec in dict.fromkeys(specs):
        try:
            make_agent(spec, info, np.random.default_rng(0)).close()
        except (TypeError, ValueError) as error:
            raise UsageError(f"{spec}: {error}") from None


def trained_options(specs: list[str], ruleset: str) -> dict:
    """The env options recorded in the ppo models and rllib checkpoints among ``specs``
    (they must agree), so that evaluating a model needs no ``--env-arg`` to match its
    training."""
    from cardenv.agents.base import split_option
    from cardenv.agents.ppo import model_metadata
    from cardenv.agents.specs import parse_spec

    found: dict[str, dict] = {}
    for spec in specs:
        name, argument = parse_spec(spec)
        metadata = None
        if name == "ppo":
            metadata = model_metadata(split_option(argument)[0])
        elif name == "rllib":  # the rllib agent needs the extra anyway
            from cardenv.agents.rllib import checkpoint_metadata

            metadata = checkpoint_metadata(argument.partition("#")[0])
        if metadata is None:
            continue
        if metadata.get("ruleset") != ruleset:
            raise UsageError(f"{argument} was trained on {metadata.get('ruleset')}, not {ruleset}")
        found[argument] = metadata.get("env_kwargs") or {}
    if len({json.dumps(options, sort_keys=True) for options in found.values()}) > 1:
        raise UsageError("the ppo models were trained with different env options: "
                         + "; ".join(f"{path}: {options}" for path, options in found.items()))
    return next(iter(found.values()), {})


def _integer_of_at_least(low: int):
    """An argparse type: an integer >= ``low``, else a one-line error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise argparse.ArgumentTypeError(f"expected an integer of at least {low}, got {text!r}")
        return value

    return parse


_positive = _integer_of_at_least(1)
_seed = _integer_of_at_least(0)


# Output paths are argparse types, so they are checked before anything runs: a table or a
# game record must not be lost at the end of a run because its file cannot be written.
def _output_file(text: str) -> str:
    """An argparse type: a file that can be written (its folder must exist)."""
    target = Path(text)
    if target.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: it is a directory; give a file name")
    if not target.parent.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: no directory {str(target.parent)!r}")
    try:
        if target.exists():
            open(target, "a").close()  # opening to append changes nothing in the file
        else:
            open(target, "x").close()
            target.unlink()
    except OSError as error:
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: {error.strerror}") from None
    return text


def _output_file_or_stdout(text: str) -> str:
    """An argparse type: '-' (standard output) or a file that can be written."""
    return text if text == "-" else _output_file(text)


def _output_directory(text: str) -> str:
    """An argparse type: a directory that exists and takes files, or can be made (it is
    made when the first file is written)."""
    target = Path(text)
    existing = next(folder for folder in (target, *target.parents) if folder.exists())
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write into {text!r}: {str(existing)!r} is not a directory")
    try:
        tempfile.NamedTemporaryFile(dir=existing).close()
    except OSError as error:
        raise argparse.ArgumentTypeError(f"cannot write into {text!r}: {str(existing)!r} takes no new files "
                                         f"({error.strerror})") from None
    return text


# --- eval ---------------------------------------------------------------------------------
def _add_tournament_options(p, field_default: str, games_help: str) -> None:
    """The options eval and compare share: --field, --games, --seed, --workers, --ray,
    --env-arg, --json."""
    p.add_argument("--field", nargs="+", default=[field_default],
                   help="one spec for every other seat, or one spec per other seat separated by commas "
                        "(e.g. heuristic,heuristic,random; spaces separate them too)")
    p.add_argument("--games", type=_positive, default=2000, help=games_help)
    p.add_argument("--seed", type=_seed, default=0, help="game g uses env seed SEED + g")
    p.add_argument("--workers", type=_positive, default=1,
                   help="processes playing the games (the results are those of one process)")
    p.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                   help="play the games as Ray tasks (the 'ray' extra): alone, on a new local cluster; with an "
                        "address ('auto', HOST:PORT), on that running cluster. Same results as one process")
    p.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE",
                   help="env option, e.g. num_players=3 (repeatable)")
    p.add_argument("--json", metavar="FILE", type=_output_file_or_stdout,
                   help="write the results as JSON to FILE; with '-' the JSON alone goes to stdout "
                        "(the table to stderr)")


def _add_eval(sub) -> None:
    from cardenv.agents.specs import AGENT_SPECS

    p = sub.add_parser(
        "eval", help="a tournament: one agent against a field, seats rotated, seeded",
        description="Play GAMES games of a candidate agent against a field of agents, every agent in every seat "
                    "equally often, and report its win share with a 95% interval. Agent specs: "
                    + AGENT_SPECS + ".",
        formatter_class=_DefaultsFormatter)
    p.add_argument("ruleset", help=RULESETS_HELP)
    p.add_argument("--agent", required=True,
                   help="the candidate's spec, e.g. heuristic, ismcts:100, ppo:model.zip, rllib:CHECKPOINT")
    _add_tournament_options(p, "random_no_call", "games (rounded up to a multiple of the player count)")
    p.add_argument("--with-games", action="store_true",
                   help="include every game's outcome in the JSON (seat, share, scores: for paired comparisons "
                        "of two agents on the same seeds)")
    p.add_argument("--save-games", metavar="DIR", type=_output_directory,
                   help="write every game as a replayable record DIR/game_NNNNN.json (see cardenv replay)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _connect_ray(args) -> None:
    """--ray (connect now: the games then play on this Ray) and --workers exclude each other."""
    if args.ray is not None and args.workers != 1:
        raise UsageError("--ray and --workers exclude each other: Ray decides where the games run")
    if args.ray is not None:
        from cardenv.eval.distributed import connect

        try:
            connect(args.ray, "--ray")
        except ConnectionError as error:
            raise UsageError(f"--ray {args.ray}: {error}") from None


def _prepare_tournament(args, candidates: list[str], report) -> tuple[dict, list[str]]:
    """The checks and setup eval and compare share, before any game: the specs, the env
    options (a model's recorded ones updated by --env-arg), the field one spec per other
    seat, every agent built once, --ray/--workers, and the notices on ``report``.
    Returns the env options and the field."""
    from cardenv.agents.specs import split_seat_specs
    from cardenv.envs.info import ruleset_info
    from cardenv.eval.tournament import whole_rotations

    field = split_seat_specs(args.field)
    check_specs([*candidates, *field])
    recorded = trained_options([*candidates, *field], args.ruleset)
    env_kwargs = check_env(args.ruleset, args.env_arg, recorded)
    field = seats_of(field, ruleset_info(args.ruleset, **env_kwargs).num_players, "--field", args.ruleset)
    n = len(field) + 1
    if any(spec.startswith(("ppo", "rllib")) for spec in [*candidates, *field]):
        import torch

        torch.set_num_threads(1)  # batch-1 inference: extra threads only spin (see trainer.py)
    check_agents([*candidates, *field], args.ruleset, env_kwargs)
    _connect_ray(args)
    if recorded:  # said once, so that a model's memory="none" (say) is not a surprise
        print("env options: " + ", ".join(f"{key}={value!r}" for key, value in env_kwargs.items())
              + " (a model's recorded training options, updated by --env-arg)", file=report)
    games = whole_rotations(args.games, n)
    if games != args.games:
        print(f"playing {games} games, not {args.games}: whole rotations of the {n} seats, so that every agent "
              f"sits in every seat equally often", file=report)
    return env_kwargs, field


def _run_eval(args) -> int:
    from cardenv.eval import format_table, run_tournament

    report = sys.stderr if args.json == "-" else sys.stdout
    env_kwargs, field = _prepare_tournament(args, [args.agent], report)
    on_record = None
    if args.save_games:
        directory = Path(args.save_games)
        directory.mkdir(parents=True, exist_ok=True)

        def on_record(game_index, record):
            record.save(directory / f"game_{game_index:05d}.json")

    result = run_tournament(args.ruleset, args.agent, field, args.games, seed=args.seed, env_kwargs=env_kwargs,
                            progress=not args.no_progress, workers=args.workers, on_record=on_record,
                            ray_address=args.ray)
    print(format_table([result]), file=report)
    print(f"({result.games} games in {result.seconds:.1f}s; seed {result.seed}; win share = 1/k per game won "
          f"jointly by k players; interval: {result.interval_method})", file=report)
    if args.json == "-":
        print(result.to_json(with_games=args.with_games))
    elif args.json:
        Path(args.json).write_text(result.to_json(with_games=args.with_games) + "\n")
    return 0


# --- compare -------------------------------------------------------------------------------
def _add_compare(sub) -> None:
    from cardenv.agents.specs import AGENT_SPECS

    p = sub.add_parser(
        "compare", help="head to head: two agents on the same deals, in the same seats, against the same field",
        description="Play agent A and agent B each as the candidate of the same tournament (the same deals, the "
                    "same seats, the same field, every generator restarted the same way), and report the paired "
                    "differences A - B of the win share and of the points per round, each with its 95% interval. "
                    "Agent specs: " + AGENT_SPECS + ".",
        formatter_class=_DefaultsFormatter)
    p.add_argument("ruleset", help=RULESETS_HELP)
    p.add_argument("a", metavar="A", help="the first agent's spec (e.g. your new version)")
    p.add_argument("b", metavar="B", help="the second agent's spec (e.g. the version it should beat)")
    _add_tournament_options(p, "heuristic", "games for each of A and B (rounded up to a multiple of the player count)")
    p.add_argument("--with-games", action="store_true", help="include every game's outcome, A's and B's, in the JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _run_compare(args) -> int:
    from cardenv.eval.compare import compare

    report = sys.stderr if args.json == "-" else sys.stdout
    env_kwargs, field = _prepare_tournament(args, [args.a, args.b], report)
    result = compare(args.ruleset, args.a, args.b, field, args.games, seed=args.seed, env_kwargs=env_kwargs,
                     workers=args.workers, progress=not args.no_progress, ray_address=args.ray)
    print(result.describe(), file=report)
    if args.json == "-":
        print(result.to_json(with_games=args.with_games))
    elif args.json:
        Path(args.json).write_text(result.to_json(with_games=args.with_games) + "\n")
    return 0


# --- play ----------------------------------------------------------------------------------
def _add_play(sub) -> None:
    p = sub.add_parser(
        "play", help="play one seat yourself against agents, in the terminal or the browser (--web)",
        description="Play a game at one seat against agents. Each decision shows the table as your seat sees it, "
                    "what happened since your last decision, and your legal choices; answer with a number or "
                    "a (unique start of a) name, ? for help, q to quit.",
        formatter_class=_DefaultsFormatter)
    p.add_argument("ruleset", help=RULESETS_HELP)
    p.add_argument("--seat", type=_seed, default=0, help="your seat (0 plays first in the first round's order)")
    p.add_argument("--opponents", default="heuristic",
                   help="one agent spec for every other seat, or one per other seat separated by commas "
                        "(e.g. heuristic,heuristic,ismcts)")
    p.add_argument("--seed", type=_seed, default=None, help="seed of the game (default: a fresh one)")
    p.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE",
                   help="env option, e.g. num_players=3 (repeatable)")
    p.add_argument("--ascii", action="store_true", help="plain ASCII card names, no colour")
    p.add_argument("--save", metavar="FILE", type=_output_file,
                   help="write the game record to FILE (see cardenv replay)")
    web = p.add_argument_group("in the browser (needs the web extra: pip install 'cardenv[web]')")
    web.add_argument("--web", action="store_true",
                     help="play in the browser instead: serve the drawn table on this machine and click to act")
    web.add_argument("--port", type=_port, default=8765, help="the port to serve on (0: any free one)")
    web.add_argument("--host", default="127.0.0.1", help="the address to serve on")
    web.add_argument("--no-browser", action="store_true", help="do not open a browser; print the address only")
    web.add_argument("--delay", type=_delay, default=0.6, metavar="SECONDS",
                     help="the pause after each of the agents' moves that shows something, to follow them on the table")


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 0 to 65535 (0: any free one), got {text!r}")
    return int(text)


def _delay(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"must be a number of seconds from 0 to 60, got {text!r}")
    return value


def _check_port_free(host: str, port: int) -> None:
    """A clear error now, before any game is dealt, where the port is taken."""
    import socket

    if port == 0:
        return
    with socket.socket() as probe:
        try:
            probe.bind((host, port))
        except OSError as error:
            raise UsageError(f"--port {port} on {host} cannot be used ({error.strerror}); choose another port, "
                             "or 0 for any free one") from None


def _run_play(args) -> int:
    from cardenv.envs.info import ruleset_info
    from cardenv.human.play import CardStyle, play

    env_kwargs = check_env(args.ruleset, args.env_arg)
    n = ruleset_info(args.ruleset, **env_kwargs).num_players
    if args.seat >= n:
        raise UsageError(f"--seat must be a seat from 0 to {n - 1} for {args.ruleset} with {n} players, "
                         f"got {args.seat}")
    opponents = seats_of(args.opponents, n, "--opponents", args.ruleset)
    check_specs(opponents)
    check_agents(opponents, args.ruleset, env_kwargs)  # a network of the wrong size: an error before the game
    if args.web:
        require_extra("web", "cardenv play --web")
        from cardenv.human.web import play_web

        _check_port_free(args.host, args.port)
        return play_web(args.ruleset, args.seat, opponents, args.seed, env_kwargs, host=args.host, port=args.port,
                        open_browser=not args.no_browser, delay=args.delay, save=args.save,
                        say=lambda text: print(text, flush=True))
    return play(args.ruleset, args.seat, opponents, args.seed, env_kwargs,
                style=CardStyle.for_stream(sys.stdout, args.ascii), save=args.save)


# --- replay --------------------------------------------------------------------------------
def _add_replay(sub) -> None:
    p = sub.add_parser(
        "replay", help="check a recorded game and show it, as one seat saw it or with every card face up",
        description="Replay a game record (written by cardenv eval --save-games): check that it replays to the "
                    "identical game, then print it. A seat's view shows only what that seat could see.")
    p.add_argument("record", help="a game record (JSON)")
    view = p.add_mutually_exclusive_group()
    view.add_argument("--viewer", metavar="player_K", help="show the game as this seat saw it")
    view.add_argument("--omniscient", action="store_true", help="every card face up (the default)")
    output = p.add_mutually_exclusive_group()
    output.add_argument("--step", action="store_true",
                        help="show the table after every decision and wait for Enter (q to stop)")
    output.add_argument("--check-only", action="store_true", help="only check the record; print one line")
    output.add_argument("--html", metavar="OUT.html", type=_output_file,
                        help="instead of the text replay, check the record and write one self-contained HTML page "
                             "of the game: cards drawn, step forward and back, switch the viewing seat (no network "
                             "access needed)")


def _viewer_seat(text: str | None, num_players: int) -> int | None:
    if text is None:
        return None
    seat = text.removeprefix("player_")
    if not seat.isdigit() or int(seat) >= num_players:
        raise UsageError(f"--viewer must name a seat, player_0 to player_{num_players - 1}, got {text!r}")
    return int(seat)


def _run_replay(args) -> int:
    from cardenv.human.play import table_text
    from cardenv.human.records import GameRecord, RecordError

    try:
        record = GameRecord.load(args.record)
        env = record.make_env()
    except (RecordError, TypeError, ValueError) as error:
        raise UsageError(str(error)) from None
    state = env.game
    viewer = _viewer_seat(args.viewer, state.num_players)
    if args.html and (args.viewer or args.omniscient):
        raise UsageError("--html writes every seat's view into the page (it switches between them); --viewer and "
                         "--omniscient choose the view of the text replay")
    show = (lambda *_: None) if args.check_only or args.html else print
    who = "every card face up" if viewer is None else f"as player_{viewer} saw it"
    show(f"{record.ruleset} {record.env_kwargs or ''} seed {record.seed}: {len(record.actions)} decisions, {who}")
    if record.agents:
        show("seats: " + ", ".join(f"player_{p}={spec}" for p, spec in enumerate(record.agents)))
    shown_events = 0

    def show_new_events():
        nonlocal shown_events
        for event in state.events[shown_events:]:
            show("  " + event.describe(state.card_name, viewer))
        shown_events = len(state.events)

    show_new_events()
    try:
        for seat, action, _ in record.replay(env):
            # Another seat's choice is not shown to a viewer: a reaction-window decision
            # is secret until resolved; the events say what became public.
            if viewer is None or seat == viewer:
                show(f"player_{seat} chooses: {state.action_name_for(action, seat)}")
            show_new_events()
            if args.step and not state.is_terminal:
                print(table_text(state, viewer))
                if input("[Enter: next, q: stop] ").strip().lower().startswith("q"):
                    return 0
    except RecordError as error:
        raise UsageError(f"{args.record}: {error}") from None
    print(f"{args.record}: replays identically; final scores {record.final_scores}")
    if args.html:
        from cardenv.human.replay_html import write_html

        write_html(record, args.html)
        print(f"wrote {args.html}")
    return 0


# --- train -----------------------------------------------------------------------------------
def _add_train(sub) -> None:
    from cardenv.train.config import add_train_arguments

    p = sub.add_parser("train", help="train a MaskablePPO policy for one seat (needs the 'train' extra)",
                       description="Train MaskablePPO on a single-seat view of a cardenv env: the learner plays one "
                                   "seat (rotated every game), given agents play the others.",
                       formatter_class=_DefaultsFormatter)
    add_train_arguments(p)


def _run_train(args) -> int:
    from cardenv.train.config import config_from_args

    require_extra("train", "cardenv train")

    try:
        config = config_from_args(args)
        _output_directory(config.resolved_output_dir())
    except (TypeError, ValueError) as error:
        raise UsageError(str(error)) from None
    except argparse.ArgumentTypeError as error:
        raise UsageError(f"--output-dir: {error}") from None
    from cardenv.train.trainer import check_run, train

    try:
        check_run(config)  # the run folder too: nothing is written or built before every check passed
    except (FileExistsError, FileNotFoundError, TypeError, ValueError) as error:
        raise UsageError(str(error)) from None
    summary = train(config)
    print(json.dumps({k: v for k, v in summary.items() if k != "evaluation_table"}, indent=2, default=str))
    print(summary["evaluation_table"])
    return 0


# --- rate ----------------------------------------------------------------------------------
def _add_rate(sub) -> None:
    from cardenv.rating.protocol import PROTOCOL, PROTOCOLS

    p = sub.add_parser(
        "rate", help="one rating for an agent: its games against a fixed, versioned ladder of reference agents",
        description=f"Rate an agent on the rating protocol: it plays against three copies of every rung of the "
                    f"protocol's ladder ({', '.join(PROTOCOL.rungs)}), on the deals and seats the rungs played, "
                    f"and gets one rating with its 95% interval ({PROTOCOL.zero} = 0, {PROTOCOL.thousand} = "
                    f"1000). The same command gives the same score card.",
        formatter_class=_DefaultsFormatter)
    p.add_argument("ruleset", nargs="?", help=RULESETS_HELP + " (or --rulesets)")
    p.add_argument("--rulesets", nargs="+", metavar="RULESET",
                   help="several rulesets, one card over them; 'all' for every ruleset")
    p.add_argument("--agent", required=True, help="the candidate's spec, as for cardenv eval")
    p.add_argument("--quick", action="store_true",
                   help="only the rungs that do not search, on fewer deals: a wider interval, minutes not hours")
    p.add_argument("--protocol", default=PROTOCOL.version, choices=list(PROTOCOLS), help="the protocol version")
    p.add_argument("--workers", type=_positive, default=1,
                   help="processes playing the games (the results are those of one process)")
    p.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                   help="play the games as Ray tasks (the 'ray' extra), as for cardenv eval")
    p.add_argument("--exploit", action="store_true",
                   help="also train a best response against three copies of the agent (a fixed budget) and report "
                        "its win share: a lower bound on how exploitable the agent is")
    p.add_argument("--mini", action="store_true",
                   help="also the agent's exact exploitability on the ruleset's mini variant (OpenSpiel; the agent "
                        "must play that variant)")
    p.add_argument("--json", metavar="FILE", type=_output_file_or_stdout,
                   help="write the score card as JSON to FILE; with '-' the JSON alone goes to stdout")
    p.add_argument("--png", metavar="FILE", type=_output_file, help="draw the candidate on the ladder into FILE")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _run_rate(args) -> int:
    import importlib.util

    from cardenv.rating.ladder import ladder_rulesets
    from cardenv.rating.protocol import get_protocol

    if (args.ruleset is None) == (args.rulesets is None):
        raise UsageError("give one ruleset or --rulesets (not both)")
    rulesets = [args.ruleset] if args.ruleset else args.rulesets
    if rulesets == ["all"]:
        rulesets = ruleset_names()
    unknown = [name for name in rulesets if name not in ruleset_names()]
    if unknown:
        raise UsageError(f"unknown ruleset {unknown[0]!r}; {RULESETS_HELP}, or --rulesets all")
    check_specs([args.agent])
    require_extra("rate", "cardenv rate")
    if args.png and importlib.util.find_spec("matplotlib") is None:
        raise MissingExtra("--png: needs the 'rate' extra, which is not installed (no module named 'matplotlib'): "
                           "pip install 'cardenv[rate]'")
    protocol = get_protocol(args.protocol)
    rated = ladder_rulesets(protocol)
    unrated = [name for name in rulesets if name not in rated]
    if unrated:
        raise UsageError(f"rating protocol {protocol.version} has no ladder for {unrated[0]}; it has "
                         f"{', '.join(rated) or 'none'}")
    from cardenv.rating.rate import check_rate_args, rate, rating_command

    try:
        check_rate_args(rulesets, args.agent, protocol, args.exploit, args.mini)
    except ValueError as error:
        raise UsageError(str(error)) from None
    for ruleset in rulesets:
        check_agents([args.agent, *protocol.rungs], ruleset, {})
        if args.mini:  # the agent must also play the mini variant
            from cardenv.rulesets import mini_variants

            check_agents([args.agent], ruleset, mini_variants()[ruleset])
    _connect_ray(args)
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.set_num_threads(1)  # batch-1 inference (the ladder's ppo:pretrained): extra threads only spin
    from cardenv.rating.card import draw_cards, format_cards
    from cardenv.rating.rate import write_json

    report = sys.stderr if args.json == "-" else sys.stdout
    command = rating_command(rulesets, args.agent, args.quick, protocol, args.exploit, args.mini)
    cards = [rate(ruleset, args.agent, quick=args.quick, protocol=protocol, workers=args.workers,
                  ray_address=args.ray, progress=not args.no_progress, exploit=args.exploit, mini=args.mini,
                  command=command) for ruleset in rulesets]
    print(format_cards(cards), file=report)
    if args.json:
        write_json(cards, args.json)
    if args.png:
        draw_cards(cards, args.png)
    return 0


COMMANDS = {"eval": _run_eval, "compare": _run_compare, "rate": _run_rate, "play": _run_play, "replay": _run_replay,
            "train": _run_train}


def build_parser() -> _Parser:
    """The ``cardenv`` parser; ``.commands`` maps each subcommand to its parser (docs/generate.py
    tabulates their options)."""
    parser = _Parser(prog="cardenv", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"cardenv {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{eval,compare,rate,play,replay,train}",
                                parser_class=_Parser)
    _add_eval(sub)
    _add_compare(sub)
    _add_rate(sub)
    _add_play(sub)
    _add_replay(sub)
    _add_train(sub)
    parser.commands = dict(sub.choices)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (UsageError, MissingExtra) as error:
        print(f"cardenv {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"cardenv {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (e.g. `| head`) has gone: stop quietly, as Unix tools do.
        sys.stdout = open(os.devnull, "w")
        return 0


if __name__ == "__main__":
    sys.exit(main())
