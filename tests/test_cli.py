"""The ``cardenv`` command: one-line user errors with exit status 2, pipeable JSON,
saved games that replay, seats' views that show nothing hidden, ``--version`` and
``python -m cardenv``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types

import pytest

import cardenv
from cardenv.agents.pretrained import pretrained_model_path
from cardenv.agents.specs import AGENT_EXTRAS
from cardenv.cli import main
from cardenv.core.cards import CARD_NAMES
from cardenv.core.extras import EXTRA_MODULES
from cardenv.eval import run_tournament
from cardenv.human.records import GameRecord, RecordError

RULESETS = [name for name in ("onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0") if hasattr(cardenv, name)]

USER_ERRORS = [
    (["eval", "onefity_v0", "--agent", "heuristic"], "unknown ruleset 'onefity_v0'; rulesets are"),
    (["eval", "onefifty_v0", "--agent", "heurstic"], "unknown agent 'heurstic'; agents are random,"),
    (["eval", "onefifty_v0", "--agent", "heuristic", "--env-arg", "num_player=3"],
     "unknown option 'num_player'; accepted options:"),
    (["eval", "onefifty_v0", "--agent", "heuristic", "--env-arg", "num_players=9"], "num_players must be"),
    (["eval", "onefifty_v0", "--agent", "heuristic", "--env-arg", "num_players"], "expects KEY=VALUE, got"),
    (["eval", "onefifty_v0", "--agent", "ppo:missing.zip"], "ppo model file 'missing.zip' does not exist"),
    (["eval", "onefifty_v0", "--agent", "ppo"], "the ppo agent needs a model file"),
    (["eval", "onefifty_v0", "--agent", "ismcts:many"], "ismcts simulations must be an integer of at least 1"),
    (["eval", "onefifty_v0", "--agent", "random:3"], "agent 'random' takes no argument"),
    (["eval", "onefifty_v0", "--agent", "heuristic", "--field", "random", "random"],
     "--field needs one spec, or 3 comma-separated specs (one per other seat), for onefifty_v0 with 4 players; got 2"),
    (["eval", "onefifty_v0", "--agent", "heuristic", "--field", "random,random"], "--field needs one spec, or 3"),
    (["eval", "onefifty_v0", "--agent", "heuristic", "--field", "heuristic,heurstic,random"],
     "unknown agent 'heurstic'"),
    (["play", "onefifty_v0", "--opponents", "random,random"], "--opponents needs one spec, or 3 comma-separated"),
    (["play", "cut_v0", "--env-arg", "num_players=2", "--opponents", "random,random"],
     "--opponents needs one spec (for the one other seat) for cut_v0 with 2 players; got 2: 'random,random'"),
    (["eval", "onefifty_v0", "--agent", "heuristic", "--games", "0"], "--games: expected an integer of at least 1"),
    (["eval", "onefifty_v0", "--agent", "heuristic", "--workers", "two"], "--workers: expected an integer"),
    (["eval", "onefifty_v0"], "the following arguments are required: --agent"),
    (["train", "onefifty_v0", "--vec-env", "fast"], "argument --vec-env: invalid choice: 'fast'"),
    (["train", "onefifty_v0", "--opponent", "heuristic,random"], "--opponent needs one spec, or 3 comma-separated"),
    (["train", "onefifty_v0", "--opponent", "heurstic"], "unknown agent 'heurstic'"),
    (["train", "onefifty_v0", "--guide", "heurstic"], "unknown agent 'heurstic'"),
    (["train", "onefifty_v0", "--env-arg", "memory=total"], "memory must be one of"),
    (["replay", "/nonexistent/game.json"], "cannot read game record"),
    (["replay", "/nonexistent/game.json", "--viewer", "player_1", "--omniscient"], "not allowed with argument"),
    (["replay", "/nonexistent/game.json", "--html", "x.html", "--step"], "not allowed with argument --html"),
    # Output paths are checked before anything runs: no game is played, no work is lost.
    (["eval", "onefifty_v0", "--agent", "heuristic", "--games", "4", "--no-progress", "--json",
      "/nonexistent/dir/r.json"], "argument --json: cannot write '/nonexistent/dir/r.json': no directory"),
    (["eval", "onefifty_v0", "--agent", "heuristic", "--games", "4", "--no-progress", "--json", "/"],
     "argument --json: cannot write '/': it is a directory"),
    (["eval", "onefifty_v0", "--agent", "heuristic", "--games", "4", "--no-progress", "--save-games", "/proc/x"],
     "argument --save-games: cannot write into '/proc/x': '/proc' takes no new files"),
    (["play", "onefifty_v0", "--save", "/nonexistent/g.json"], "argument --save: cannot write '/nonexistent/g.json'"),
    (["replay", "/nonexistent/game.json", "--html", "/nonexistent/x.html"],
     "argument --html: cannot write '/nonexistent/x.html'"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
]


def assert_user_error(argv: list[str], message: str, capsys) -> None:
    """``cardenv ARGV`` fails with exit status 2 and one line on stderr that says ``message``."""
    with pytest.raises(SystemExit) as exit_info:
        sys.exit(main(argv))
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert message in lines[0]


@pytest.mark.parametrize("argv, message", USER_ERRORS, ids=[" ".join(a) for a, _ in USER_ERRORS])
def test_a_user_error_is_one_line_with_exit_status_2(argv, message, capsys):
    assert_user_error(argv, message, capsys)


# Every option of cardenv train with a bad value: the one-line error names the option (as
# a flag), the value and what is accepted, and nothing is written (the run folder is not
# made, so the corrected command runs).
TRAIN_ERRORS = [
    (["--learning-rate", "-1"], "--learning-rate must be a finite number greater than 0 and at most 1, got -1.0"),
    (["--learning-rate", "nan"], "--learning-rate must be a finite number greater than 0 and at most 1, got nan"),
    (["--gamma", "2"], "--gamma must be a finite number at least 0 and at most 1, got 2.0"),
    (["--gae-lambda", "5"], "--gae-lambda must be a finite number at least 0 and at most 1, got 5.0"),
    (["--clip-range", "0"], "--clip-range must be a finite number greater than 0 and at most 1, got 0.0"),
    (["--ent-coef", "-1"], "--ent-coef must be a finite number at least 0, got -1.0"),
    (["--net-arch", "64", "0"], "--net-arch must be a list of layer sizes, each an integer of at least 1, got 0"),
    (["--batch-size", "1"], "--batch-size must be an integer from 2 to 2048 (the rollout, --n-steps × --n-envs"),
    (["--batch-size", "4096"], "--batch-size must be an integer from 2 to 2048"),
    (["--n-steps", "1", "--n-envs", "1"],
     "a rollout (--n-steps × --n-envs = 1 × 1 = 1 learner step) must hold at least 2"),
    (["--n-steps", "0"], "--n-steps must be an integer of at least 1, got 0"),
    (["--n-envs", "0"], "--n-envs must be an integer of at least 1, got 0"),
    (["--n-epochs", "0"], "--n-epochs must be an integer of at least 1, got 0"),
    (["--total-timesteps", "0"], "--total-timesteps must be an integer of at least 1, got 0"),
    (["--batch-size", "7", "--total-timesteps", "600"],
     "--total-timesteps must be an integer of at least 2,048 (one rollout, --n-steps × --n-envs = 256 × 8"),
    (["--seed", "-1"], "--seed must be an integer of at least 0, got -1"),
    (["--eval-every", "-1"], "--eval-every must be an integer of at least 0, got -1"),
    (["--eval-games", "0"], "--eval-games must be an integer of at least 1, got 0"),
    (["--checkpoint-every", "-5"], "--checkpoint-every must be an integer of at least 0, got -5"),
    (["--final-eval-games", "0"], "--final-eval-games must be an integer of at least 1, got 0"),
    (["--final-eval-fields", "heurstic"], "unknown agent 'heurstic'"),
    (["--snapshot-every", "0"], "--snapshot-every must be an integer of at least 1, got 0"),
    (["--pool-size", "0"], "--pool-size must be an integer of at least 1, got 0"),
    (["--frame-stack", "0"], "--frame-stack must be an integer of at least 1, got 0"),
    (["--frame-encoder", "gru"], "--frame-encoder gru reads a frame stack: it needs --frame-stack 2 or more"),
    (["--frame-encoder-size", "0"], "--frame-encoder-size must be an integer of at least 1, got 0"),
    (["--warm-start", "heurstic"], "unknown agent 'heurstic'"),
    (["--warm-start-decisions", "0"], "--warm-start-decisions must be an integer of at least 1, got 0"),
    (["--warm-start-epochs", "0"], "--warm-start-epochs must be an integer of at least 1, got 0"),
    (["--warm-start-explore", "2"], "--warm-start-explore must be a finite number at least 0 and at most 1, got 2.0"),
    (["--kl-to-warm-start", "-1"], "--kl-to-warm-start must be a finite number at least 0, got -1.0"),
    (["--kl-to-warm-start", "1"], "--kl-to-warm-start pulls toward the cloned policy: it needs --warm-start AGENT"),
    (["--critic-warmup-steps", "-1"], "--critic-warmup-steps must be an integer of at least 0, got -1"),
    (["--guide-weight", "inf"], "--guide-weight must be a finite number, got inf"),
    (["--guide", "heurstic"], "unknown agent 'heurstic'"),
    (["--opponent", "heuristic,random"], "--opponent needs one spec, or 3 comma-separated specs"),
    (["--opponent", "heuristic|selfply"], "unknown agent 'selfply'"),
    (["--opponent", f"ppo:{pretrained_model_path('cut_v0')}"], "was trained for observations"),
    (["--vec-env", "fast"], "argument --vec-env: invalid choice: 'fast'"),
    (["--resume"], "--resume: {out} holds no training run to continue"),
    (["--resume", "--overwrite"], "resume and overwrite exclude each other"),
    (["--env-arg", "num_players=9"], "num_players must be"),
]


@pytest.mark.parametrize("options, message", TRAIN_ERRORS, ids=[" ".join(o) for o, _ in TRAIN_ERRORS])
def test_every_train_option_is_checked_before_anything_is_written(options, message, tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_info:
        sys.exit(main(["train", "onefifty_v0", "--output-dir", str(out), *options]))
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert message.format(out=out) in lines[0]
    assert not out.exists()


def test_train_options_are_the_configs_own_checks_for_python_users_too():
    from cardenv.train.config import TrainConfig

    with pytest.raises(ValueError, match="learning_rate must be a finite number greater than 0 and at most 1"):
        TrainConfig(learning_rate=-1.0)
    with pytest.raises(ValueError, match=r"batch_size must be an integer from 2 to 256 \(the rollout, n_steps × n_"):
        TrainConfig(n_steps=64, n_envs=4)
    with pytest.raises(TypeError, match="gamma must be a finite number"):
        TrainConfig(gamma="0.9")
    with pytest.raises(ValueError, match="opponent needs one spec, or 3 comma-separated"):
        TrainConfig(opponent="heuristic,random").check_setup()
    # A run is rounded up to whole rollouts (and the trainer says so); less than one rollout is refused.
    config = TrainConfig(total_timesteps=3000, n_steps=64, n_envs=4, batch_size=64)
    assert config.planned_timesteps() == 3072 and config.planned_timesteps(already=3000) == 3000
    assert config.planned_timesteps(already=2900) == 2900 + 256
    with pytest.raises(ValueError, match=r"total_timesteps must be an integer of at least 2,048 \(one rollout, "
                                         r"n_steps × n_envs = 256 × 8; lower n_steps or n_envs for a shorter run\), "
                                         r"got 600"):
        TrainConfig(total_timesteps=600)
    assert TrainConfig(total_timesteps=600, n_steps=64, n_envs=2, batch_size=64).planned_timesteps() == 640
    assert TrainConfig().planned_timesteps() == 200_704 == TrainConfig().total_timesteps  # 98 whole rollouts
    assert TrainConfig().planned_timesteps(2048) == 200_704


def test_a_bad_output_dir_for_train_is_one_line(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    assert main(["train", "onefifty_v0", "--output-dir", "/proc/run"]) == 2
    captured = capsys.readouterr().err.strip().splitlines()
    assert len(captured) == 1 and "--output-dir: cannot write into '/proc/run'" in captured[0]
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.json").write_text("{}")
    assert main(["train", "onefifty_v0", "--output-dir", str(tmp_path / "run")]) == 2
    assert "already holds a training run; pass --resume" in capsys.readouterr().err


def test_the_field_takes_specs_separated_by_commas_or_spaces(capsys):
    runs = []
    for field in (["heuristic,heuristic,random"], ["heuristic", "heuristic", "random"],
                  ["heuristic,heuristic", "random"]):
        assert main(["eval", "onefifty_v0", "--agent", "random", "--field", *field, "--games", "4", "--no-progress",
                     "--json", "-"]) == 0
        runs.append(json.loads(capsys.readouterr().out))
    assert [run["field"] for run in runs] == [["heuristic", "heuristic", "random"]] * 3
    assert runs[0]["win_share"] == runs[1]["win_share"] == runs[2]["win_share"]
    # run_tournament reads the same syntax.
    result = run_tournament("onefifty_v0", "random", "heuristic,heuristic,random", 4)
    assert result.field == ["heuristic", "heuristic", "random"] and result.win_share == runs[0]["win_share"]


def test_no_help_says_its_default_twice_or_an_empty_one(capsys):
    from cardenv.cli import build_parser

    for command, parser in build_parser().commands.items():
        text = " ".join(parser.format_help().split())
        assert "(default: None)" not in text and "(default: False)" not in text, command
        assert "(default: [])" not in text and "(default: )" not in text, command
        assert not re.search(r"\(default:[^)]*\) \(default:", text), command
    assert "--seed SEED seed of the game (default: a fresh one) --env-arg" in " ".join(
        build_parser().commands["play"].format_help().split())


def test_json_to_stdout_is_the_json_alone(capsys):
    assert main(["eval", "cut_v0", "--agent", "heuristic", "--games", "4", "--no-progress", "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["games"] == 4 and "outcomes" not in json.loads(captured.out)
    assert "win share" in captured.err
    assert main(["eval", "cut_v0", "--agent", "heuristic", "--games", "4", "--no-progress", "--json", "-",
                 "--with-games"]) == 0
    outcomes = json.loads(capsys.readouterr().out)["outcomes"]
    assert [o["candidate_seat"] for o in outcomes] == [0, 1, 2, 3]


@pytest.mark.parametrize("extra, argv", [
    ("rllib", ["eval", "onefifty_v0", "--agent", "rllib:{tmp}"]),
    ("ray", ["eval", "onefifty_v0", "--agent", "heuristic", "--games", "4", "--no-progress", "--ray"]),
    ("ppo", ["eval", "onefifty_v0", "--agent", "ppo:pretrained", "--games", "4", "--no-progress"]),
    ("train", ["train", "onefifty_v0", "--total-timesteps", "64"]),
    ("web", ["play", "cut_v0", "--web", "--no-browser"]),
])
def test_a_missing_extra_is_one_line_naming_it(extra, argv, tmp_path, monkeypatch, capsys):
    """As without the extra installed (its module and every package above it unimportable),
    whatever this test environment has."""
    extra = AGENT_EXTRAS.get(extra, extra)
    parts = EXTRA_MODULES[extra].split(".")
    for k in range(1, len(parts) + 1):
        monkeypatch.setitem(sys.modules, ".".join(parts[:k]), None)
    assert main([arg.format(tmp=tmp_path) for arg in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1, captured.err
    assert f"needs the {extra!r} extra" in captured.err and f"pip install 'cardenv[{extra}]'" in captured.err


def test_games_rounded_up_to_whole_rotations_are_announced(tmp_path, capsys):
    games = tmp_path / "new" / "games"  # made, parents too
    assert main(["eval", "onefifty_v0", "--agent", "heuristic", "--games", "3", "--no-progress",
                 "--save-games", str(games)]) == 0
    out = capsys.readouterr().out
    assert "playing 4 games, not 3: whole rotations of the 4 seats" in out
    assert len(list(games.glob("game_*.json"))) == 4
    assert main(["eval", "onefifty_v0", "--agent", "heuristic", "--games", "3", "--no-progress", "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["games"] == 4 and "playing 4 games, not 3" in captured.err
    assert main(["eval", "onefifty_v0", "--agent", "heuristic", "--games", "4", "--no-progress"]) == 0
    assert "playing" not in capsys.readouterr().out


def test_replay_to_html_writes_the_page_instead_of_the_text(tmp_path, capsys):
    run_tournament("cut_v0", "heuristic", ["random_no_call"], games=1, seed=2,
                   on_record=lambda g, r: r.save(tmp_path / "game.json"))
    page = tmp_path / "game.html"
    assert main(["replay", str(tmp_path / "game.json"), "--html", str(page)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "replays identically" in lines[0] and lines[1] == f"wrote {page}"
    assert "<html" in page.read_text()
    assert main(["replay", str(tmp_path / "game.json"), "--html", str(page), "--viewer", "player_1"]) == 2
    assert "--html writes every seat's view into the page" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["replay", str(tmp_path / "game.json"), "--html", str(tmp_path / "missing" / "game.html")])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "argument --html: cannot write" in captured.err  # before the replay


def test_version_and_python_dash_m():
    done = subprocess.run([sys.executable, "-m", "cardenv", "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"cardenv {cardenv.__version__}"
    done = subprocess.run([sys.executable, "-m", "cardenv", "eval", "--help"], capture_output=True, text=True,
                          check=True)
    assert "--save-games" in done.stdout and "``" not in done.stdout


def test_every_train_option_has_help_and_a_default(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = capsys.readouterr().out
    for flag in ("--opponent", "--total-timesteps", "--vec-env", "--resume", "--overwrite", "--net-arch"):
        assert flag in text
    assert text.count("(default:") >= 20


@pytest.mark.parametrize("ruleset", RULESETS)
def test_saved_games_replay_identically(ruleset, tmp_path, capsys):
    assert main(["eval", ruleset, "--agent", "heuristic", "--games", "2", "--seed", "5", "--no-progress",
                 "--save-games", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("game_*.json"))
    n = getattr(cardenv, ruleset).raw_env().config.num_players
    assert len(files) == n
    for path in files:
        record = GameRecord.load(path)
        assert record.ruleset == ruleset and sorted(record.agents) == sorted(["heuristic"] + ["random_no_call"] * (n - 1))
        record.check()
        capsys.readouterr()
        assert main(["replay", str(path), "--check-only"]) == 0
        assert "replays identically" in capsys.readouterr().out


def test_a_record_that_departs_from_its_game_is_refused(tmp_path):
    records = []
    run_tournament("onefifty_v0", "heuristic", ["random_no_call"], games=1, seed=2,
                   on_record=lambda g, r: records.append(r))
    record = records[0]
    record.save(tmp_path / "game.json")
    data = json.loads((tmp_path / "game.json").read_text())
    data["final_scores"][0] += 1
    with pytest.raises(RecordError, match="ends with scores"):
        GameRecord.from_dict(data).check()
    data = json.loads((tmp_path / "game.json").read_text())
    data["seed"] += 1
    with pytest.raises(RecordError):
        GameRecord.from_dict(data).check()
    with pytest.raises(RecordError, match="not a cardenv game record"):
        GameRecord.from_dict({"actions": []})
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(RecordError, match="is not JSON"):
        GameRecord.load(tmp_path / "bad.json")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_seats_replay_names_only_cards_that_seat_saw(ruleset, tmp_path, capsys):
    """Independent of the event descriptions: every card named in an event line of
    player_1's replay is one player_1 knew (the knowledge table) or saw face up, right
    after the decision that logged the event."""
    records = []
    run_tournament(ruleset, "random_no_call", ["random_no_call"], games=1, seed=4,
                   on_record=lambda g, r: records.append(r))
    record = records[0]
    path = tmp_path / "game.json"
    record.save(path)
    viewer = 1
    env = record.make_env()
    state = env.game
    may_name: list[set[str]] = []  # per event: the names player_1 may see then

    def note_new_events():
        known = state.table.knowledge.known[viewer]
        names = {CARD_NAMES[state.table.card_types[c]] for c in range(state.table.num_cards) if known[c]}
        names.update(CARD_NAMES[t] for e in state.events for t in e.face_up_types)
        may_name.extend([names] * (len(state.events) - len(may_name)))

    note_new_events()
    for _ in record.replay(env):
        note_new_events()
    capsys.readouterr()
    assert main(["replay", str(path), "--viewer", f"player_{viewer}"]) == 0
    event_lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]
    assert len(event_lines) == len(state.events)
    hidden = 0
    for line, names in zip(event_lines, may_name):
        named = {w.strip(",.()[]:") for w in line.split()} & set(CARD_NAMES)
        assert named <= names, f"player_{viewer} is shown {sorted(named - names)} in {line!r}"
        hidden += line.count("??")
    assert hidden > 0


def test_the_text_replay_names_the_players_choices_point_at(tmp_path, capsys):
    """As in `cardenv play` and the HTML page: "red 6: player_2 (+1) slot 0", not "player +1"."""
    records = []
    run_tournament("onefifty_v0", "heuristic", ["heuristic"], games=1, seed=1, env_kwargs={"num_players": 3},
                   on_record=lambda g, r: records.append(r))
    records[0].save(tmp_path / "game.json")
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "game.json")]) == 0
    choices = [line for line in capsys.readouterr().out.splitlines() if " chooses: " in line]
    assert choices and not any("player +" in line for line in choices)
    assert any(re.search(r"player_\d \(\+\d\)", line) for line in choices)


def test_a_folder_named_like_the_extras_module_is_no_extra(tmp_path, monkeypatch, capsys):
    """Ray leaves a session folder /tmp/ray; `python -m cardenv` run in /tmp without Ray
    imports it as an empty namespace package. That is not Ray: one line naming the extra,
    exit 2."""
    folder = types.ModuleType("ray")  # what such a folder imports as: a __path__, no __file__
    folder.__path__ = [str(tmp_path / "ray")]
    monkeypatch.setitem(sys.modules, "ray", folder)
    assert main(["eval", "onefifty_v0", "--agent", "heuristic", "--games", "4", "--no-progress", "--ray", "auto"]) == 2
    captured = capsys.readouterr()
    assert len(captured.err.strip().splitlines()) == 1
    assert "needs the 'ray' extra" in captured.err and "is only a folder" in captured.err


def test_env_args_read_literals_and_shell_booleans():
    from cardenv.train.config import parse_env_args

    assert parse_env_args(["meld_hints=true", "single_round=False", "num_players=3", "memory=none"]) == {
        "meld_hints": True, "single_round": False, "num_players": 3, "memory": "none"}
    assert parse_env_args(["deck=True"]) == {"deck": True} and parse_env_args(["memory=False"])["memory"] is False
