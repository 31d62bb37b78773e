"""``cardenv play --web``: the server's answers over its websocket (every message kind, bad
input, a closed page, a second page), where each action points on the table, and a whole
game of every ruleset played by clicks in a real headless browser (Debian's chromium
through selenium, installed as for the replay's test)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from aiohttp.test_utils import TestClient, TestServer
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from cardenv.cli import main
from cardenv.drawing.scene import Target, table_scene
from cardenv.drawing.svg import SvgTable
from cardenv.envs.info import make_raw_env
from cardenv.human.game import EventLog, PersonsGame
from cardenv.human.records import GameRecord
from cardenv.human.web import SECOND_PAGE, WebTable, seat_page
from cardenv.testing import check_leak_pairs
from tests.test_leak_pairs import RULESETS as LEAK_RULESETS
from tests.test_leak_pairs import rarely_ending

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ["onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0"]
# Short games for the browser: lower target scores (C-17, K-18), carte's players starting
# nearer to 0 and its rounds capped sooner.
SHORT = {"cut_v0": ["--env-arg", "target_score=30"], "kaboom_v0": ["--env-arg", "target_score=40"],
         "carte_v0": ["--env-arg", "starting_score=15", "--env-arg", "max_turns_per_round=40"]}


# --- where actions point ---------------------------------------------------------------
@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_legal_action_points_at_a_drawn_place_or_none(ruleset):
    """Through random games: each legal action's place (``action_target``) is a place the
    drawn table of the actor's view has, or None (a button); the kinds that must have a
    place (every kind with a slot) have one."""
    env = make_raw_env(ruleset)
    env.reset(seed=5)
    state = env.game
    rng = np.random.default_rng(5)
    kinds_with_place: dict[str, set] = {}
    while not state.is_terminal:
        p = state.current_player
        view = state.table_view(p, state.config.memory, recent_events=0)
        places = {shape.key for shape in table_scene(view) if isinstance(shape, Target)}
        for action in state.legal_actions():
            target = state.action_target(action)
            spec = state.action_table.specs[action]
            kinds_with_place.setdefault(spec.kind, set()).add(target is not None)
            if target is not None and not target.startswith("meld"):  # (the melds past room are not drawn)
                assert target in places, (spec.name, target, sorted(places))
            if spec.slot is not None:
                assert target is not None, spec.name
        env.step(int(rng.choice(state.legal_actions())))
        env.step_done_agents()
    assert all(len(seen) == 1 for seen in kinds_with_place.values()), kinds_with_place


def test_action_targets_name_the_seat_an_offset_points_at():
    """onefifty_v0 (O-11): the jack's target slot of the opponent one seat on is that
    seat's slot, counted from the actor; the draw and discard point at their piles."""
    env = make_raw_env("onefifty_v0")
    env.reset(seed=0)
    state = env.game
    table = state.action_table
    assert state.action_target(table.id("jack_target", 3, 1), seat=2) == "player_3 slot 3"
    assert state.action_target(table.id("jack_target", 0, 3), seat=2) == "player_1 slot 0"
    assert state.action_target(table.id("swap", 5), seat=2) == "player_2 slot 5"
    assert state.action_target(table.first("draw"), seat=0) == "draw pile"
    assert state.action_target(table.first("discard"), seat=0) == "discard pile"
    assert state.action_target(table.first("call"), seat=0) is None
    with pytest.raises(ValueError, match="action must be"):
        state.action_target(len(table), seat=0)
    with pytest.raises(ValueError, match="seat must be a seat from 0 to 3, got 7"):
        state.action_target(0, seat=7)


def test_carte_actions_point_at_hand_cards_melds_and_piles():
    env = make_raw_env("carte_v0")
    env.reset(seed=0)
    state = env.game
    table = state.action_table
    assert state.action_target(table.from_name("select QH"), seat=1) == "player_1 card QH"
    assert state.action_target(table.from_name("discard JK"), seat=1) == "player_1 card JK"
    assert state.action_target(table.from_name("add to meld 4"), seat=1) == "meld 4"
    assert state.action_target(table.from_name("draw stock"), seat=1) == "draw pile"
    assert state.action_target(table.from_name("draw pile"), seat=1) == "discard pile"
    assert state.action_target(table.from_name("say carte"), seat=1) is None


