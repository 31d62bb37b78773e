"""``cardenv play`` driven through a pseudo-terminal, as a person would: a full seeded
game per ruleset, what is shown at each decision, and no card the seat could not know;
and driven through :func:`~cardenv.human.play.play` with a scripted reader: the help,
choice numbers that keep their meaning, and taking back a selection step."""

from __future__ import annotations

import io
import re
import sys

import pexpect
import pytest

import cardenv
from cardenv.core.cards import CARD_NAMES
from cardenv.envs.info import ruleset_info
from cardenv.human.play import ask, choose_action, play
from cardenv.human.records import GameRecord

RULESETS = [name for name in ("onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0") if hasattr(cardenv, name)]
PROMPT = "your choice> "
SEAT = 1
# A line of the choices list: "  166. snap select own slot 0" (the number is the action id).
CHOICE = re.compile(r"^ +(\d+)\. (.+)$", re.MULTILINE)


def drive(argv: list[str], answer, timeout: float = 60) -> list[str]:
    """Run ``cardenv play`` in a pseudo-terminal, answering every prompt with
    ``answer(screen_since_last_prompt)``; returns the screen chunks before each prompt
    and the last chunk (the game's end)."""
    child = pexpect.spawn(sys.executable, ["-m", "cardenv", "play", *argv], encoding="utf-8", timeout=timeout,
                          dimensions=(50, 200))
    chunks = []
    try:
        while child.expect_exact([PROMPT, pexpect.EOF]) == 0:
            chunks.append(child.before)
            child.sendline(answer(child.before))
        chunks.append(child.before)
    finally:
        child.close()
    assert child.exitstatus == 0, chunks[-1][-2000:]
    return chunks


def listed_choices(screen: str) -> dict[int, str]:
    """The last choices list on ``screen``: action id -> name as shown."""
    block = screen.rsplit("your choices:", 1)[1].split(PROMPT, 1)[0]
    return {int(number): name for number, name in CHOICE.findall(block)}


def first_choice(screen: str) -> str:
    return str(next(iter(listed_choices(screen))))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_full_game_at_the_terminal_shows_only_what_the_seat_may_see(ruleset, tmp_path):
    record_path = tmp_path / "game.json"
    chunks = drive([ruleset, "--seat", str(SEAT), "--seed", "3", "--ascii", "--save", str(record_path)],
                   first_choice)
    decisions, ending = chunks[:-1], chunks[-1]
    assert "game over. ranking" in ending and "game record saved" in ending
    assert "round 1 ends" in "".join(chunks)
    for screen in decisions:
        assert "your choices:" in screen and "view of player_1" in screen and "\x1b[" not in screen
        # The status in words: the turn counter against the round's cap, what the phase asks.
        assert re.search(r"\b(turn|go) \d+ of at most \d+ this round, ", screen), screen
        assert re.search(r"^now: [a-z]", screen, re.MULTILINE) and not re.search(r"\bphase [a-z_]+\b", screen)
        assert not re.search(r"\b(turn|go) \d+/\d+", screen)
    assert_rounds_and_events_read_apart("".join(chunks).replace("\r\n", "\n"))

    # Replay the record and list, before each of the seat's decisions, the card names the
    # seat may know: the engine's knowledge table and every card seen face up so far.
    record = GameRecord.load(record_path)
    assert record.agents[SEAT] == "human"
    env = record.make_env()
    state = env.game
    allowed = []

    def note():
        if not state.is_terminal and state.current_player == SEAT:
            known = state.table.knowledge.known[SEAT]
            names = {CARD_NAMES[state.table.card_types[c]] for c in range(state.table.num_cards) if known[c]}
            names.update(CARD_NAMES[t] for e in state.events for t in e.face_up_types)
            allowed.append(names)

    note()
    for _ in record.replay(env):
        note()
    assert len(allowed) == len(decisions) > 0
    hidden = 0
    for k, (screen, names) in enumerate(zip(decisions, allowed)):
        shown = set(re.findall(r"(?<![\w?])(?:10|[A2-9JQK])[SHDC](?!\w)|(?<![\w?])[RB]J(?!\w)", screen))
        assert shown <= names, f"decision {k} shows {sorted(shown - names)}, unknown to player_{SEAT}"
        hidden += screen.count("??")
    assert hidden > 0


