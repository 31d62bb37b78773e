"""carte_v0's rules (docs/carte.md, R-01 … R-18) on stacked decks, one rule at a time."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.core.cards import parse_card
from cardenv.core.melds import JOKER, MELD_TYPE_NAMES, accepts, classify, completable
from cardenv.games.carte import CarteConfig, CarteState, Phase
from cardenv.games.carte.rules import CATCH_CARDS, HAND_SIZE, POINTS
from tests.conftest import DOUBLE_DECK, legal_names
from tests.conftest import play as act


def types(names: str) -> list[int]:
    return [MELD_TYPE_NAMES.index(n) for n in names.split()]


def new_game(hands, draw=(), discard=(), starter=0, **config) -> CarteState:
    config.setdefault("num_players", len(hands))
    options = {"hands": [h.split() if isinstance(h, str) else h for h in hands],
               "draw_pile": draw.split() if isinstance(draw, str) else list(draw),
               "discard_pile": discard.split() if isinstance(discard, str) else list(discard),
               "starter": starter}
    return CarteState(CarteConfig(**config), np.random.default_rng(0), options)


def hand(state: CarteState, player: int) -> list[str]:
    return sorted(state.meld_name(c) for c in state.table.hands[player])


def meld_text(state: CarteState, m: int) -> str:
    return state.describe_meld(m)


# --- R-09 … R-12: melds ------------------------------------------------------------------------
@pytest.mark.parametrize("cards", ["7H 7H 7S", "7H 7S 7D 7C", "7H 7H 7S 7S", "QH KH AH", "2C 3C 4C",
                                   "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", "7H JK JK",
                                   "5H JK 7H", "JK 5H 6H", "7H 7S JK JK"])
def test_valid_melds(cards):
    """R-09: sets of 3–4 of a rank (two identical cards allowed), runs of one suit, aces
    high, up to 2 … A; R-10: jokers in a set, a gap or an end; one real card + jokers is a set."""
    assert classify(types(cards)) is not None, cards


@pytest.mark.parametrize("cards", ["AH 2H 3H", "KH AH 2H", "7H 7H 7S 7S 7D", "7H 8S 9H", "7H 7H 8H",
                                   "JK JK JK", "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS JK", "5H 8H JK",
                                   "7H 8H 7S", "7H JK"])
def test_invalid_melds(cards):
    """R-09: A-2-3 and K-A-2 are no runs, a set holds at most 4, a run one suit with no
    repeats, every meld three cards; R-10: a meld needs a real card and a joker fills one gap only; runs cap at 13."""
    assert classify(types(cards)) is None, cards


def test_canonical_joker_placement():
    """R-11: gaps first, then the high end up to the ace, then the low end."""
    queen_king = classify(types("QH KH JK JK"))  # jokers stand for the ace and the jack
    assert (queen_king.low, queen_king.high) == (9, 12)
    gap = classify(types("5H 7H JK"))
    assert gap.positions[2] == 4 and (gap.low, gap.high) == (3, 5)  # JK = 6H
    high = classify(types("5H 6H JK"))
    assert (high.low, high.high) == (3, 5)  # JK = 7H
    at_ace = classify(types("KH AH JK"))
    assert (at_ace.low, at_ace.high) == (10, 12)  # JK = QH (no room above the ace)
    # a joker added to a run goes on the high end, else (at the ace) the low end.
    assert accepts(True, 1, 3, 5, 3, JOKER) == 6
    assert accepts(True, 1, 10, 12, 3, JOKER) == 9


def test_what_a_meld_accepts():
    """R-12: 5-6-JK(7) takes 4 and 8 and a joker, never a real 7 (no swapping, R-10); a set
    of 7s made of 7H JK JK takes 7s and jokers, not 8H; a full set takes nothing."""
    run = classify(types("5H 6H JK"))
    size = 3
    for name, expected in (("4H", True), ("8H", True), ("JK", True), ("7H", False), ("8S", False)):
        assert (accepts(True, run.key, run.low, run.high, size, types(name)[0]) is not None) is expected, name
    seven = classify(types("7H JK JK"))
    assert not seven.is_run
    assert accepts(False, seven.key, -1, -1, 3, types("7S")[0]) == 0
    assert accepts(False, seven.key, -1, -1, 3, types("8H")[0]) is None
    assert accepts(False, seven.key, -1, -1, 4, types("7S")[0]) is None  # at most 4


def test_completable_selection():
    """R-09 with the selection order (types ascending, jokers last): 7H can grow into a
    run with 8H 9H or a set with 7S; JK first never starts a meld."""
    hand = np.zeros(53, dtype=np.int64)
    for t in types("7H 8H 9H 7S JK"):
        hand[t] += 1
    sel = np.zeros(53, dtype=np.int64)
    sel[types("7H")[0]] = 1
    assert completable(sel, hand - sel, types("7H")[0])
    only_joker = np.zeros(53, dtype=np.int64)
    only_joker[JOKER] = 1
    assert not completable(only_joker, hand - only_joker, JOKER)


# --- R-01 … R-05: cards, deal, dealer, draw ----------------------------------------------------
def test_deck_deal_and_first_up_card():
    """R-01: 108 cards; R-03: ten each, one face up, the rest the stock; R-02: values."""
    state = CarteState(CarteConfig(num_players=4), np.random.default_rng(3))
    assert state.table.num_cards == 108
    assert [len(h) for h in state.table.hands] == [HAND_SIZE] * 4
    assert len(state.table.discard_pile) == 1 and len(state.table.draw_pile) == 108 - 41
    assert [POINTS[parse_card(n)] for n in ("AS", "KH", "QD", "JC", "10S", "2H", "RJ", "BJ")] == \
        [15, 10, 10, 10, 10, 2, 25, 25]


def test_dealer_rotates_skipping_players_out():
    """R-04: the player after the dealer starts; the deal moves clockwise past players out."""
    state = CarteState(CarteConfig(num_players=4), np.random.default_rng(5))
    first_dealer = state.dealer
    assert state.current_player == (first_dealer + 1) % 4
    state.eliminated[(first_dealer + 1) % 4] = True
    state.round_index += 1
    state._start_round(None)
    assert state.dealer == (first_dealer + 2) % 4
    assert state.current_player == (first_dealer + 3) % 4
    assert state.table.hands[(first_dealer + 1) % 4] == []  # not dealt in again


def test_draw_from_stock_or_pile():
    """R-05: the go starts with a draw: the top of the stock (seen by the drawer only) or
    the top of the pile (known to everyone to be in that hand)."""
    state = new_game(["2S 5H 9D", "3C 6C 10D"], draw="KD 4C", discard="8S")
    assert legal_names(state) == {"draw stock", "draw pile"}
    act(state, "draw pile")
    card = state.table.hands[0][-1]
    assert state.meld_name(card) == "8S" and state.table.knowledge.known[:, card].all()
    assert state.phase == Phase.PLAY
    state = new_game(["2S 5H 9D", "3C 6C 10D"], draw="KD 4C", discard="8S")
    act(state, "draw stock")
    card = state.table.hands[0][-1]
    assert state.meld_name(card) == "KD"
    assert state.table.knowledge.known[:, card].tolist() == [True, False]


# --- R-06 … R-08: a go ------------------------------------------------------------------------
def test_put_down_adds_and_started():
    """R-06: select cards then put down; the first meld makes the player started; a card
    that starts no meld and fits no meld on the table is not selectable."""
    state = new_game(["5H 6H 7H 9C 2D", "8H 4H JS QS KD"], draw="3S 9S 10C AD")
    act(state, "draw stock")  # 3S
    assert "select 5H" in legal_names(state) and "select 9C" not in legal_names(state)
    act(state, "select 5H", "select 6H", "select 7H")
    assert "put down" in legal_names(state)
    act(state, "put down")
    assert state.started[0] and meld_text(state, 0) == "5H 6H 7H"
    act(state, "discard 9C")
    act(state, "draw stock")  # player 1 draws 9S: not started, may not add 8H or 4H
    assert "select 8H" not in legal_names(state) and "select 4H" not in legal_names(state)
    act(state, "discard 9S")
    act(state, "draw stock")  # player 0 draws 10C: started, but no meld takes 2D, 3S or 10C
    assert not any(name.startswith("select") for name in legal_names(state))


def test_adding_to_another_players_meld_once_started():
    """R-06/R-12: player 1 adds to player 0's run only after putting down a meld of its own."""
    state = new_game(["5H 6H 7H 9C 2D", "8H JS JD JC KD 3C"], draw="3S 9S 10C AD")
    act(state, "draw stock", "select 5H", "select 6H", "select 7H", "put down", "discard 9C")
    act(state, "draw stock")  # 9S
    assert "select 8H" not in legal_names(state)
    act(state, "select JS", "select JD", "select JC", "put down")
    assert "select 8H" in legal_names(state)
    act(state, "select 8H")
    assert legal_names(state) == {"add to meld 0"}
    act(state, "add to meld 0")
    assert meld_text(state, 0) == "5H 6H 7H 8H"
    assert state.melds[0].owner == 0  # still player 0's meld


