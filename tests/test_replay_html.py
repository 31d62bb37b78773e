"""The HTML replay in a real headless browser (Debian's chromium through selenium): who
sat in each seat and the result, step forward and back, jump with the slider or to a URL's
step, switch the viewing seat, and check every card the drawn table and the step's events
show against what that seat could know at that point of the game. A screenshot is kept
as a test artifact."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

import cardenv
from cardenv.core.cards import CARD_NAMES
from cardenv.eval import run_tournament
from cardenv.human.replay_html import write_html

RULESETS = [name for name in ("onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0") if hasattr(cardenv, name)]
ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("CARDENV_TEST_ARTIFACTS", ROOT / "test-artifacts"))


def knowledge_per_step(record):
    """Per step (start, then after each decision) and seat: the card names that seat may
    know — the engine's knowledge table and every card seen face up so far."""
    env = record.make_env()
    state = env.game
    steps = []

    def note():
        table = state.table
        names_face_up = {CARD_NAMES[t] for e in state.events for t in e.face_up_types}
        steps.append([
            {CARD_NAMES[table.card_types[c]] for c in range(table.num_cards) if table.knowledge.known[seat, c]}
            | names_face_up
            for seat in range(state.num_players)
        ])

    note()
    for _ in record.replay(env):
        note()
    return steps


def open_page(driver, url: str) -> None:
    """Load the page and wait until it has unpacked its frames."""
    driver.get(url)
    WebDriverWait(driver, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")


def shown_cards(driver) -> list[str]:
    return [e.get_attribute("data-card") for e in driver.find_elements(By.CSS_SELECTOR, "#table .card, #events .card")]


# Switch the page's view selector to every viewer in turn, as a person would (a change
# event on the select), and collect the cards each view shows: one round trip a step.
CARDS_OF_EVERY_VIEW = """
const select = document.getElementById("viewer");
const views = [];
for (let i = 0; i < select.options.length; i++) {
  select.value = String(i);
  select.dispatchEvent(new Event("change"));
  views.push({table: [...document.querySelectorAll("#table .card")].map(e => e.dataset.card),
              events: [...document.querySelectorAll("#events .card")].map(e => e.dataset.card)});
}
return views;
"""


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_html_replay_shows_each_seat_only_what_it_could_see(ruleset, browser, tmp_path):
    records = []
    run_tournament(ruleset, "heuristic", ["random_no_call"], games=1, seed=6, on_record=lambda g, r: records.append(r))
    record = records[0]
    page = tmp_path / "replay.html"
    write_html(record, page)
    assert "http://" not in page.read_text() and "https://" not in page.read_text()  # self-contained
    known = knowledge_per_step(record)
    open_page(browser, page.as_uri())
    viewer = Select(browser.find_element(By.ID, "viewer"))
    n = len(known[0])
    assert len(viewer.options) == n + 1 and viewer.first_selected_option.text == "every card face up"

    forward = browser.find_element(By.ID, "forward")
    back = browser.find_element(By.ID, "back")
    checked_steps = min(len(known) - 1, 60)
    hidden_seen = 0
    for step in range(checked_steps + 1):
        assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-step") == str(step)
        views = browser.execute_script(CARDS_OF_EVERY_VIEW)
        for seat in range(n):
            cards = views[seat]["table"] + views[seat]["events"]
            shown = set(cards) - {"??"}
            if "JK" in shown and known[step][seat] & {"RJ", "BJ"}:  # carte draws either joker as JK
                shown.discard("JK")
            assert shown <= known[step][seat], (
                f"step {step}: player_{seat}'s view shows {sorted(shown - known[step][seat])}")
            hidden_seen += cards.count("??")
        assert "??" not in views[n]["table"]  # every card face up
        forward.click()
    assert hidden_seen > 0
    assert browser.execute_script("return location.hash") == f"#step={checked_steps + 1}"
    back.click()
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-step") == str(checked_steps)
    browser.find_element(By.ID, "last").click()
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-step") == str(len(known) - 1)
    viewer.select_by_index(1)
    assert viewer.first_selected_option.text == "player_1" and "view of player_1" in browser.find_element(
        By.ID, "table").text

    # Who sat where, and how the game ended, as the engine replaying the record says.
    assert record.agents == ["heuristic"] + ["random_no_call"] * (n - 1)
    assert browser.find_element(By.ID, "seats").text == "seats: " + ", ".join(
        f"player_{p} {spec}" for p, spec in enumerate(record.agents))
    env = record.make_env()
    for _ in record.replay(env):
        pass
    winners = env.game.winners()
    result = browser.find_element(By.ID, "result").text
    assert result.startswith(f"result: player_{winners[0]} wins" if len(winners) == 1 else "result: "), result
    for p, (score, rank) in enumerate(zip(record.final_scores, env.game.ranks())):
        assert f"player_{p} {score} ({rank})" in result

    # The slider jumps to any step (dragging it fires input events), and follows the buttons.
    slider = browser.find_element(By.ID, "slider")
    assert slider.get_attribute("type") == "range" and slider.get_attribute("max") == str(len(known) - 1)
    assert slider.get_attribute("value") == str(len(known) - 1)  # after "last"
    middle = len(known) // 2
    browser.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));",
                           slider, middle)
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-step") == str(middle)
    assert browser.find_element(By.ID, "caption").text == f"decision {middle} of {len(record.actions)}"
    slider.send_keys(Keys.ARROW_RIGHT)  # the slider's own key moves one step, not two
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-step") == str(middle + 1)
    back.click()
    assert slider.get_attribute("value") == str(middle)
    # Every step has a URL: the page opens at its step, and follows a change of it.
    open_page(browser, page.as_uri() + "#step=3")
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-step") == "3"
    browser.execute_script("location.hash = '#step=5'")
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-step") == "5"
    assert browser.find_elements(By.CSS_SELECTOR, "#events div.now")  # the step's events, highlighted
    assert browser.find_element(By.CSS_SELECTOR, "#table svg").size["width"] > 600
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / f"replay_{ruleset}.png"))
