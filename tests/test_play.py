"""``cardenv play`` driven through a pseudo-terminal, as a person would: a full seeded
game per ruleset, what is shown at each decision, and no card the seat could not know."""

from __future__ import annotations

import re
import sys

import pexpect
import pytest

import cardenv
from cardenv.core.cards import CARD_NAMES
from cardenv.human.play import choose_action
from cardenv.human.records import GameRecord

RULESETS = [name for name in ("onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0") if hasattr(cardenv, name)]
PROMPT = "your choice> "
SEAT = 1


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


def first_choice(screen: str) -> str:
    return "1"


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


def test_answers_by_name_prefix_help_and_quit():
    answers = iter(["?", "zzz", "dr", "q"])
    chunks = drive(["cut_v0", "--seed", "1", "--seat", "3"], lambda screen: next(answers))
    text = "".join(chunks)
    assert "Answer with the number of a choice" in text          # ?
    assert "no choice named 'zzz'" in text                       # an answer that picks nothing
    assert "player_3 draws" in text                              # 'dr' = draw
    assert "quit: the game is abandoned" in chunks[-1]           # q
    # On a terminal without --ascii: suit symbols and colour.
    assert re.search("[♠♥♦♣]", text) and re.search(r"\x1b\[[0-9;]*31m", text)  # red suits in red


def test_choose_action_reads_numbers_names_and_unique_prefixes():
    names = {3: "draw", 7: "discard drawn", 9: "call END"}
    legal = list(names)
    assert choose_action(legal, names.get, "2") == 7
    assert choose_action(legal, names.get, "CALL") == 9
    assert choose_action(legal, names.get, "draw") == 3
    assert "could be" in choose_action(legal, names.get, "d")
    assert "no choice 4" in choose_action(legal, names.get, "4")


def test_play_through_a_pipe_works_without_a_terminal():
    import subprocess

    done = subprocess.run([sys.executable, "-m", "cardenv", "play", "cut_v0", "--seed", "2"], input="1\n1\n",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "quit: the game is abandoned" in done.stdout and "\x1b[" not in done.stdout