def test_joker_added_stands_canonically_and_never_moves():
    """R-11/R-12: a joker added to a run that ends at the ace goes on the low end; the
    real card it stands for is then not taken (R-10: no swapping)."""
    state = new_game(["QH KH AH 2C 3C", "JS JD JC RJ 4D"], draw="6S 9S 10C")
    act(state, "draw stock", "select AH", "select QH", "select KH", "put down", "discard 2C")
    assert meld_text(state, 0) == "QH KH AH"
    act(state, "draw stock")  # player 1, not started: the joker fits meld 0 but may not be added
    assert "select JK" not in legal_names(state)
    act(state, "select JS", "select JD", "select JC", "put down", "select JK")
    assert legal_names(state) == {"add to meld 0", "add to meld 1"}
    act(state, "add to meld 0")
    assert meld_text(state, 0) == "JK=JH QH KH AH"
    assert state._accepts(0, MELD_TYPE_NAMES.index("JH")) is None
    assert state._accepts(0, MELD_TYPE_NAMES.index("10H")) == 8


def test_pile_card_may_not_be_discarded():
    """R-07: the card taken from the pile may not be discarded in the same go; an identical
    copy may; a put-down or add that would leave the pile card alone is not allowed."""
    state = new_game(["7H 2C 9D", "3C 6C 10D"], draw="KD", discard="8S")
    act(state, "draw pile")
    names = legal_names(state)
    assert "discard 8S" not in names and {"discard 7H", "discard 2C", "discard 9D"} <= names
    state = new_game(["8S 2C 9D", "3C 6C 10D"], draw="KD", discard="8S")
    act(state, "draw pile")
    assert "discard 8S" in legal_names(state)  # the other 8S
    act(state, "discard 8S")
    kept = [c for c in state.table.hands[0] if state.meld_name(c) == "8S"]
    assert len(kept) == 1 and state.table.knowledge.known[:, kept[0]].all()  # the pile copy stayed
    # 5S 6S 7S would leave only the pile card 8C in hand, with nothing to discard.
    state = new_game(["5S 6S 7S", "3C 6C 10D"], draw="KD", discard="8C")
    act(state, "draw pile")
    assert not any(name.startswith("select") for name in legal_names(state))
    # With 8C part of the run it may be put down (and the player goes out, R-08).
    state = new_game(["5C 6C 7C", "3S 6S 10D"], draw="KD", discard="8C")
    act(state, "draw pile", "select 5C", "select 6C", "select 7C")
    assert "put down" not in legal_names(state)
    act(state, "select 8C", "put down")
    assert state.round_results[-1].reason == "player_0 went out"


