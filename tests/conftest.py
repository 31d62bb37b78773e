"""Shared helpers for the core and onefifty tests.

Slow tests (``@pytest.mark.slow``) are deselected by pyproject's ``addopts`` in a plain
``pytest`` run; ``pytest -m slow`` (the CI's separate step) runs them.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cardenv.core.cards import card_name, double_deck_with_jokers
from cardenv.core.table import EMPTY
from cardenv.games.onefifty import OneFiftyConfig, OneFiftyState

# carte_v0's 108 cards by name, for scenarios that place the whole deck.
DOUBLE_DECK = [card_name(int(t)) for t in double_deck_with_jokers()]


# --- a real browser -------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through selenium: Debian's chromium and its driver, installed here
    when missing (``.ci/install-chromium``, which ``.ci/run`` runs before the tests too)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        subprocess.run(["bash", str(Path(__file__).resolve().parent.parent / ".ci" / "install-chromium")], check=True)
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1300,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=shutil.which("chromedriver")))
    yield driver
    driver.quit()


# --- onefifty helpers ------------------------------------------------------------------
def new_state(num_players: int = 4, seed: int = 0, options: dict | None = None, **config) -> OneFiftyState:
    """An engine state with a seeded generator; ``options`` are the reset scenario keys."""
    return OneFiftyState(OneFiftyConfig(num_players=num_players, **config), np.random.default_rng(seed), options)


def play(state: OneFiftyState, *names: str) -> None:
    """Apply actions by their names, as the current player."""
    for name in names:
        state.apply(state.action_from_name(name))


def legal_names(state: OneFiftyState) -> set[str]:
    return {state.action_name(a) for a in state.legal_actions()}


def hand_names(state: OneFiftyState, player: int) -> list[str]:
    """Slot by slot: the card's name, or ``--`` for an emptied slot."""
    return ["--" if c == EMPTY else card_name(int(state.table.card_types[c])) for c in state.table.hands[player]]


def card_in_slot(state: OneFiftyState, player: int, slot: int) -> int:
    return state.table.hands[player][slot]


def knowers(state: OneFiftyState, card: int) -> set[int]:
    """The players who know the identity of physical card ``card``."""
    return set(np.flatnonzero(state.table.knowledge.known[:, card]).tolist())