def assert_rounds_and_events_read_apart(text: str) -> None:
    """"since your last decision:" only with events under it; a round's end as a summary,
    one line per player, then a blank line and the next round's heading."""
    assert text.count("since your last decision:") > 1
    assert not re.search(r"since your last decision:\n(?!  |\n=== round)", text)
    ends = [int(k) for k in re.findall(r"round (\d+) ends", text)]
    separated = re.findall(r"\n  round (\d+) ends \([^\n]*\):\n(?:    player_\d[^\n]*\n)+\n=== round (\d+) ===\n", text)
    assert len(ends) > 1 and [(int(a), int(b)) for a, b in separated] == [(k, k + 1) for k in ends[:-1]]
    assert text.count("=== round 1 ===\n") == 1


def test_answers_by_name_prefix_help_and_quit():
    answers = iter(["?", "zzz", "dr", "q"])
    chunks = drive(["cut_v0", "--seed", "1", "--seat", "3"], lambda screen: next(answers))
    text = "".join(chunks)
    assert "Answer with a choice's number" in text               # ?
    assert "no choice named 'zzz'" in text                       # an answer that picks nothing
    assert "player_3 draws" in text                              # 'dr' = draw
    assert "quit: the game is abandoned" in chunks[-1]           # q
    # On a terminal without --ascii: suit symbols and colour.
    assert re.search("[♠♥♦♣]", text) and re.search(r"\x1b\[[0-9;]*31m", text)  # red suits in red


def test_choose_action_reads_action_ids_names_and_unique_prefixes():
    names = {0: "pass", 3: "draw", 7: "discard drawn", 9: "call END"}
    legal = [3, 7, 9]
    assert choose_action(legal, names.get, "7", 10) == 7
    assert choose_action(legal, names.get, "CALL", 10) == 9
    assert choose_action(legal, names.get, "draw", 10) == 3
    assert "could be" in choose_action(legal, names.get, "d", 10)
    # A number keeps its meaning: one that is no choice now is refused, never another choice.
    assert choose_action(legal, names.get, "0", 10) == "0 (pass) is not a choice now; your choices are 3, 7, 9"
    assert choose_action(legal, names.get, "12", 10) == "no action 12: your choices are 3, 7, 9"


def test_an_action_answers_to_its_documented_name_too():
    """Choices show players by name ("player_2 (+1)"); the action table's own name, as the
    docs' tables write it, picks the same action."""
    env = cardenv.kaboom_v0.raw_env(num_players=4)
    env.reset(seed=0)
    state, seat = env.game, 1
    action = state.action_from_name("red 6: player +1 slot 0")
    shown = state.action_name_for(action, seat)
    assert shown != state.action_name(action)
    for answer in (shown, "red 6: player +1 slot 0", "RED 6: PLAYER +1 SLOT 0"):
        assert choose_action([action, action + 1], lambda a: state.action_name_for(a, seat), answer,
                             state.num_actions, also_named=state.action_name) == action