def test_going_out_by_discarding_ends_the_round():
    """R-08: a player whose last card is discarded goes out and the round ends at once;
    R-16: the others subtract what they hold."""
    state = new_game(["5H 6H 7H 9C", "KS QD JC 2D 4D"], draw="3S 9S 8H", single_round=True)
    act(state, "draw stock", "select 5H", "select 6H", "select 7H", "put down", "say carte", "discard 9C")
    act(state, "draw stock", "discard 9S")
    act(state, "draw stock", "select 8H", "add to meld 0")  # player 0 holds 3S only
    assert not state.is_terminal
    act(state, "discard 3S")
    assert state.is_terminal and state.round_results[-1].reason == "player_0 went out"
    assert state.round_results[-1].points_added == (0, 36)
    assert state.scores == [100, 64] and state.winners() == [0]


# --- carte -------------------------------------------------------------------------
def test_saying_carte_only_with_two_cards_and_once():
    """R-13: legal exactly when holding two cards before the discard, once a round."""
    state = new_game(["5H 6H 7H 2C", "8S JS QD KD AD 4C"], draw="3S 9S 10C AD")
    act(state, "draw stock")
    assert "say carte" not in legal_names(state)  # five cards
    act(state, "select 5H", "select 6H", "select 7H", "put down")
    assert "say carte" in legal_names(state)  # two cards left: 2C 3S
    act(state, "say carte")
    assert "say carte" not in legal_names(state)
    act(state, "discard 2C")
    assert state.phase == Phase.DRAW and state.current_player == 1  # no catch window


