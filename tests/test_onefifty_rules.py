"""Rules of onefifty_v0 on stacked decks; every test cites the rule ids of
docs/onefifty.md (O-01 … O-23) it checks."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.core.cards import CARD_NAMES, parse_card
from cardenv.core.table import EMPTY
from cardenv.engine.rounds import IllegalActionError
from cardenv.games.onefifty import OneFiftyConfig, OneFiftyObserver, OneFiftyState, Phase
from tests.conftest import card_in_slot, hand_names, knowers, legal_names, new_state, play

# Filler hands that share no card with the scenario cards used below.
FILLER = [["AS", "AH", "AD", "AC"], ["2S", "2H", "2D", "2C"], ["3S", "3H", "3D", "3C"],
          ["4S", "4H", "4D", "4C"], ["6S", "6H", "6D", "6C"], ["7S", "7H", "7D", "7C"]]


def points_by_name(name: str) -> int:
    """O-02, written out independently of the engine."""
    rank, suit = name[:-1], name[-1]
    if rank == "A":
        return 1
    if rank in ("J", "Q", "K"):
        return 20
    if rank == "10":
        return 0 if suit in "HD" else 10
    return int(rank)


def last_event(state, kind):
    return [e for e in state.events if e.kind == kind][-1]


def final_lap(state, *players):
    """Each listed player takes a final turn: draw a number card and discard it."""
    for p in players:
        assert state.current_player == p
        assert "call END" not in legal_names(state), "O-15: nobody may call during the final lap"
        play(state, "draw", "discard drawn")


# --- cards and values ---------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_O01_one_52_card_deck_without_jokers(num_players):
    state = new_state(num_players)
    types = state.table.card_types
    assert sorted(types.tolist()) == list(range(52))
    state.table.check_every_card_once()
    assert len(state.table.hands) == num_players


def test_O01_three_to_six_players_default_four():
    assert OneFiftyConfig().num_players == 4
    for n in (2, 7):
        with pytest.raises(ValueError, match="from 3 to 6"):
            OneFiftyConfig(num_players=n)


def test_O02_points_of_every_card():
    state = new_state()
    for t, name in enumerate(CARD_NAMES[:52]):
        assert state.points[t] == points_by_name(name), name
    assert state.points[parse_card("10H")] == 0 and state.points[parse_card("10D")] == 0
    assert state.points[parse_card("10S")] == 10 and state.points[parse_card("10C")] == 10
    assert {int(state.points[parse_card(r + "C")]) for r in "JQK"} == {20}


def test_O02_hand_totals_ignore_empty_slots():
    state = new_state(options={"hands": [["5S", "KD", "10H", "5D"], *FILLER[1:4]], "discard_pile": ["5H"],
                               "starter": 0})
    assert state.hand_total(0) == 5 + 20 + 0 + 5
    play(state, "match select slot 0", "match select slot 3", "match confirm")
    assert hand_names(state, 0) == ["--", "KD", "10H", "--"]
    assert state.hand_total(0) == 20
    assert state.hand_total(1) == 4 * 2


@pytest.mark.parametrize("top, card, matches", [
    ("10H", "10S", True), ("10C", "10D", True), ("KS", "KH", True), ("AS", "AD", True),
    ("JS", "QS", False), ("9H", "10H", False), ("QD", "KD", False), ("5C", "6C", False),
])
def test_O03_matching_is_by_rank_only(top, card, matches):
    state = new_state(options={"hands": [[card, "9S"], ["4S"], ["4H"], ["4D"]], "discard_pile": [top],
                               "draw_pile": ["8C"], "starter": 0})
    play(state, "match select slot 0", "match confirm")
    if matches:
        assert hand_names(state, 0) == ["--", "9S"]
        assert CARD_NAMES[state.table.card_types[state.table.top_discard]] == card
    else:
        assert hand_names(state, 0) == [card, "9S", "8C"]


# --- round setup ---------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_O04_deal_four_face_down_cards_each(num_players):
    state = new_state(num_players, seed=11)
    table = state.table
    assert all(len(h) == 4 and EMPTY not in h for h in table.hands)
    assert len(table.draw_pile) == 52 - 4 * num_players
    assert table.discard_pile == []
    table.check_every_card_once()


def test_O04_the_deck_is_shuffled_from_the_seed():
    deal = lambda seed: [hand_names(new_state(seed=seed), p) for p in range(4)]  # noqa: E731
    assert deal(5) == deal(5)
    assert deal(5) != deal(6)


@pytest.mark.parametrize("num_players", [3, 6])
def test_O05_each_player_sees_only_own_bottom_row(num_players):
    state = new_state(num_players, seed=3)
    known = state.table.knowledge.known
    for p in range(num_players):
        hand = state.table.hands[p]
        expected = np.zeros(52, dtype=bool)
        expected[hand[2:4]] = True
        assert np.array_equal(known[p], expected), "O-05: own slots 2 and 3, nothing else"
        peek = [e for e in state.events if e.kind == "peek" and e.player == p][-1]
        assert set(peek.cards) == {hand[2], hand[3]}
        assert peek.visible_to == (p,), "nobody else sees them"


def test_O06_first_starter_is_uniform_from_the_seed():
    starters = [new_state(seed=s).starter for s in range(60)]
    assert set(starters) == {0, 1, 2, 3}
    assert starters == [new_state(seed=s).starter for s in range(60)]
    for s in range(5):
        state = new_state(seed=s)
        assert state.current_player == state.starter


def test_O06_starter_option():
    assert new_state(seed=0, options={"starter": 2}).current_player == 2
    with pytest.raises(ValueError):
        new_state(options={"starter": 4})


# Each case: starter of round 1 (who empties their one-card hand by a match, O-16), the
# hands, the cumulative scores before; the expected cumulative scores and round-2 starter.
O06_CASES = {
    "tie goes clockwise after the previous starter": (
        0, [["5S"], ["10S", "10C"], ["KS", "JD"], ["10H"]], [50, 10, 10, 30], [50, 30, 50, 30], 1),
    "tie wraps around the table": (
        2, [["10S", "10C"], ["KS", "JD"], ["5S"], ["10H"]], [10, 10, 50, 30], [30, 50, 50, 30], 3),
    "tie after the last seat": (
        3, [["10S", "10C"], ["KS", "JD"], ["10H"], ["5S"]], [10, 10, 30, 50], [30, 50, 30, 50], 0),
    "previous starter among the tied comes last": (
        1, [["10S", "10C"], ["5S"], ["KS", "JD"], ["10H"]], [10, 30, 10, 30], [30, 30, 50, 30], 3),
    "unique lowest is the previous starter": (
        1, [["10S", "10C"], ["5S"], ["KS", "JD"], ["10H"]], [10, 0, 10, 10], [30, 0, 50, 10], 1),
    "unique lowest anywhere": (
        0, [["5S"], ["10S", "10C"], ["KS", "JD"], ["10H"]], [50, 40, 10, 30], [50, 60, 50, 30], 3),
}


@pytest.mark.parametrize("case", list(O06_CASES))
def test_O06_later_rounds_start_with_the_lowest_total(case):
    starter, hands, scores, expected_scores, expected_starter = O06_CASES[case]
    state = new_state(seed=1, options={"hands": hands, "discard_pile": ["5H"], "starter": starter, "scores": scores})
    play(state, "match select slot 0", "match confirm")
    assert len(state.round_results) == 1 and state.round_index == 1
    assert state.scores == expected_scores
    assert state.starter == expected_starter and state.current_player == expected_starter
    start = last_event(state, "start")
    assert start.round == 1 and start.player == expected_starter


def test_O06_play_is_clockwise():
    state = new_state(options={"hands": FILLER[:4], "starter": 2, "draw_pile": ["8S", "8H", "8D", "8C", "9S"]})
    seen = []
    for _ in range(5):
        seen.append(state.current_player)
        play(state, "draw", "discard drawn", "pass")
    assert seen == [2, 3, 0, 1, 2]


# --- a turn ------------------------------------------------------------------------------------
def test_O07_match_only_with_a_discard_and_only_own_occupied_slots():
    state = new_state(options={"hands": FILLER[:4], "starter": 0})
    assert legal_names(state) == {"draw", "call END"}, "O-07/O-09: no match or take on an empty discard pile"
    state = new_state(options={"hands": [["5S", "9C", "5D"], *FILLER[1:4]], "discard_pile": ["5H"], "starter": 0})
    names = legal_names(state)
    assert {f"match select slot {s}" for s in range(3)} <= names
    assert "match select slot 3" not in names
    play(state, "match select slot 1")
    assert state.phase == Phase.MATCH_SELECT
    assert legal_names(state) == {"match select slot 0", "match select slot 2", "match confirm"}


def test_O07_successful_multi_card_match_shrinks_the_hand():
    state = new_state(options={"hands": [["5S", "9C", "5D", "KH"], *FILLER[1:4]], "discard_pile": ["5H"],
                               "draw_pile": ["8C", "8H", "8D", "8S", "9H"], "starter": 0})
    five_s, five_d = card_in_slot(state, 0, 0), card_in_slot(state, 0, 2)
    draw_before = len(state.table.draw_pile)
    play(state, "match select slot 2", "match select slot 0", "match confirm")
    assert hand_names(state, 0) == ["--", "9C", "--", "KH"], "slots removed for good, not refilled"
    assert state.table.num_occupied(0) == 2
    assert [CARD_NAMES[state.table.card_types[c]] for c in state.table.discard_pile] == ["5H", "5D", "5S"]
    assert state.table.top_discard == five_s, "the last selected card becomes the top"
    assert knowers(state, five_s) == knowers(state, five_d) == {0, 1, 2, 3}
    assert len(state.table.draw_pile) == draw_before, "no penalty"
    event = last_event(state, "match")
    assert event.visible_to is None and set(event.cards) == {five_s, five_d}
    assert state.phase == Phase.AFTER_ACTION and legal_names(state) == {"call END", "pass"}  # O-10a
    play(state, "pass")
    play(state, "draw", "discard drawn", "pass")  # player 1
    play(state, "draw", "discard drawn", "pass")  # player 2
    play(state, "draw", "discard drawn", "pass")  # player 3
    assert state.current_player == 0
    names = legal_names(state)
    for s in (0, 2):
        assert f"match select slot {s}" not in names and f"take discard into slot {s}" not in names
    play(state, "draw")
    assert "swap drawn into slot 0" not in legal_names(state) and "swap drawn into slot 1" in legal_names(state)


def test_O07_failed_multi_card_match_reveals_and_penalizes():
    state = new_state(options={"hands": [["5S", "9C", "5D", "KH"], *FILLER[1:4]], "discard_pile": ["5H"],
                               "draw_pile": ["8C"], "starter": 0})
    five_s, nine_c = card_in_slot(state, 0, 0), card_in_slot(state, 0, 1)
    assert knowers(state, five_s) == set()
    total_before = state.hand_total(0)
    play(state, "match select slot 0", "match select slot 1", "match confirm")
    # every selected card shown to all, then back face down in its own slot
    assert hand_names(state, 0) == ["5S", "9C", "5D", "KH", "8C"]
    assert card_in_slot(state, 0, 0) == five_s and card_in_slot(state, 0, 1) == nine_c
    assert knowers(state, five_s) == knowers(state, nine_c) == {0, 1, 2, 3}
    failed = last_event(state, "failed match")
    assert failed.visible_to is None and set(failed.cards) == {five_s, nine_c}
    # the penalty card: a new slot at the end, seen by nobody (the player included)
    penalty = card_in_slot(state, 0, 4)
    assert knowers(state, penalty) == set()
    event = last_event(state, "penalty")
    assert event.cards == (penalty,) and event.visible_to == ()
    for viewer in range(4):
        assert "??" in event.describe(state.card_name, viewer) and "8C" not in event.describe(state.card_name, viewer)
    assert state.hand_total(0) == total_before + 8
    assert [CARD_NAMES[state.table.card_types[c]] for c in state.table.discard_pile] == ["5H"]
    assert state.phase == Phase.AFTER_ACTION


def test_O07_a_failed_match_shows_the_cards_in_the_observations():
    state = new_state(options={"hands": [["5S", "9C", "5D", "KH"], *FILLER[1:4]], "discard_pile": ["5H"],
                               "draw_pile": ["8C"], "starter": 0})
    observer = OneFiftyObserver(state.config)
    play(state, "match select slot 0", "match select slot 1", "match confirm")
    views = observer.layout.views(observer.observe(state, 2))
    row = (0 - 2) % 4  # player 0 seen from player 2
    assert views["slot_known"][row].tolist()[:5] == [1, 1, 0, 0, 0]
    assert views["slot_rank"][row, 1].argmax() == 8  # a 9
    assert views["slot_present"][row].tolist()[:6] == [1, 1, 1, 1, 1, 0]


@pytest.mark.parametrize("face", ["J", "Q", "K"])
def test_O07_matching_never_fires_a_power(face):
    state = new_state(options={"hands": [[face + "S", "9C"], *FILLER[1:4]], "discard_pile": [face + "H"],
                               "starter": 0})
    play(state, "match select slot 0", "match confirm")
    assert hand_names(state, 0) == ["--", "9C"]
    assert state.phase == Phase.AFTER_ACTION
    assert legal_names(state) == {"call END", "pass"}


def test_O07_no_match_when_a_penalty_slot_would_not_fit():
    """Engine rule (documented in raw_env): a Match may start only while the hand has
    fewer than ``max_hand_slots`` slots, so that a penalty slot always fits."""
    hand = ["5S", "9C", "5D", "KH", "8C"]
    state = new_state(max_hand_slots=5, options={"hands": [hand, *FILLER[1:4]], "discard_pile": ["5H"],
                                                 "starter": 0})
    assert not any(n.startswith("match") for n in legal_names(state))
    assert "take discard into slot 4" in legal_names(state)


def test_O08_drawn_number_card_swapped_in():
    state = new_state(options={"hands": FILLER[:4], "draw_pile": ["9H"], "starter": 1})
    nine = state.table.draw_pile[-1]
    play(state, "draw")
    assert knowers(state, nine) == {1}, "O-08: only the drawer sees the card"
    drawn = last_event(state, "draw")
    assert drawn.visible_to == (1,) and drawn.cards == (nine,)
    assert drawn.describe(state.card_name, 0) == "player_1 draws ??"
    assert drawn.describe(state.card_name, 1) == "player_1 draws 9H"
    assert state.phase == Phase.DRAWN
    assert legal_names(state) == {f"swap drawn into slot {s}" for s in range(4)} | {"discard drawn"}
    old = card_in_slot(state, 1, 0)
    play(state, "swap drawn into slot 0")
    assert card_in_slot(state, 1, 0) == nine
    assert knowers(state, nine) == {1}, "the player now knows the new card in the slot"
    assert state.table.top_discard == old and knowers(state, old) == {0, 1, 2, 3}
    assert last_event(state, "swap").visible_to == (1,)
    assert last_event(state, "discard").visible_to is None
    assert state.phase == Phase.AFTER_ACTION


def test_O08_drawn_number_card_discarded():
    state = new_state(options={"hands": FILLER[:4], "draw_pile": ["9H"], "starter": 0})
    nine = state.table.draw_pile[-1]
    hand = state.table.hands[0].copy()
    play(state, "draw", "discard drawn")
    assert state.table.hands[0] == hand
    assert state.table.top_discard == nine and knowers(state, nine) == {0, 1, 2, 3}
    assert state.phase == Phase.AFTER_ACTION, "a number card has no power"


@pytest.mark.parametrize("face", ["JS", "QS", "KS"])
def test_O08_drawn_face_card_swapped_in_is_a_plain_20(face):
    state = new_state(options={"hands": FILLER[:4], "draw_pile": [face, "9H"], "starter": 0})
    play(state, "draw", "swap drawn into slot 3")
    assert hand_names(state, 0)[3] == face
    assert state.hand_total(0) == 3 * 1 + 20
    assert state.phase == Phase.AFTER_ACTION, "no power"
    assert CARD_NAMES[state.table.card_types[state.table.top_discard]] == "AC"


def test_O09_take_the_top_discard():
    state = new_state(options={"hands": [["5S", "9C", "5D"], *FILLER[1:4]], "discard_pile": ["8S", "KH"],
                               "starter": 0})
    king = state.table.top_discard
    names = legal_names(state)
    assert {f"take discard into slot {s}" for s in range(3)} <= names
    assert "take discard into slot 3" not in names
    old = card_in_slot(state, 0, 1)
    play(state, "take discard into slot 1")
    assert card_in_slot(state, 0, 1) == king
    assert state.table.top_discard == old and knowers(state, old) == {0, 1, 2, 3}
    assert knowers(state, king) == {0, 1, 2, 3}, "everyone saw the face-up card taken"
    assert state.phase == Phase.AFTER_ACTION, "O-09: a face card taken has no power"
    assert state.hand_total(0) == 5 + 20 + 5
    assert [CARD_NAMES[state.table.card_types[c]] for c in state.table.discard_pile] == ["8S", "9C"]


def test_O10_call_as_the_main_action_and_not_twice():
    state = new_state(options={"hands": FILLER[:4], "draw_pile": ["8S", "8H", "8D"], "starter": 0})
    play(state, "call END")
    assert state.caller == 0 and state.current_player == 1 and state.phase == Phase.MAIN
    assert "call END" not in legal_names(state), "O-10: not while a call is in progress"
    assert legal_names(state) == {"draw"}
    with pytest.raises(IllegalActionError, match="call END"):
        play(state, "call END")


def test_O10a_after_the_main_action_call_or_pass():
    state = new_state(options={"hands": FILLER[:4], "draw_pile": ["8S", "8H", "8D", "8C"], "starter": 3})
    play(state, "draw", "discard drawn")
    assert state.phase == Phase.AFTER_ACTION and legal_names(state) == {"call END", "pass"}
    play(state, "pass")
    assert state.current_player == 0 and state.caller is None
    play(state, "draw", "discard drawn", "call END")
    assert state.caller == 0 and state.current_player == 1 and state.final_turns_left == 3
    # with a call in progress there is nothing to choose after the main action: the turn ends
    play(state, "draw", "discard drawn")
    assert state.current_player == 2 and state.final_turns_left == 2


# --- face-card powers ---------------------------------------------------------------------
def test_O11_jack_trade_between_two_known_cards():
    state = new_state(options={"hands": [["5S", "9C", "8S", "KH"], FILLER[1], ["QH", "QD", "10S", "10H"],
                                         FILLER[3]],
                               "draw_pile": ["JS"], "starter": 0})
    mine, theirs = card_in_slot(state, 0, 2), card_in_slot(state, 2, 3)  # 8S known to 0, 10H known to 2
    assert knowers(state, mine) == {0} and knowers(state, theirs) == {2}
    play(state, "draw", "discard drawn")
    assert state.phase == Phase.JACK_OWN
    assert legal_names(state) == {f"jack: give own slot {s}" for s in range(4)}, "O-11: the trade is mandatory"
    play(state, "jack: give own slot 2")
    assert state.phase == Phase.JACK_TARGET
    assert legal_names(state) == {f"jack: take opponent +{o} slot {s}" for o in (1, 2, 3) for s in range(4)}
    play(state, "jack: take opponent +2 slot 3")
    assert card_in_slot(state, 0, 2) == theirs and card_in_slot(state, 2, 3) == mine
    assert hand_names(state, 0) == ["5S", "9C", "10H", "KH"] and hand_names(state, 2) == ["QH", "QD", "10S", "8S"]
    # the trader sees what it received and still knows what it gave; the other player
    # keeps knowing its old card but does not see what it received
    assert knowers(state, theirs) == {0, 2}
    assert knowers(state, mine) == {0}
    assert [len(h) for h in state.table.hands] == [4, 4, 4, 4], "hand sizes do not change"
    jack = last_event(state, "jack")
    assert jack.cards == (theirs,) and jack.visible_to == (0,)
    assert state.phase == Phase.AFTER_ACTION


def test_O11_jack_trade_between_two_unknown_cards():
    state = new_state(options={"hands": [["5S", "9C", "8S", "KH"], ["QH", "QD", "10S", "10H"], *FILLER[2:4]],
                               "draw_pile": ["JS"], "starter": 0})
    mine, theirs = card_in_slot(state, 0, 0), card_in_slot(state, 1, 1)
    play(state, "draw", "discard drawn", "jack: give own slot 0", "jack: take opponent +1 slot 1")
    assert card_in_slot(state, 0, 0) == theirs and card_in_slot(state, 1, 1) == mine
    assert knowers(state, theirs) == {0}
    assert knowers(state, mine) == set(), "nobody saw the card the trader gave"


def test_O11_jack_targets_only_occupied_opponent_slots():
    state = new_state(num_players=3, options={"hands": [["5S", "KH"], ["9D", "9H"], ["QH"]],
                                              "discard_pile": ["9S"], "draw_pile": ["8C", "JS"], "starter": 1})
    play(state, "match select slot 0", "match confirm", "pass")  # player 1 empties slot 0
    play(state, "draw", "discard drawn", "pass")  # player 2
    play(state, "draw", "discard drawn", "jack: give own slot 1")  # player 0 fires the Jack
    assert legal_names(state) == {"jack: take opponent +1 slot 1", "jack: take opponent +2 slot 0"}


@pytest.mark.parametrize("power", ["JS", "QS"])
def test_O11_O12_a_power_with_nothing_to_act_on_is_skipped(power):
    """A stacked empty hand: a drawn-and-discarded J or Q has no own slot to act on, so the
    power is skipped and the turn goes on (never a live player with an all-zero mask)."""
    state = new_state(num_players=3, options={"hands": [[], ["5S", "QH", "10D", "7C"], ["3D", "3C", "8H", "JD"]],
                                              "draw_pile": [power], "starter": 0})
    play(state, "draw", "discard drawn")
    assert state.phase == Phase.AFTER_ACTION and state.current_player == 0
    assert legal_names(state) == {"pass", "call END"}


def test_O11_a_jack_with_no_opponent_card_is_skipped():
    state = new_state(num_players=3, options={"hands": [["5S", "9C"], [], []], "draw_pile": ["JS"], "starter": 0})
    play(state, "draw", "discard drawn")
    assert state.phase == Phase.AFTER_ACTION and legal_names(state) == {"pass", "call END"}


def test_O12_queen_peek():
    state = new_state(options={"hands": FILLER[:4], "draw_pile": ["QS"], "starter": 1})
    play(state, "draw", "discard drawn")
    assert state.phase == Phase.QUEEN_PEEK
    assert legal_names(state) == {f"queen: peek own slot {s}" for s in range(4)}
    card = card_in_slot(state, 1, 0)
    assert knowers(state, card) == set()
    play(state, "queen: peek own slot 0")
    assert knowers(state, card) == {1}
    event = last_event(state, "queen")
    assert event.visible_to == (1,) and event.cards == (card,)
    assert state.phase == Phase.AFTER_ACTION


def test_O13_king_king_queen_chain():
    state = new_state(options={"hands": FILLER[:4], "draw_pile": ["KS", "KH", "QD", "9S"], "starter": 0})
    kings = state.table.draw_pile[-1], state.table.draw_pile[-2]
    queen = state.table.draw_pile[-3]
    play(state, "draw", "discard drawn")
    assert state.phase == Phase.DRAWN and state.table.held[0] == [kings[1]], "O-13: draws again at once"
    assert knowers(state, kings[1]) == {0}
    play(state, "discard drawn")
    assert state.table.held[0] == [queen] and state.current_player == 0
    play(state, "discard drawn")
    assert state.phase == Phase.QUEEN_PEEK, "a face card drawn by a King fires its own power"
    play(state, "queen: peek own slot 1", "pass")
    assert [CARD_NAMES[state.table.card_types[c]] for c in state.table.discard_pile] == ["KS", "KH", "QD"]
    kinds = [(e.kind, e.visible_to) for e in state.events if e.kind in ("draw", "discard", "queen")]
    assert kinds == [("draw", (0,)), ("discard", None)] * 3 + [("queen", (0,))]
    assert state.current_player == 1


def test_O13_king_then_jack_then_number():
    state = new_state(options={"hands": FILLER[:4], "draw_pile": ["KS", "JH", "KD", "9S"], "starter": 2})
    play(state, "draw", "discard drawn", "discard drawn")
    assert state.phase == Phase.JACK_OWN
    play(state, "jack: give own slot 0", "jack: take opponent +1 slot 0", "pass")
    assert state.current_player == 3
    play(state, "draw", "discard drawn", "swap drawn into slot 2")  # a King, then a 9 swapped in
    assert hand_names(state, 3)[2] == "9S" and state.phase == Phase.AFTER_ACTION


def test_O14_everyone_sees_which_slots_a_jack_traded_and_a_queen_peeked():
    state = new_state(options={"hands": FILLER[:4], "draw_pile": ["JS", "QS"], "starter": 0})
    observer = OneFiftyObserver(state.config)
    play(state, "draw", "discard drawn", "jack: give own slot 1", "jack: take opponent +3 slot 0", "pass")
    received = card_in_slot(state, 0, 1)
    jack = last_event(state, "jack")
    assert jack.describe(state.card_name, 2) == "player_0 trades own slot 1 with player_3 slot 0, receiving ??"
    assert jack.describe(state.card_name, 0).endswith("receiving " + state.card_name(received))
    # the knowledge table is public: player 3 sees that player 0 knows player 0's slot 1
    views = observer.layout.views(observer.observe(state, 3))
    row_of_0 = (0 - 3) % 4
    assert views["slot_known_by"][row_of_0, 1].tolist() == [0, 1, 0, 0]  # knowers, relative to player 3
    assert views["slot_known"][row_of_0, 1] == 0
    play(state, "draw", "discard drawn", "queen: peek own slot 2")
    assert last_event(state, "queen").describe(state.card_name, 0) == "player_1 peeks at own slot 2: ??"
    views = observer.layout.views(observer.observe(state, 0))
    assert views["slot_known_by"][1, 2].tolist() == [0, 1, 0, 0]


# --- ending a round -------------------------------------------------------------------------
def test_O15_final_lap_then_the_round_ends():
    hands = [["5S", "5H"], ["8S", "10H"], ["KS", "QS"], ["9S", "9H"]]
    state = new_state(single_round=True, options={"hands": hands, "draw_pile": ["6D", "7D", "8D", "9D", "5D"],
                                                  "starter": 0})
    play(state, "draw", "discard drawn", "pass")
    play(state, "draw", "discard drawn", "call END")
    assert state.caller == 1
    final_lap(state, 2, 3, 0)
    assert state.is_terminal, "the caller does not act again"
    result = state.round_results[-1]
    assert result.caller == 1 and result.reason.startswith("the final lap")
    assert result.hand_totals == (10, 8, 40, 18)


def test_O15_final_turns_may_match_or_take():
    hands = [["5S", "5H"], ["8S", "10H"], ["KS", "QS"], ["9S", "9H"]]
    state = new_state(single_round=True, options={"hands": hands, "discard_pile": ["9D"], "starter": 2})
    play(state, "call END")
    play(state, "match select slot 0", "match select slot 1", "match confirm")  # player 3 matches both 9s ...
    # ... which empties the hand: the round ends at once (O-16), scored as a call (O-19)
    assert state.is_terminal and state.round_results[-1].caller == 2


def test_O15_take_during_the_final_lap():
    hands = [["5S", "5H"], ["8S", "10H"], ["KS", "QS"], ["9S", "9H"]]
    state = new_state(single_round=True, options={"hands": hands, "discard_pile": ["AD"], "draw_pile": ["6D", "7D"],
                                                  "starter": 0})
    play(state, "call END", "take discard into slot 1")
    assert state.current_player == 2, "the turn ends after the main action during a final lap"
    final_lap(state, 2, 3)
    assert state.is_terminal
    assert state.round_results[-1].hand_totals == (10, 9, 40, 18)


def test_O16_a_match_emptying_the_hand_ends_the_round_at_once():
    hands = [["7S", "KD"], ["7C"], ["KS", "QS"], ["9S", "9H"]]
    state = new_state(options={"hands": hands, "draw_pile": ["7H"], "starter": 0})
    play(state, "draw", "discard drawn", "pass")
    play(state, "match select slot 0", "match confirm")
    assert len(state.round_results) == 1, "players 2 and 3 never act"
    result = state.round_results[0]
    assert result.caller is None and result.reason == "a match emptied a hand"
    assert result.hand_totals == (27, 0, 40, 18)
    assert result.points_added == (27, 0, 40, 18), "O-20: the lowest adds 0"
    assert state.round_index == 1


def test_O16_O19_a_match_empties_a_hand_mid_call():
    hands = [["AS", "2S"], ["7C"], ["KS", "QS"], ["AH", "AC"]]
    state = new_state(options={"hands": hands, "discard_pile": ["7H"], "starter": 0})
    play(state, "call END")
    play(state, "match select slot 0", "match confirm")
    result = state.round_results[0]
    assert result.caller == 0 and result.reason == "a match emptied a hand"
    assert result.hand_totals == (3, 0, 40, 2)
    # O-19: the caller is not strictly lowest → double; lower players add 0; others their total
    assert result.points_added == (6, 0, 40, 0)
    assert state.scores == [6, 0, 40, 0]


def _all_cards_layout(hand_sizes, discard_count):
    names = list(CARD_NAMES[:52])
    hands, i = [], 0
    for size in hand_sizes:
        hands.append(names[i:i + size])
        i += size
    discard = names[i:i + discard_count]
    assert i + discard_count == 52
    return hands, discard


def test_O17_reshuffle_keeps_the_top_and_everyone_forgets():
    hands, discard = _all_cards_layout([4, 4, 4, 4], 36)
    state = new_state(seed=7, options={"hands": hands, "discard_pile": discard, "starter": 0})
    top = state.table.top_discard
    below = state.table.discard_pile[:-1]
    assert state.table.draw_pile == [] and state.table.knowledge.known[:, below].all()
    play(state, "draw")
    drawn = state.table.held[0][0]
    assert drawn in below
    assert state.table.discard_pile == [top], "the top card stays as the discard pile"
    assert sorted(state.table.draw_pile + [drawn]) == sorted(below)
    others = [c for c in below if c != drawn]
    assert not state.table.knowledge.known[:, others].any(), "reshuffled cards are forgotten by all"
    assert knowers(state, drawn) == {0}
    state.table.check_every_card_once()
    # the new draw pile's order comes from the seed
    again = new_state(seed=7, options={"hands": hands, "discard_pile": discard, "starter": 0})
    play(again, "draw")
    other_seed = new_state(seed=8, options={"hands": hands, "discard_pile": discard, "starter": 0})
    play(other_seed, "draw")
    assert again.table.draw_pile == state.table.draw_pile != other_seed.table.draw_pile


def test_O17_penalty_card_after_a_reshuffle():
    hands, discard = _all_cards_layout([4, 4, 4, 4], 36)  # player 0: AS AH AD AC; top discard KC
    state = new_state(seed=1, options={"hands": hands, "discard_pile": discard, "starter": 0})
    play(state, "match select slot 0", "match confirm")
    assert len(state.table.hands[0]) == 5 and len(state.table.discard_pile) == 1
    assert knowers(state, card_in_slot(state, 0, 4)) == set()
    assert len(state.table.draw_pile) == 34
    state.table.check_every_card_once()


def test_O17_no_card_can_be_drawn_ends_the_round():
    hands, discard = _all_cards_layout([13, 13, 13, 12], 1)
    state = new_state(max_hand_slots=14, single_round=True,
                      options={"hands": hands, "discard_pile": discard, "starter": 3})
    assert not state.table.can_draw()
    play(state, "draw")
    assert state.is_terminal
    result = state.round_results[0]
    assert result.reason == "no card can be drawn" and result.caller is None
    totals = tuple(sum(points_by_name(n) for n in hand) for hand in hands)
    assert result.hand_totals == totals
    best = min(totals)
    assert result.points_added == tuple(0 if t == best else t for t in totals)  # O-20


def test_O17_no_card_for_a_penalty_ends_the_round_mid_call():
    hands, discard = _all_cards_layout([13, 13, 13, 12], 1)  # top discard KC; player 3: 10C JS … KD
    state = new_state(max_hand_slots=14, single_round=True,
                      options={"hands": hands, "discard_pile": discard, "starter": 2})
    play(state, "call END")
    play(state, "match select slot 0", "match confirm")  # player 3 slot 0 is not a King
    assert state.is_terminal
    result = state.round_results[0]
    assert result.reason == "no card can be drawn" and result.caller == 2
    assert len(state.table.hands[3]) == 12, "no penalty slot"


def test_O18_turn_cap_ends_the_round_without_a_call():
    hands = [["5S"], ["2S", "3S"], ["KS"], ["9S"]]
    state = new_state(max_turns_per_round=1, options={"hands": hands, "draw_pile": ["8D"], "starter": 0})
    play(state, "draw", "discard drawn", "pass")
    result = state.round_results[0]
    assert result.reason == "the turn cap was reached" and result.caller is None
    assert result.points_added == (0, 0, 20, 9), "O-20: tied lowest both add 0"


def test_O18_turn_cap_during_a_call():
    hands = [["5S"], ["2S", "3S"], ["KS"], ["9S"]]
    state = new_state(max_turns_per_round=2, options={"hands": hands, "draw_pile": ["8D"], "starter": 0})
    play(state, "call END", "draw", "discard drawn")
    result = state.round_results[0]
    assert result.reason == "the turn cap was reached" and result.caller == 0
    assert result.points_added == (10, 5, 20, 9), "O-19: a tie fails the call"


def test_O18_default_turn_cap_is_200():
    """Nobody calls and nobody matches: only the cap (after 200 turns) can end the round,
    through many reshuffles (O-17)."""
    assert OneFiftyConfig().max_turns_per_round == 200
    state = new_state(options={"hands": FILLER[:4], "starter": 0})
    preferred = [state.action_from_name(n) for n in ("draw", "discard drawn", "pass")]
    turns_before_last = None
    while not state.round_results:
        legal = state.legal_actions()
        action = next((a for a in preferred if a in legal), legal[0])  # powers: the first legal choice
        turns_before_last = state.turns_completed
        state.apply(action)
    assert state.round_results[0].reason == "the turn cap was reached"
    assert turns_before_last == 199
    assert sum(1 for e in state.events if e.kind == "draw") >= 200 > 52 - 16


# --- scoring -------------------------------------------------------------------------------
def called_round(hands, caller=0, **config):
    """``caller`` calls END at once; every other player draws a number card and discards it."""
    n = len(hands)
    state = new_state(n, single_round=True, **config,
                      options={"hands": hands, "draw_pile": ["5D", "6D", "7D", "8D", "9D"][: n - 1],
                               "starter": caller})
    play(state, "call END")
    final_lap(state, *[(caller + i) % n for i in range(1, n)])
    assert state.is_terminal
    return state.round_results[0]


def test_O21_worked_example():
    hands = [["5S", "4H", "3D", "10H"], ["AS", "2H", "6C", "10D"], ["KS", "2S", "2C", "AD"],
             ["QH", "4C", "3C", "3S"]]
    result = called_round(hands)
    assert result.hand_totals == (12, 9, 25, 30)
    assert result.points_added == (24, 0, 25, 30)


def test_O19_caller_strictly_lowest_adds_nothing():
    result = called_round([["AS", "2S"], ["4S"], ["KS"], ["10S"]])
    assert result.hand_totals == (3, 4, 20, 10)
    assert result.points_added == (0, 4, 20, 10)


def test_O19_a_tie_fails_the_call():
    result = called_round([["4S"], ["3S", "AC"], ["KS"], ["10H"]])
    assert result.hand_totals == (4, 4, 20, 0)
    assert result.points_added == (8, 4, 20, 0)


def test_O19_caller_not_at_seat_zero_with_six_players():
    hands = [["KS"], ["AS"], ["10H", "10D"], ["QS"], ["2S", "AH"], ["3S"]]
    result = called_round(hands, caller=4)
    assert result.hand_totals == (20, 1, 0, 20, 3, 3)
    assert result.points_added == (20, 0, 0, 20, 6, 3)


def test_O20_no_call_lowest_adds_nothing_ties_included():
    hands = [["5S"], ["2S", "3S"], ["10H", "5H"], ["KS"]]
    state = new_state(max_turns_per_round=1, options={"hands": hands, "draw_pile": ["8D"], "starter": 0})
    play(state, "draw", "discard drawn", "pass")
    assert state.round_results[0].points_added == (0, 0, 0, 20)


# --- ending the game ------------------------------------------------------------------------
def test_O22_game_ends_at_150_with_a_shared_rank():
    hands = [["5S"], ["10S"], ["10H"], ["KS"]]
    state = new_state(options={"hands": hands, "discard_pile": ["5H"], "starter": 0, "scores": [130, 120, 140, 135]})
    play(state, "match select slot 0", "match confirm")
    assert state.round_results[0].points_added == (0, 10, 0, 20)
    assert state.scores == [130, 130, 140, 155]
    assert state.is_terminal and not state.is_truncated
    assert state.current_player is None and state.phase == Phase.GAME_OVER
    assert state.ranks() == [1, 1, 3, 4]
    assert state.winners() == [0, 1]
    assert not state.legal_action_mask().any()
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply(state.action_from_name("draw"))


def test_O22_exactly_the_target_ends_the_game_and_the_target_is_configurable():
    hands = [["5S"], ["10S"], ["10H"], ["KS"]]
    state = new_state(target_score=30, options={"hands": hands, "discard_pile": ["5H"], "starter": 0,
                                                "scores": [0, 0, 0, 10]})
    play(state, "match select slot 0", "match confirm")
    assert state.scores == [0, 10, 0, 30] and state.is_terminal
    assert state.ranks() == [1, 3, 1, 4]


def test_O22_O23_below_the_target_a_new_round_is_dealt():
    hands = [["5S"], ["10S"], ["10H"], ["KS"]]
    state = new_state(seed=4, options={"hands": hands, "discard_pile": ["5H"], "starter": 0,
                                       "scores": [130, 120, 140, 129]})
    play(state, "match select slot 0", "match confirm")
    assert state.scores == [130, 130, 140, 149] and not state.is_terminal
    table = state.table
    assert state.round_index == 1
    assert all(len(h) == 4 and EMPTY not in h for h in table.hands), "O-04: a fresh deal"
    assert table.discard_pile == [] and len(table.draw_pile) == 36
    known = table.knowledge.known
    for p in range(4):
        assert set(np.flatnonzero(known[p]).tolist()) == set(table.hands[p][2:4]), "O-05 again, nothing older"
    assert state.caller is None and state.turns_completed == 0 and state.phase == Phase.MAIN
    assert state.current_player == 1, "O-06: players 0 and 1 tie at 130: first clockwise after starter 0"
    table.check_every_card_once()


def test_O23_starter_in_a_dealt_round():
    hands = [["5S"], ["10S"], ["10H"], ["KS"]]
    state = new_state(seed=4, options={"hands": hands, "discard_pile": ["5H"], "starter": 0,
                                       "scores": [20, 20, 5, 60]})
    play(state, "match select slot 0", "match confirm")
    assert state.scores == [20, 30, 5, 80]
    assert state.current_player == 2 and state.starter == 2, "O-06: the unique lowest total starts"


def test_single_round_option_ends_the_episode_after_one_round():
    hands = [["5S"], ["10S"], ["10H"], ["KS"]]
    state = new_state(single_round=True, options={"hands": hands, "discard_pile": ["5H"], "starter": 0})
    play(state, "match select slot 0", "match confirm")
    assert state.is_terminal and state.scores == [0, 10, 0, 20]


def test_illegal_actions_name_the_action_and_the_legal_ones():
    state = new_state(options={"hands": FILLER[:4], "starter": 0})
    with pytest.raises(IllegalActionError) as err:
        play(state, "take discard into slot 0")
    message = str(err.value)
    assert "take discard into slot 0" in message and "player_0" in message
    assert f"{state.action_from_name('draw')} (draw)" in message and "call END" in message
    with pytest.raises(IllegalActionError, match="out of range"):
        state.apply(10_000)


def test_engine_is_deterministic_given_seed_and_actions():
    def run(seed):
        state = OneFiftyState(OneFiftyConfig(num_players=5), np.random.default_rng(seed))
        rng = np.random.default_rng(99)
        trace = []
        while not state.is_terminal:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            trace.append(action)
            state.apply(action)
        return trace, state.scores, [r.points_added for r in state.round_results]

    assert run(3) == run(3)
    assert run(3) != run(4)
