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
from cardenv.agents.specs import AGENT_EXTRAS
from cardenv.cli import main
from cardenv.core.cards import CARD_NAMES
from cardenv.eval import run_tournament
from cardenv.core.extras import EXTRA_MODULES
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
    (["eval", "onefifty_v0", "--agent", "heuristic", "--field", "random", "random"], "--field needs 1 spec or 3"),
    (["eval", "onefifty_v0", "--agent", "heuristic", "--games", "0"], "--games: expected an integer of at least 1"),
    (["eval", "onefifty_v0", "--agent", "heuristic", "--workers", "two"], "--workers: expected an integer"),
    (["eval", "onefifty_v0"], "the following arguments are required: --agent"),
    (["train", "onefifty_v0", "--vec-env", "fast"], "argument --vec-env: invalid choice: 'fast'"),
    (["train", "onefifty_v0", "--opponent", "heuristic,random"], "--opponent needs one spec or 3"),
    (["train", "onefifty_v0", "--opponent", "heurstic"], "unknown agent 'heurstic'"),
    (["train", "onefifty_v0", "--guide", "heurstic"], "unknown agent 'heurstic'"),
    (["train", "onefifty_v0", "--clip-range", "0"], "clip_range must be a finite number greater than 0, got 0"),
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


@pytest.mark.parametrize("argv, message", USER_ERRORS, ids=[" ".join(a) for a, _ in USER_ERRORS])
def test_a_user_error_is_one_line_with_exit_status_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        sys.exit(main(argv))
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert message in lines[0]


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