def test_play_through_a_pipe_works_without_a_terminal():
    import subprocess

    done = subprocess.run([sys.executable, "-m", "cardenv", "play", "cut_v0", "--seed", "2"], input="1\n1\n",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "quit: the game is abandoned" in done.stdout and "\x1b[" not in done.stdout


class Script:
    """A person's answers for :func:`play`: ``answer(screen)`` reads the screen printed
    since the game began and returns the next answer."""

    def __init__(self, answer):
        self.out = io.StringIO()
        self.answer = answer
        self.prompts = 0

    def __call__(self, prompt: str) -> str:
        self.out.write(prompt)  # as input() does
        self.prompts += 1
        if self.prompts > 400:
            raise AssertionError("the script never ended the game")
        return self.answer(self.out.getvalue())


def play_scripted(ruleset: str, answer, **kwargs) -> str:
    script = Script(answer)
    opponents = ["heuristic"] * (ruleset_info(ruleset).num_players - 1)
    assert play(ruleset, 0, opponents, 3, {}, read=script, out=script.out, **kwargs) == 0
    return script.out.getvalue()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_help_explains_the_rules_and_what_this_phases_choices_mean(ruleset):
    answers = iter(["?", "q"])
    text = play_scripted(ruleset, lambda screen: next(answers))
    help_shown = text.split(PROMPT)[1]
    env = getattr(cardenv, ruleset).raw_env()
    env.reset(seed=3)
    state = env.game
    assert state.rules_summary and state.rules_in_short() in help_shown
    assert f"docs/{ruleset.removesuffix('_v0')}.md" in help_shown
    # The phase of the decision, and every kind of choice in it with its meaning.
    choices = listed_choices(text.split(PROMPT)[0])
    now = re.search(r"^now: (.+)$", text.split(PROMPT)[0], re.MULTILINE).group(1)
    assert re.search(rf"Now \({re.escape(now)}; phase [a-z_]+\), your choices mean:", help_shown)
    for action in choices:
        assert state.action_table.specs[action].description in help_shown


@pytest.mark.parametrize("ruleset, option, value", [
    ("onefifty_v0", "target_score", 90), ("cut_v0", "target_score", 70), ("kaboom_v0", "target_score", 60),
    ("carte_v0", "starting_score", 80),
])
def test_the_rules_in_short_say_this_games_options(ruleset, option, value):
    texts = []
    for options in ({}, {option: value}):
        env = getattr(cardenv, ruleset).raw_env(**options)
        env.reset(seed=0)
        texts.append(env.game.rules_in_short())
    default = str(getattr(type(env.game.config)(), option))
    assert str(value) in texts[1] and str(value) not in texts[0]
    assert texts[1].count(default) == texts[0].count(default) - 1  # the option's place, not a fixed number


def test_choices_name_the_players_and_numbers_keep_their_meaning_across_phases():
    env = cardenv.kaboom_v0.raw_env()
    env.reset(seed=0, options={"hands": [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"],
                                         ["AD", "2D", "3D", "4D"], ["AC", "2C", "3C", "4C"]],
                               "draw_pile": ["6H"], "starter": 2})
    state = env.game
    env.step(state.action_from_name("draw"))
    env.step(state.action_from_name("discard drawn"))  # a red 6: K-04 picks other players' cards
    assert state.current_player == 2 and state.phase.name == "RED_SIX_FIRST"
    shown = []
    answers = iter(["?", "0", "RED 6: PLAYER_3 (+1) SLOT 0"])
    chosen = ask(state, 2, lambda prompt: next(answers), shown.append, None)
    text = "\n".join(shown)
    choices = listed_choices(text + "\n" + PROMPT)
    assert choices[state.action_table.id("red_six", 1, 1)] == "red 6: player_3 (+1) slot 1"
    assert choices[state.action_table.id("red_six", 0, 2)] == "red 6: player_0 (+2) slot 0"
    assert "K-04: red 6, pick another player's card" in text                # ? explains the power
    assert "0 (draw) is not a choice now" in text                           # the last phase's number
    assert state.action_name(chosen) == "red 6: player +1 slot 0"           # answered by the name shown


@pytest.mark.parametrize("ruleset", [r for r in RULESETS if getattr(cardenv, r).raw_env.state_class.selection_kinds])
def test_a_step_of_a_selection_in_progress_can_be_taken_back(ruleset, tmp_path):
    """Select a card when the game first offers it, take it back, and the decision is as
    before; the record is that of the game quit at that decision without selecting, and
    replays identically."""
    table = ruleset_info(ruleset).action_table
    kinds = getattr(cardenv, ruleset).raw_env.state_class.selection_kinds
    seen = {}

    def selections(choices: dict[int, str]) -> list[int]:
        return [a for a in choices if table.specs[a].kind in kinds]

    def answer(screen: str) -> str:
        choices = listed_choices(screen)
        if "before" not in seen:
            if not selections(choices):
                return str(next(iter(choices)))
            seen["before"], seen["selected"] = choices, selections(choices)[0]
            return str(seen["selected"])
        if "during" not in seen:
            seen["during"] = screen.rsplit("your choices:", 1)[1]
            return "u"
        seen["after"] = choices
        return "q"

    record_path = tmp_path / "game.json"
    text = play_scripted(ruleset, answer, save=str(record_path))
    selected_name = table.specs[seen["selected"]].name
    assert f"u. take back {selected_name}" in seen["during"]
    assert f"taken back: {selected_name}" in text
    assert seen["after"] == seen["before"]
    unselected_path = tmp_path / "unselected.json"
    play_scripted(ruleset, lambda screen: "q" if selections(listed_choices(screen)) else first_choice(screen),
                  save=str(unselected_path))
    record = GameRecord.load(record_path)
    assert record.actions == GameRecord.load(unselected_path).actions
    record.check()


def test_what_cannot_be_taken_back_is_said():
    answers = iter(["u", "q"])
    text = play_scripted("cut_v0", lambda screen: next(answers))
    assert "nothing to take back: cut_v0 has no selections, every choice takes effect at once" in text
