"""The options the mini variants are made of: a smaller deck, a two-slot grid and a
fixed first starter (rules otherwise unchanged)."""

from __future__ import annotations

import numpy as np
import pytest

import cardenv
from cardenv.core.cards import parse_cards
from cardenv.games.carte import CarteConfig, CarteState
from cardenv.games.cut import CutConfig, CutState
from cardenv.games.kaboom import KaboomConfig, KaboomState
from cardenv.games.onefifty import OneFiftyConfig, OneFiftyState


def test_a_deck_option_deals_only_its_cards():
    state = CutState(CutConfig(num_players=2, initial_slots=2, deck="AS 5S 6S QS KS 2H 3H"), np.random.default_rng(0))
    assert sorted(state.table.card_types.tolist()) == sorted(parse_cards("AS 5S 6S QS KS 2H 3H"))
    state.table.check_every_card_once()
    assert len(state.table.draw_pile) == 7 - 2 * 2, "two slots each dealt, the rest to draw"


def test_two_initial_slots_deal_two_cards_and_show_the_lower_one():
    """C-03 with a grid of one card above another: each player sees the lower row, slot 1."""
    state = CutState(CutConfig(num_players=2, initial_slots=2), np.random.default_rng(3))
    for p in range(2):
        hand = state.table.hands[p]
        assert len(hand) == 2
        assert state.table.knowledge.known[p, hand[1]] and not state.table.knowledge.known[p, hand[0]]


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_first_starter_starts_round_one(seat):
    for seed in range(5):
        cut = CutState(CutConfig(num_players=3, first_starter=seat), np.random.default_rng(seed))
        assert cut.current_player == seat
        kaboom = KaboomState(KaboomConfig(num_players=3, first_starter=seat), np.random.default_rng(seed))
        assert kaboom.current_player == seat and kaboom.dealer == (seat - 1) % 3  # K-09


@pytest.mark.parametrize("options, error, message", [
    ({"deck": "AS AS AH 2S 2H 3S 3H 4S 4H"}, ValueError, "deck has more copies of AS than this ruleset's deck"),
    ({"deck": "AS ZZ"}, ValueError, "deck: not a card name: 'ZZ'"),
    ({"deck": ["AS"]}, TypeError, "deck must be card names separated by spaces"),
    ({"deck": "AS 2S 3S", "num_players": 2}, ValueError,
     "deck has 3 cards; 2 players with initial_slots=4 need at least 9"),
    ({"deck": "RJ AS 2S 3S 4S 5S 6S 7S 8S"}, ValueError, "deck has more copies of RJ"),
    ({"initial_slots": 3}, ValueError, "initial_slots must be one of 4, 2, got 3"),
    ({"first_starter": 4}, ValueError, "first_starter must be a seat from 0 to 3, or -1"),
])
def test_bad_mini_options_are_one_clear_error(options, error, message):
    with pytest.raises(error, match=message):
        cardenv.cut_v0.env(**options)


def test_kaboom_decks_may_hold_jokers():
    state = KaboomState(KaboomConfig(num_players=2, deck="RJ BJ AS 2S 3S 4S 5S 6S 7S"), np.random.default_rng(0))
    assert sorted(state.table.card_types.tolist()) == sorted(parse_cards("RJ BJ AS 2S 3S 4S 5S 6S 7S"))


def test_carte_hand_size_and_deck_deal_only_those_cards():
    """R-03 with hand_size cards each, then one face up; the rest is the stock."""
    config = CarteConfig(num_players=2, hand_size=3, deck="5S 5S 5H 5H 6H 6H 7H 7H")
    state = CarteState(config, np.random.default_rng(0))
    assert sorted(state.table.card_types.tolist()) == sorted(parse_cards("5S 5S 5H 5H 6H 6H 7H 7H"))
    for p in range(2):  # a player sees their own hand
        assert all(state.table.knowledge.known[p, card] for card in state.table.hands[p])
    assert [len(hand) for hand in state.table.hands] == [3, 3]
    assert len(state.table.discard_pile) == 1 and len(state.table.draw_pile) == 1
    state.table.check_every_card_once()


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_carte_first_starter_takes_the_first_go(seat):
    for seed in range(5):
        state = CarteState(CarteConfig(num_players=3, first_starter=seat), np.random.default_rng(seed))
        assert state.current_player == seat and state.dealer == (seat - 1) % 3


@pytest.mark.parametrize("options, error, message", [
    ({"deck": "5S 5S 5S 5H 6H 6H 7H 7H"}, ValueError, "deck has more copies of 5S than this ruleset's deck"),
    ({"deck": "5S 5S 5H 5H 6H 6H 7H", "num_players": 2, "hand_size": 3}, ValueError,
     "deck has 7 cards; 2 players with hand_size=3 need at least 8"),
    ({"hand_size": 11}, ValueError, "hand_size must be"),
    ({"hand_size": 0}, ValueError, "hand_size must be"),
    ({"first_starter": 4}, ValueError, "first_starter must be a seat from 0 to 3, or -1"),
])
def test_bad_carte_mini_options_are_one_clear_error(options, error, message):
    with pytest.raises(error, match=message):
        cardenv.carte_v0.env(**options)


def test_onefifty_deals_one_card_each_seen_by_its_owner():
    """150 also accepts a one-card grid (its mini variant): the card is its lower row (O-05)."""
    state = OneFiftyState(OneFiftyConfig(num_players=3, initial_slots=1, deck="AS 5S JS QS KS"),
                          np.random.default_rng(2))
    for p in range(3):
        (card,) = state.table.hands[p]
        assert state.table.knowledge.known[:, card].tolist() == [q == p for q in range(3)]
    assert len(state.table.draw_pile) == 2
    with pytest.raises(ValueError, match="initial_slots must be one of 4, 2, got 1"):
        cardenv.cut_v0.env(initial_slots=1)
    with pytest.raises(ValueError, match="deck has 3 cards; 3 players with initial_slots=1 need at least 4"):
        cardenv.onefifty_v0.env(num_players=3, initial_slots=1, deck="AS 5S JS")