def test_forgetting_carte_opens_a_catch_window_and_a_catch_costs_three():
    """R-14: ending a go on one card without carte: every other player decides; one catch
    is enough; the offender takes three cards from the stock, and still has to say carte
    next time (R-13: being caught does not exempt)."""
    state = new_game(["5H 6H 7H 2C", "8S JS QD KD AD 4C", "3D 10S JD QC AC 4H"], draw="3S 9S 10C AD KS")
    act(state, "draw stock", "select 5H", "select 6H", "select 7H", "put down", "discard 2C")
    assert state.phase == Phase.CATCH and state.current_player == 1
    assert legal_names(state) == {"catch", "no catch"}
    act(state, "no catch")
    assert state.current_player == 2
    act(state, "catch")
    assert len(state.table.hands[0]) == 1 + CATCH_CARDS
    assert hand(state, 0) == sorted(["3S", "9S", "10C", "AD"])
    assert not state.said_carte[0]
    assert state.current_player == 1 and state.phase == Phase.DRAW


def test_not_caught_when_nobody_catches():
    """R-14: if nobody catches, nothing happens and the next go starts."""
    state = new_game(["5H 6H 7H 2C", "8S JS QD KD AD 4C", "3D 10S JD QC AC 4H"], draw="3S 9S 10C AD KS")
    act(state, "draw stock", "select 5H", "select 6H", "select 7H", "put down", "discard 2C")
    act(state, "no catch", "no catch")
    assert len(state.table.hands[0]) == 1 and state.current_player == 1
    assert state.events[-1].kind == "not caught"


def test_carte_said_exempts_for_the_round():
    """R-13: once said, a player never has to say it again that round."""
    state = new_game(["5H 6H 7H 2C", "8S JS QD KD AD 4C"], draw="3S 9S 10C AD KS 4D")
    act(state, "draw stock", "select 5H", "select 6H", "select 7H", "put down", "say carte", "discard 2C")
    act(state, "draw stock", "discard 9S")
    act(state, "draw stock")  # player 0: 3S 10C, two cards again
    assert "say carte" not in legal_names(state)
    act(state, "discard 10C")
    assert state.phase == Phase.DRAW and state.current_player == 1  # no catch window: exempt


