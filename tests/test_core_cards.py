"""Core: card codes, ASCII names, parsing, decks and points tables."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.core import cards
from cardenv.core.cards import (
    BLACK_JOKER,
    CARD_NAMES,
    RED_JOKER,
    card_name,
    card_type,
    copies_per_type,
    deck_with_jokers,
    double_deck_with_jokers,
    parse_card,
    parse_cards,
    points_table,
    rank_of,
    standard_deck,
    suit_of,
)


@pytest.mark.parametrize(
    "name, rank, suit",
    [("AS", 0, 0), ("2H", 1, 1), ("9D", 8, 2), ("10H", 9, 1), ("10C", 9, 3), ("JS", 10, 0), ("QS", 11, 0),
     ("KD", 12, 2)],
)
def test_card_codes_and_names(name, rank, suit):
    code = card_type(rank, suit)
    assert code == rank * 4 + suit
    assert card_name(code) == name
    assert parse_card(name) == code
    assert rank_of(code) == rank
    assert suit_of(code) == suit


def test_jokers():
    assert parse_card("RJ") == RED_JOKER == 52
    assert parse_card("BJ") == BLACK_JOKER == 53
    assert card_name(52) == "RJ" and card_name(53) == "BJ"
    assert rank_of(RED_JOKER) == rank_of(BLACK_JOKER) == 13
    assert suit_of(RED_JOKER) is None and suit_of(BLACK_JOKER) is None
    assert cards.IS_RED[RED_JOKER] and not cards.IS_RED[BLACK_JOKER]


def test_every_name_round_trips_and_is_unique():
    assert len(CARD_NAMES) == 54 == len(set(CARD_NAMES))
    for code in range(54):
        assert parse_card(card_name(code)) == code
    assert all(name.isascii() for name in CARD_NAMES)


def test_parse_is_lenient_about_case_and_spaces():
    assert parse_card(" qs ") == parse_card("QS")
    assert parse_card("10h") == parse_card("10H")
    assert parse_cards("AS 10H rj") == [0, parse_card("10H"), RED_JOKER]
    assert parse_cards(["KC", "2D"]) == [parse_card("KC"), parse_card("2D")]
    assert parse_cards("") == []


@pytest.mark.parametrize("bad", ["", "1S", "11H", "T H", "TH", "ZZ", "10", "S", "AX", "JJ", "10HH"])
def test_parse_errors_are_clear(bad):
    with pytest.raises(ValueError, match="not a card name"):
        parse_card(bad)


def test_jk_is_refused_naming_the_deck_jokers():
    """JK names both jokers in carte_v0's actions and observations; a card is RJ or BJ."""
    with pytest.raises(ValueError, match=r"^not a card name: 'jk'; expected .*'RJ' \(red\) or 'BJ' \(black\); "
                                         r"'JK' names a joker of either colour"):
        parse_card("jk")


def test_parse_cards_propagates_errors():
    with pytest.raises(ValueError):
        parse_cards("AS 1H")


@pytest.mark.parametrize("rank, suit", [(-1, 0), (13, 0), (0, 4), (0, -1)])
def test_card_type_rejects_non_standard(rank, suit):
    with pytest.raises(ValueError):
        card_type(rank, suit)


def test_red_and_black():
    for code in range(52):
        assert cards.IS_RED[code] == (card_name(code)[-1] in "HD")


def test_decks_and_copies():
    std = standard_deck()
    assert len(std) == 52 and sorted(std.tolist()) == list(range(52))
    assert (copies_per_type(std)[:52] == 1).all() and copies_per_type(std)[52:].sum() == 0

    jok = deck_with_jokers()
    assert len(jok) == 54
    assert (copies_per_type(jok) == 1).all()

    double = double_deck_with_jokers()
    assert len(double) == 2 * 52 + 4 == 108
    copies = copies_per_type(double)
    assert (copies[:52] == 2).all()
    assert copies[RED_JOKER] == 2 and copies[BLACK_JOKER] == 2
    assert copies.sum() == 108
    # a physical card's type is the deck entry at its id; decks are fresh arrays each call
    double[0] = 99
    assert double_deck_with_jokers()[0] == 0


def test_rank_table_matches_rank_of():
    assert cards.RANK_OF.tolist() == [rank_of(t) for t in range(54)]


def test_points_table_from_rule():
    def rule(t):
        if t >= 52:
            raise ValueError("no jokers here")
        return rank_of(t) + 1

    table = points_table(rule)
    assert table.dtype == np.int64 and len(table) == 54
    assert table[parse_card("AS")] == 1 and table[parse_card("KH")] == 13
    assert table[RED_JOKER] == 0 and table[BLACK_JOKER] == 0  # a rule that raises scores 0


def test_points_table_keeps_joker_values_a_rule_gives():
    table = points_table(lambda t: -1 if t >= 52 else 5)
    assert table[RED_JOKER] == -1 and table[0] == 5