# --- the command line ------------------------------------------------------------------
@pytest.mark.parametrize("argv, error", [
    (["--port", "70000"], "argument --port: must be a port from 0 to 65535 (0: any free one), got '70000'"),
    (["--delay", "-1"], "argument --delay: must be a number of seconds from 0 to 60, got '-1'"),
    (["--seat", "4"], "--seat must be a seat from 0 to 3 for cut_v0 with 4 players, got 4"),
])
def test_bad_web_options_are_one_line_before_any_game(argv, error, capsys):
    try:
        status = main(["play", "cut_v0", "--web", "--no-browser", *argv])
    except SystemExit as stop:  # argparse's own errors
        status = stop.code
    assert status == 2
    captured = capsys.readouterr()
    assert captured.out == "" and error in captured.err and len(captured.err.strip().splitlines()) == 1


def test_a_port_in_use_is_one_line_before_any_game(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["play", "cut_v0", "--web", "--no-browser", "--port", str(port)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and f"--port {port} on 127.0.0.1 cannot be used" in captured.err


# --- the server over its websocket -----------------------------------------------------
class Page:
    """A page's websocket: the views and errors it got."""

    def __init__(self, socket):
        self.socket = socket

    async def next(self, kind: str | None = None) -> dict:
        while True:
            message = json.loads((await asyncio.wait_for(self.socket.receive(), 30)).data)
            if kind is None or message["type"] == kind:
                return message

    async def turn(self) -> dict:
        """The next view where the person chooses, or the game is over."""
        while True:
            view = await self.next("view")
            if view["choices"] or view["over"]:
                return view

    async def send(self, **message) -> None:
        await self.socket.send_str(json.dumps(message))


def run_server(ruleset: str, check, seed: int = 3, seat: int = 0, env_kwargs=None):
    """Run ``check(table, client)`` against a served game (agents random_no_call)."""
    async def main():
        game = PersonsGame(ruleset, seat, ["random_no_call"] * 3, seed, env_kwargs or {})
        table = WebTable(game, delay=0, say=lambda text: None)
        client = TestClient(TestServer(table.app()))
        await client.start_server()
        table.start_agents()
        try:
            await check(table, client)
        finally:
            await client.close()
            game.close()
    asyncio.run(main())


def test_the_page_is_served_with_the_table_and_card_chips():
    async def check(table, client):
        response = await client.get("/")
        text = await response.text()
        assert response.status == 200 and "onefifty_v0: you are player_0" in text
        assert "__" not in re.sub(r"__proto__", "", text)  # every placeholder filled
        assert "function cards(text)" in text and "viewBox" in text
    run_server("onefifty_v0", check)


def test_bad_messages_get_one_line_and_change_nothing():
    async def check(table, client):
        page = Page(await client.ws_connect("/ws"))
        view = await page.turn()
        legal = [c["action"] for c in view["choices"]]
        not_legal = next(a for a in range(table.game.state.num_actions) if a not in legal)
        taken = list(table.game.actions)
        for message, answer in [
            ({"type": "act", "action": not_legal, "version": view["version"]}, "is not a choice now"),
            ({"type": "act", "action": 9999, "version": view["version"]}, "no action 9999"),
            ({"type": "act", "action": "draw", "version": view["version"]}, "action must be an action id"),
            ({"type": "act", "action": True, "version": view["version"]}, "action must be an action id"),
            ({"type": "act", "action": legal[0], "version": view["version"] - 1}, "earlier table"),
            ({"type": "undo", "version": view["version"]}, "nothing to take back"),
        ]:
            await page.send(**message)
            error = await page.next()
            assert error["type"] == "error" and answer in error["message"], (message, error)
            again = await page.next("view")  # the table as it is, shown again
            assert again["version"] == view["version"] and again["choices"] == view["choices"]
        # Messages that are no act or undo: the error alone.
        await page.send(type="dance")
        assert "unknown message type 'dance'" in (await page.next("error"))["message"]
        await page.socket.send_str("not json")
        assert "must be JSON" in (await page.next("error"))["message"]
        assert table.game.actions == taken
    run_server("onefifty_v0", check)


def test_a_closed_page_loses_nothing_and_a_second_page_is_refused():
    async def check(table, client):
        first = Page(await client.ws_connect("/ws"))
        view = await first.turn()
        second = Page(await client.ws_connect("/ws"))
        refused = await second.next()
        assert refused == {"type": "refused", "message": SECOND_PAGE}
        # The first page plays on.
        await first.send(type="act", action=view["choices"][0]["action"], version=view["version"])
        after = await first.turn()
        assert after["version"] > view["version"]
        log = after["log_from"] + len(after["log"])
        await first.socket.close()
        await asyncio.sleep(0.1)
        # Opened again: the same moment, the whole log from the start, every card symbol.
        again = Page(await client.ws_connect("/ws"))
        resumed = await again.turn()
        assert resumed["version"] == after["version"] and resumed["choices"] == after["choices"]
        assert resumed["log_from"] == 0 and len(resumed["log"]) == log and resumed["defs"].count("<symbol") >= 1
    run_server("kaboom_v0", check)


def test_a_selection_step_is_taken_back():
    """carte_v0 (R-06): a selected card is taken back; the record never holds it."""
    async def check(table, client):
        page = Page(await client.ws_connect("/ws"))
        view = await page.turn()
        while not any(c["name"].startswith("select") for c in view["choices"]):
            await page.send(type="act", action=view["choices"][0]["action"], version=view["version"])
            view = await page.turn()
        taken = list(table.game.actions)
        select = next(c for c in view["choices"] if c["name"].startswith("select"))
        await page.send(type="act", action=select["action"], version=view["version"])
        selected = await page.turn()
        assert selected["undo"] == select["name"]
        await page.send(type="undo", version=selected["version"])
        undone = await page.turn()
        assert undone["undo"] is None and table.game.actions == taken
        assert {c["action"] for c in undone["choices"]} == {c["action"] for c in view["choices"]}
    run_server("carte_v0", check)


def test_a_whole_game_over_the_websocket_replays_from_its_record(tmp_path):
    async def check(table, client):
        page = Page(await client.ws_connect("/ws"))
        rng = np.random.default_rng(0)
        view = await page.turn()
        while not view["over"]:
            choice = view["choices"][rng.integers(len(view["choices"]))]
            await page.send(type="act", action=choice["action"], version=view["version"])
            view = await page.turn()
        assert view["now"].startswith("game over. ranking")
        assert table.ended.is_set()
        record = table.game.record()
        record.save(tmp_path / "game.json")
        loaded = GameRecord.load(tmp_path / "game.json")
        assert loaded.final_scores == list(table.game.state.scores) and loaded.agents[0] == "human"
    run_server("cut_v0", check)


class PageObserver:
    """``observe`` as a digest of all the page gets for a seat: the drawn table with its
    places, the status, the choices with their places, the help, and the log from the
    game's start (what ``check_leak_pairs`` compares)."""

    def observe(self, state, seat: int) -> np.ndarray:
        page = seat_page(state, seat, SvgTable(targets=True), ["random"] * state.num_players)
        page["log"] = EventLog(seat).new_lines(state)
        return np.frombuffer(hashlib.sha256(json.dumps(page).encode()).digest(), dtype=np.uint8)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_page_shows_a_seat_nothing_it_may_not_know(ruleset):
    """Leak pairs (``cardenv.testing.check_leak_pairs``): games that differ only in cards the
    seat cannot know send its page the same views at every step, for every seat."""
    config_class, state_class, _, oracle_class = LEAK_RULESETS[ruleset]
    config = config_class(num_players=3)

    def new_state(options: dict, engine_seed: int):
        return state_class(config, np.random.default_rng(engine_seed), options)

    compared = 0
    for seat in range(3):
        stats = check_leak_pairs(new_state, PageObserver(), oracle_class(), seat, np.random.default_rng(seat),
                                 pairs=4, decision_pairs=1 if ruleset != "onefifty_v0" else 0, choose=rarely_ending)
        compared += stats.compared_steps
    assert compared >= 3 * 4 * 4


# --- a whole game by clicks in the browser ---------------------------------------------
def start_server(ruleset: str, save: Path, seed: int) -> tuple[subprocess.Popen, str]:
    """``cardenv play RULESET --web`` as a person starts it, on a free port; its address."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cardenv", "play", ruleset, "--web", "--port", "0", "--no-browser", "--delay", "0",
         "--opponents", "random_no_call", "--seed", str(seed), "--save", str(save), *SHORT.get(ruleset, [])],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = process.stdout.readline()
    match = re.search(r"http://\S+/", line)
    assert match, line
    return process, match.group(0)


def body_state(driver) -> tuple[str, int]:
    state, version = driver.execute_script("return [document.body.dataset.state, document.body.dataset.version]")
    return state, int(version)


def wait_for_turn(driver, after: int) -> tuple[str, int]:
    """Wait until the page offers choices on a view after ``after``, or the game is over."""
    def ready(d):
        state, version = body_state(d)
        return (state, version) if state == "over" or (state == "choose" and version > after) else False
    return WebDriverWait(driver, 60, poll_frequency=0.05).until(ready)


# The page's choices, as the page itself holds them: (action, name, whether it has a place drawn).
CHOICES = """
const drawn = new Set([...document.querySelectorAll('#table rect.target')].map(r => r.dataset.target));
return view.choices.map(c => [c.action, c.name, c.target !== null && drawn.has(c.target) ? c.target : null]);
"""


def click_choice(driver, choice) -> None:
    """Take a choice as a person does: a click on its highlighted place (then on its line of
    the menu where several choices share the place), or on its button."""
    action, name, target = choice
    if target is None:
        driver.find_element(By.CSS_SELECTOR, f'#choices button[data-action="{action}"]').click()
        return
    places = driver.find_elements(By.CSS_SELECTOR, f'#table rect.target.choice[data-target="{target}"]')
    assert places, (name, target)
    places[0].click()
    menu = driver.find_element(By.ID, "menu")
    if menu.is_displayed():
        menu.find_element(By.CSS_SELECTOR, f'button[data-action="{action}"]').click()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_whole_game_by_clicks_in_the_browser(browser, ruleset, tmp_path):
    save = tmp_path / "game.json"
    process, address = start_server(ruleset, save, seed=21)
    try:
        browser.get(address)
        rng = np.random.default_rng(21)
        state, version = wait_for_turn(browser, -1)
        checked_bad_click = False
        decisions = undone = 0
        while state != "over":
            choices = browser.execute_script(CHOICES)
            if not checked_bad_click:
                # A click on a place that is no choice: one clear line, nothing sent.
                others = [r for r in browser.find_elements(By.CSS_SELECTOR, "#table rect.target")
                          if "choice" not in r.get_attribute("class")]
                if others:
                    others[0].click()
                    message = browser.find_element(By.ID, "message").text
                    assert message.startswith("that is not one of your choices now"), message
                    assert body_state(browser) == ("choose", version)
                    checked_bad_click = True
            decisions += 1
            if decisions == 2:
                # The help: the rules in short and what this phase's choices mean, shown and hidden.
                browser.find_element(By.ID, "help-button").click()
                help_text = browser.find_element(By.ID, "help").text
                assert f"{ruleset} in short" in help_text and "your choices mean:" in help_text, help_text
                browser.find_element(By.ID, "help-button").click()
                assert not browser.find_element(By.ID, "help").is_displayed()
            if decisions == 3:
                # The tab closed and opened again (a reload): the same moment of the game.
                browser.refresh()
                assert wait_for_turn(browser, -1) == (state, version)
            if decisions == 4:
                # A second tab is told the game is open elsewhere; the first plays on.
                first = browser.current_window_handle
                browser.switch_to.new_window("tab")
                browser.get(address)
                WebDriverWait(browser, 30).until(lambda d: body_state(d)[0] == "refused")
                assert "already open in another browser tab" in browser.find_element(By.ID, "now").text
                browser.close()
                browser.switch_to.window(first)
                assert body_state(browser) == (state, version)
            undo = browser.find_element(By.ID, "undo")
            if undo.is_displayed() and (not undone or rng.random() < 0.3):
                undo.click()  # take back the selection's last step
                undone += 1
                state, version = wait_for_turn(browser, version)
                continue
            placed = [c for c in choices if c[2] is not None]
            # Mostly by places (every kind of place gets clicked), buttons when they are all there is.
            pool = placed if placed and rng.random() < 0.8 else choices
            click_choice(browser, pool[rng.integers(len(pool))])
            state, version = wait_for_turn(browser, version)
        assert browser.find_element(By.ID, "now").text.startswith("game over. ranking")
        assert checked_bad_click and decisions > 4
        if ruleset != "cut_v0":  # (cut has no selections)
            assert undone > 0
        assert process.wait(timeout=30) == 0
        output = process.stdout.read()
        assert "game record saved to" in output, output
        record = GameRecord.load(save)
        env = record.make_env()
        for _ in record.replay(env):
            pass
        assert env.game.is_terminal and record.agents.count("human") == 1
    finally:
        process.kill()
        process.wait()