def test_carte_then_going_out_by_an_add():
    """R-13a: a player who says carte and then adds so that the go ends with no cards
    simply goes out."""
    state = new_game(["5H 6H 7H 8H 2C", "8S JS QD KD AD 4C"], draw="3S 9S 9H", single_round=True)
    act(state, "draw stock", "select 5H", "select 6H", "select 7H", "put down", "discard 3S")
    assert state.phase == Phase.DRAW  # two cards left (8H 2C): no carte needed
    act(state, "draw stock", "discard 9S")
    act(state, "draw stock", "select 8H", "add to meld 0")  # 2C 9H left
    act(state, "say carte", "select 9H", "add to meld 0", "discard 2C")
    assert state.is_terminal and state.round_results[-1].reason == "player_0 went out"
    assert meld_text(state, 0) == "5H 6H 7H 8H 9H"


# --- stock and pile -------------------------------------------------------------------------
def small_stock_game(stock_cards: int, **config) -> CarteState:
    """Two players and a stock of ``stock_cards`` cards: every other card is on the pile."""
    state = CarteState(CarteConfig(num_players=2, **config), np.random.default_rng(7),
                       {"hands": [["2S", "4S", "6S"], ["3D", "5D", "7D"]], "starter": 0})
    stock_of(state, stock_cards, turned_over=False)
    return state


def test_pile_turned_over_once_then_the_round_ends():
    """R-15: the first time the stock runs out the pile is turned over, not shuffled (the
    first card discarded on top) and stays known; the second time the round ends at once."""
    state = small_stock_game(1, single_round=True)
    pile_bottom = state.table.discard_pile[0]
    act(state, "draw stock")  # the last stock card
    act(state, "discard " + hand(state, 0)[0])
    # player 1's go starts with an empty stock: the pile is turned over.
    assert state.turnovers == 1 and state.table.discard_pile == []
    assert state.table.draw_pile[-1] == pile_bottom  # the first discarded card is the top
    assert state.table.knowledge.known[:, pile_bottom].all()
    assert legal_names(state) == {"draw stock"}
    while state.table.draw_pile:
        act(state, "draw stock")
        act(state, "discard " + hand(state, state.current_player)[0])
        if state.is_terminal:
            break
    assert state.is_terminal
    assert state.round_results[-1].reason == "the stock ran out again"




@pytest.mark.parametrize("num_players", [2, 3])
def test_r15_a_scenario_without_stock_and_pile_is_refused_and_changes_nothing(num_players):
    """R-15: with the whole deck in hands the round would end before its first go (and be
    scored inside reset()): such hands are refused in one line, and the env is left as it
    was (its game, agents and rewards)."""
    from cardenv import carte_v0

    env = carte_v0.raw_env(num_players=num_players)
    env.reset(seed=0)
    game, agents, rewards = env.game, list(env.agents), dict(env.rewards)
    hands = [DOUBLE_DECK[p::num_players] for p in range(num_players)]
    with pytest.raises(ValueError, match=r"^hands must leave a card for the stock or the pile, at most 107 "
                                         r"cards in all .*, got 108$"):
        env.reset(seed=1, options={"hands": hands})
    assert env.game is game and not game.is_terminal and env.agents == agents and env.rewards == rewards
    assert env.agent_selection == f"player_{game.current_player}"


def test_r15_a_scenario_with_a_pile_and_no_stock_turns_the_pile_over_first():
    """R-15: one card left for the pile: the first go starts by turning it over."""
    state = new_game([DOUBLE_DECK[1:54], DOUBLE_DECK[54:]], discard=DOUBLE_DECK[:1])
    assert state.turnovers == 1 and state.table.discard_pile == [] and len(state.table.draw_pile) == 1
    assert state.phase == Phase.DRAW and legal_names(state) == {"draw stock"}


def test_round_ends_mid_penalty():
    """R-15: a catch that needs more cards than the stock holds after the turnover ends
    the round at once, with the cards taken so far in hand."""
    state = new_game(["5H 6H 7H 2C", "8S JS QD KD AD 4C"], draw="3S 9S", single_round=True)
    stock_of(state, 2, turned_over=True)
    act(state, "draw stock", "select 5H", "select 6H", "select 7H", "put down", "discard 2C")
    act(state, "catch")
    assert state.is_terminal and state.round_results[-1].reason == "the stock ran out again"
    assert hand(state, 0) == ["3S", "9S"]  # 3S kept, 9S the one catch card the stock still had
    state.table.check_every_card_once()


# --- R-16 … R-18: scoring, elimination, winners ---------------------------------------------------
def test_elimination_and_the_game_end():
    """R-16: each subtracts what is left in hand; R-17: at 0 or below a player is out;
    R-18: the last player in wins."""
    state = CarteState(CarteConfig(num_players=3), np.random.default_rng(0),
                       {"hands": [["5H", "6H", "7H", "9C"], ["KS", "KH", "AD"], ["2D", "3D", "4C"]],
                        "draw_pile": ["3S", "5S", "6S", "8H"], "starter": 0, "scores": [100, 30, 2]})
    act(state, "draw stock", "select 5H", "select 6H", "select 7H", "put down", "say carte", "discard 9C")
    act(state, "draw stock", "discard KS", "draw stock", "discard 2D")
    act(state, "draw stock", "select 8H", "add to meld 0", "discard 3S")  # player 0 goes out
    result = state.round_results[0]
    assert result.points_added == (0, 10 + 15 + 5, 3 + 4 + 6)  # KH AD 5S; 3D 4C 6S
    assert state.scores == [100, 0, -11]
    assert state.eliminated == [False, True, True]
    assert state.is_terminal and state.winners() == [0]
    assert state.ranks()[0] == 1


def stock_of(state: CarteState, cards: int, turned_over: bool) -> None:
    """Leave ``cards`` cards in the stock, the others moved face up onto the pile (a
    position many goes would reach, set up directly)."""
    table = state.table
    while len(table.draw_pile) > cards:
        table.discard_face_up(table.draw_pile.pop(0))
    state.turnovers = int(turned_over)
    state.mark_changed()


@pytest.mark.parametrize("second_hand, winners", [("QS QD 2C", [0, 1]), ("QS QD 3C", [0])])
def test_r18_the_last_players_out_in_the_same_round(second_hand, winners):
    """R-15: the stock runs out a second time and the round ends; R-17: both players fall
    to 0 or below together; R-18: the highest total among them wins, equal totals share."""
    state = CarteState(CarteConfig(num_players=2), np.random.default_rng(0),
                       {"hands": [["KS", "KD"], second_hand.split()], "starter": 0, "scores": [10, 12]})
    stock_of(state, 1, turned_over=True)
    last = state.meld_name(state.table.draw_pile[-1])
    act(state, "draw stock", f"discard {last}")
    assert state.is_terminal and state.round_results[-1].reason == "the stock ran out again"
    assert state.eliminated == [True, True]
    assert state.winners() == winners


def test_being_caught_does_not_exempt():
    """R-13: a caught player who comes down to two cards again may (and must) say carte."""
    state = new_game(["5H 6H 7H 2C", "8S JS QD KD AD 4D"], draw="3S 9D 9S 9H KC 4C")
    act(state, "draw stock", "select 5H", "select 6H", "select 7H", "put down", "discard 2C")
    act(state, "catch")  # player 0 takes 9D 9S 9H
    assert hand(state, 0) == sorted(["3S", "9D", "9S", "9H"])
    act(state, "draw stock", "discard KC")
    act(state, "draw stock", "select 9S", "select 9H", "select 9D", "put down")  # 3S 4C left
    assert "say carte" in legal_names(state)
    act(state, "discard 4C")  # forgotten again: a second catch window
    assert state.phase == Phase.CATCH
