"""Rules tests for kaboom_v0 on stacked decks; each test cites the rule ids it checks
(docs/kaboom.md, K-01 … K-19)."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.core.cards import parse_card
from cardenv.core.table import EMPTY
from cardenv.games.kaboom import POINTS, KaboomConfig, KaboomObserver, KaboomState, Phase

# Four hands of four; slots 2 and 3 are what each owner saw at the start (K-09).
HANDS = [["2S", "3S", "4S", "5S"], ["2H", "3H", "4H", "5H"], ["2D", "3D", "4D", "5D"], ["2C", "3C", "4C", "5C"]]


def new_game(hands=HANDS, draw=(), discard=(), starter=0, seed=0, **config) -> KaboomState:
    config.setdefault("num_players", len(hands))
    options = {"hands": hands, "draw_pile": list(draw), "discard_pile": list(discard), "starter": starter}
    return KaboomState(KaboomConfig(**config), np.random.default_rng(seed), options)


def act(state: KaboomState, *names: str) -> None:
    for name in names:
        state.apply(state.action_from_name(name))


def legal_names(state: KaboomState) -> set[str]:
    return {state.action_name(a) for a in state.legal_actions()}


def slot_names(state: KaboomState, player: int) -> list[str]:
    return ["--" if c == EMPTY else state.card_name(c) for c in state.table.hands[player]]


def knowers(state: KaboomState, player: int, slot: int) -> list[int]:
    return np.flatnonzero(state.table.knowledge.known[:, state.table.card_at(player, slot)]).tolist()


def pass_window(state: KaboomState) -> None:
    while state.phase == Phase.WINDOW:
        act(state, "pass")


def quiet_turn(state: KaboomState) -> None:
    """Draw, discard the drawn card (no power expected), everyone passes the window."""
    act(state, "draw", "discard drawn")
    pass_window(state)


def observe(state: KaboomState, seat: int) -> dict[str, np.ndarray]:
    observer = KaboomObserver(state.config)
    return observer.layout.views(observer.observe(state, seat))


# --- cards and values -----------------------------------------------------------------------

def test_k01_one_54_card_deck_with_two_jokers_and_2_to_8_players():
    state = KaboomState(KaboomConfig(), np.random.default_rng(0))
    assert state.num_players == 4  # the default
    assert sorted(state.table.card_types.tolist()) == list(range(54))
    assert {state.card_name(c) for c in range(54)} >= {"RJ", "BJ"}
    for n in (2, 8):
        KaboomConfig(num_players=n)
    for n in (1, 9):
        with pytest.raises(ValueError, match="from 2 to 8"):
            KaboomConfig(num_players=n)


def test_k02_points():
    names = "AS 2H 9D 10C JS QH KS KC KH KD RJ BJ".split()
    assert [int(POINTS[parse_card(n)]) for n in names] == [1, 2, 9, 10, 10, 10, 10, 10, -2, -2, 0, 0]
    state = new_game([["KH", "RJ", "AS", "10C"], ["KD", "KS", "QH", "2H"]])
    assert state.hand_total(0) == -2 + 0 + 1 + 10
    assert state.hand_total(1) == -2 + 10 + 10 + 2


# --- powers ------------------------------------------------------------------------------------

def test_k03_black_six_swaps_two_own_cards_and_is_mandatory():
    state = new_game(draw=["6S"])
    act(state, "draw", "discard drawn")
    assert state.phase == Phase.BLACK_SIX_FIRST
    assert legal_names(state) == {f"black 6: own slot {s}" for s in range(4)}  # no decline
    act(state, "black 6: own slot 0")
    assert legal_names(state) == {f"black 6: own slot {s}" for s in (1, 2, 3)}
    act(state, "black 6: own slot 3")
    assert slot_names(state, 0) == ["5S", "3S", "4S", "2S"]
    assert knowers(state, 0, 0) == [0]  # the seen 5S moved, and is still known to its owner
    assert state.events[-1].kind == "black six" and state.events[-1].places == ((0, 0), (0, 3))
    assert state.phase == Phase.WINDOW  # K-11 once the power is resolved


def test_k03_black_six_is_skipped_with_fewer_than_two_own_cards():
    state = new_game([["2S"], ["2H", "3H"]], draw=["6C"])
    act(state, "draw", "discard drawn")
    assert state.phase == Phase.WINDOW and not state.power_picks


def test_k04_red_six_swaps_cards_of_two_other_players_unseen():
    state = new_game(draw=["6H"])
    act(state, "draw", "discard drawn")
    assert state.phase == Phase.RED_SIX_FIRST
    names = legal_names(state)
    assert names == {f"red 6: player +{o} slot {s}" for o in (1, 2, 3) for s in range(4)}
    act(state, "red 6: player +1 slot 0")
    assert "red 6: player +1 slot 0" not in legal_names(state)
    assert "red 6: player +1 slot 1" in legal_names(state)  # two cards of one opponent are allowed
    act(state, "red 6: player +3 slot 2")
    assert slot_names(state, 1)[0] == "4C" and slot_names(state, 3)[2] == "2H"
    assert knowers(state, 1, 0) == [3] and knowers(state, 3, 2) == []  # 4C was seen by player 3 only
    assert state.events[-1].kind == "red six" and state.events[-1].visible_to is None
    assert state.events[-1].places == ((1, 0), (3, 2))


def test_k04_red_six_two_cards_of_one_opponent_and_skipped_without_two_cards():
    state = new_game([["2S", "3S"], ["2H", "3H"]], draw=["6D"])
    act(state, "draw", "discard drawn", "red 6: player +1 slot 0", "red 6: player +1 slot 1")
    assert slot_names(state, 1) == ["3H", "2H"]
    state = new_game([["2S", "3S"], ["2H"]], draw=["6D"])
    act(state, "draw", "discard drawn")
    assert state.phase == Phase.WINDOW


def test_k05_seven_or_eight_looks_at_an_own_card_optionally():
    for card in ("7S", "8H"):
        state = new_game(draw=[card])
        act(state, "draw", "discard drawn")
        assert state.phase == Phase.LOOK_OWN
        assert legal_names(state) == {f"7/8: look at own slot {s}" for s in range(4)} | {"decline power"}
        act(state, "7/8: look at own slot 0")
        assert knowers(state, 0, 0) == [0]
        assert state.phase == Phase.WINDOW
    state = new_game(draw=["7D"])
    act(state, "draw", "discard drawn", "decline power")
    assert knowers(state, 0, 0) == [] and state.phase == Phase.WINDOW


def test_k06_nine_or_ten_looks_at_another_players_card_optionally():
    state = new_game(draw=["10S"])
    act(state, "draw", "discard drawn")
    assert state.phase == Phase.LOOK_OTHER and "decline power" in legal_names(state)
    act(state, "9/10: look at player +2 slot 1")
    assert knowers(state, 2, 1) == [0]
    assert state.events[-1].places == ((2, 1),) and state.events[-1].visible_to == (0,)


def test_k07_jack_or_queen_exchanges_blind():
    for card in ("JS", "QD"):
        state = new_game(draw=[card])
        act(state, "draw", "discard drawn")
        assert state.phase == Phase.BLIND_OWN and "decline power" not in legal_names(state)
        act(state, "J/Q: own slot 0", "J/Q: exchange with player +1 slot 1")
        assert slot_names(state, 0)[0] == "3H" and slot_names(state, 1)[1] == "2S"
        assert knowers(state, 0, 0) == [] and knowers(state, 1, 1) == []  # nobody sees them


def test_k08_black_king_take():
    state = new_game(draw=["KS"])
    act(state, "draw", "discard drawn")
    assert state.phase == Phase.KING_LOOK and "decline power" in legal_names(state)
    act(state, "black K: look at player +1 slot 0")
    assert knowers(state, 1, 0) == [0]
    assert state.phase == Phase.KING_DECIDE
    names = legal_names(state)
    assert "black K: leave it" in names
    assert {f"black K: take it, giving own slot {s}" for s in range(4)} <= names
    # A third player only: never the player looked at.
    assert {n for n in names if n.startswith("black K: give")} == {
        f"black K: give it to player +{o} slot {s}" for o in (2, 3) for s in range(4)}
    act(state, "black K: take it, giving own slot 1")
    assert slot_names(state, 0)[1] == "2H" and slot_names(state, 1)[0] == "3S"
    assert knowers(state, 0, 1) == [0]  # the taken card was seen
    assert knowers(state, 1, 0) == []  # the given card: nobody looked at it
    assert state.events[-1].kind == "king take"


def test_k08_black_king_leave_and_give_to_a_third_player():
    state = new_game(draw=["KC"])
    act(state, "draw", "discard drawn", "black K: look at player +1 slot 0", "black K: leave it")
    assert slot_names(state, 1)[0] == "2H" and state.events[-1].kind == "king leave"
    state = new_game(draw=["KC"])
    act(state, "draw", "discard drawn", "black K: look at player +1 slot 0", "black K: give it to player +2 slot 3")
    assert slot_names(state, 1)[0] == "5D" and slot_names(state, 2)[3] == "2H"
    assert knowers(state, 2, 3) == [0]  # the looker knows where the card it saw went
    assert knowers(state, 1, 0) == [2]  # the third player's 5D: seen only by its old owner
    assert state.events[-1].kind == "king give" and state.events[-1].places == ((1, 0), (2, 3))
    state = new_game(draw=["KS"])
    act(state, "draw", "discard drawn", "decline power")  # the whole power is optional
    assert state.phase == Phase.WINDOW


@pytest.mark.parametrize("card", ["KH", "KD", "RJ", "BJ", "AH", "2C", "3C", "4D", "5D"])
def test_k08_red_king_jokers_and_ace_to_five_have_no_power(card):
    state = new_game([["10S", "10H", "10D", "10C"], ["JS", "JH", "JD", "JC"]], draw=[card])
    act(state, "draw", "discard drawn")
    assert state.phase == Phase.WINDOW and not state.power_picks


def test_k08a_frozen_cards_are_refused_by_every_mask():
    """Player 1 called KABOOM: no power of player 2 and no snap may touch its cards."""
    hands = [["2S", "3S", "4S", "5S"], ["9H", "3H", "4H", "5H"], ["2D", "3D", "4D", "5D"]]
    frozen_prefix = "player +2"  # player 1 seen from player 2
    for card, steps in [("6H", []), ("9S", []), ("JS", ["J/Q: own slot 0"]), ("KS", []),
                        ("KC", ["black K: look at player +1 slot 0"])]:
        state = new_game(hands, draw=["AC", card], starter=0)
        quiet_turn(state)  # player 0
        act(state, "call KABOOM")  # player 1
        assert state.callers == [1] and state.current_player == 2
        act(state, "draw", "discard drawn", *steps)
        names = legal_names(state)
        assert names, card
        assert not any(frozen_prefix in n for n in names), (card, names)
        v = observe(state, 2)
        assert v["frozen"].tolist() == [0, 0, 1]  # seat-relative: player 1 is two seats on
    # Snaps: the caller decides in no window, even holding a matching card.
    state = new_game(hands, draw=["AC", "9S"], starter=0)
    quiet_turn(state)
    act(state, "call KABOOM", "draw", "discard drawn", "decline power")
    assert state.phase == Phase.WINDOW and state.window.players == [2, 0]
    # A red 6 needs two unfrozen cards of others: with only player 0's it still fires.
    state = new_game([["2S", "3S"], ["9H", "3H"], ["2D"]], draw=["AC", "6D"], starter=0)
    quiet_turn(state)
    act(state, "call KABOOM", "draw", "discard drawn")
    assert state.phase == Phase.RED_SIX_FIRST
    assert legal_names(state) == {"red 6: player +1 slot 0", "red 6: player +1 slot 1"}


# --- setup and a turn --------------------------------------------------------------------------

def test_k09_deal_four_peek_the_bottom_row_and_the_starter_rotates():
    state = KaboomState(KaboomConfig(num_players=3), np.random.default_rng(5))
    assert [len(h) for h in state.table.hands] == [4, 4, 4]
    assert len(state.table.draw_pile) == 54 - 12 and state.table.discard_pile == []
    for p in range(3):
        for s in range(4):
            assert knowers(state, p, s) == ([p] if s in (2, 3) else []), (p, s)
    starters = {KaboomState(KaboomConfig(), np.random.default_rng(seed)).starter for seed in range(30)}
    assert starters == {0, 1, 2, 3}  # round 1's dealer is random
    state = new_game(HANDS[:3], draw=["AC", "AD"], starter=2)
    act(state, "call KABOOM")
    quiet_turn(state)
    quiet_turn(state)
    assert state.round_index == 1 and state.starter == 0 and state.current_player == 0


def test_k09a_call_or_draw_and_only_the_drawer_sees_the_card():
    state = new_game(draw=["9H"], discard=["8S"])
    assert legal_names(state) == {"draw", "call KABOOM"}  # K-10: never the discard pile
    act(state, "draw")
    held = state.table.held[0]
    assert [state.card_name(c) for c in held] == ["9H"]
    assert np.flatnonzero(state.table.knowledge.known[:, held[0]]).tolist() == [0]
    assert [state.card_name(c) for c in state.table.discard_pile] == ["8S"]


def test_k09b_replace_fires_no_power_and_discard_does():
    state = new_game([["KS", "3S", "4S", "5S"], ["2H", "3H", "4H", "5H"]], draw=["AD"])
    act(state, "draw")
    assert legal_names(state) == {"discard drawn"} | {f"put drawn into slot {s}" for s in range(4)}
    act(state, "put drawn into slot 0")
    assert slot_names(state, 0)[0] == "AD" and state.card_name(state.table.top_discard) == "KS"
    assert state.phase == Phase.WINDOW  # the black King left a hand: no power (K-09b)
    assert knowers(state, 0, 0) == [0]


def test_k10_the_discard_pile_is_never_drawn_from():
    state = new_game(draw=["9H"], discard=["AS"])
    act(state, "draw", "put drawn into slot 0")
    assert [state.card_name(c) for c in state.table.discard_pile] == ["AS", "2S"]
    kinds = {state.action_table.specs[a].kind for a in range(state.num_actions)}
    assert not any("take" in k and "king" not in k for k in kinds)


# --- snaps ---------------------------------------------------------------------------------------

def test_k11_window_after_every_face_up_card_for_every_unfrozen_holder_the_discarder_included():
    state = new_game([["2S", "3S", "4S", "5S"], ["2H", "3H", "4H", "5H"], []], draw=["AS"], starter=1)
    act(state, "draw", "discard drawn")
    assert state.phase == Phase.WINDOW
    assert state.window.players == [1, 0]  # clockwise from the discarder; player 2 holds no card
    assert legal_names(state) == {"pass"} | {f"snap select own slot {s}" for s in range(4)}
    v = observe(state, 0)
    assert v["window_open"][0] == 1 and v["window_decided"][0] == 0
    act(state, "pass")
    v = observe(state, 1)
    assert v["window_decided"][0] == 1


def test_k11_same_rank_and_opposite_colour_qualify():
    # A black 9 on a red 9 succeeds; the red joker on the black joker too.
    for top, card in (("9H", "9S"), ("9D", "9C"), ("BJ", "RJ"), ("RJ", "BJ"), ("KH", "KC")):
        state = new_game([["2S", "3S", "4S", card], ["2H", "3H", "4H", "5H"]], draw=[top])
        act(state, "draw", "discard drawn")
        if state.phase != Phase.WINDOW:
            act(state, "decline power")
        act(state, "snap select own slot 3", "snap confirm", "pass")
        assert slot_names(state, 0)[3] == "--", (top, card)
        assert state.card_name(state.table.top_discard) == card
    # Same colour, or another rank: wrong.
    for top, card in (("9S", "9C"), ("9H", "9D"), ("9H", "8S")):
        state = new_game([["2S", "3S", "4S", card], ["2H", "3H", "4H", "5H"]], draw=[top])
        act(state, "draw", "discard drawn")
        if state.phase != Phase.WINDOW:
            act(state, "decline power")
        act(state, "snap select own slot 3", "snap confirm", "pass")
        assert slot_names(state, 0)[3] == card and len(state.table.hands[0]) == 6, (top, card)


def test_k12_a_race_is_decided_both_ways_across_seeds():
    hands = [["2S", "3S", "4S", "5S"], ["9S", "3H", "4H", "5H"], ["9C", "3D", "4D", "5D"]]
    winners = set()
    for seed in range(30):
        state = new_game(hands, draw=["9H"], seed=seed)
        act(state, "draw", "discard drawn", "decline power", "pass", "snap select own slot 0", "snap confirm",
            "snap select own slot 0", "snap confirm")
        snapped = [p for p in (1, 2) if slot_names(state, p)[0] == "--"]
        late = [p for p in (1, 2) if slot_names(state, p)[0] != "--"]
        assert len(snapped) == 1 and len(late) == 1
        assert len(state.table.hands[late[0]]) == 5  # K-12: one penalty card for the late one
        assert len(state.table.hands[snapped[0]]) == 4
        assert state.table.knowledge.known[:, state.table.card_at(late[0], 0)].all()  # shown to all
        winners.add(snapped[0])
    assert winners == {1, 2}


def test_k12_wrong_snap_costs_two_unseen_penalty_cards_at_the_end_of_the_hand():
    state = new_game([["2S", "3S", "4S", "5S"], ["2H", "3H", "4H", "5H"]], draw=["9H", "AC", "AD"])
    act(state, "draw", "discard drawn", "decline power", "pass", "snap select own slot 0", "snap confirm")
    assert slot_names(state, 1) == ["2H", "3H", "4H", "5H", "AC", "AD"]
    assert knowers(state, 1, 0) == [0, 1]  # the wrong card was shown to all and stays
    assert knowers(state, 1, 4) == [] and knowers(state, 1, 5) == []  # K-13: nobody sees penalties
    assert [e.kind for e in state.events[-3:]] == ["wrong snap", "penalty", "penalty"]
    assert state.phase == Phase.TURN and state.current_player == 1  # no success: the window closed


def test_k12_a_snap_chain_opens_a_new_window_after_every_success():
    hands = [["2S", "3S", "4S", "5S"], ["9S", "3H", "4H", "5H"], ["9D", "3D", "4D", "5D"]]
    state = new_game(hands, draw=["9H"])
    act(state, "draw", "discard drawn", "decline power", "pass", "snap select own slot 0", "snap confirm", "pass",
        "leave the gap")
    assert state.card_name(state.table.top_discard) == "9S" and state.phase == Phase.WINDOW
    assert state.window.players == [0, 1, 2]  # a new window for everyone, the snapper too
    act(state, "pass", "pass", "snap select own slot 0", "snap confirm", "leave the gap")
    assert state.card_name(state.table.top_discard) == "9D" and state.phase == Phase.WINDOW
    pass_window(state)
    assert state.phase == Phase.TURN and state.current_player == 1


def test_k12_a_multi_card_snap_goes_on_in_selection_order():
    state = new_game([["2S", "9H", "4S", "9D"], ["2H", "3H", "4H", "5H"]], draw=["9C"])
    act(state, "draw", "discard drawn", "decline power", "snap select own slot 3")
    assert legal_names(state) == {"snap confirm"} | {f"snap select own slot {s}" for s in (0, 1, 2)}
    assert observe(state, 0)["snap_selected"].tolist()[:4] == [0, 0, 0, 1]
    assert observe(state, 1)["snap_selected"].sum() == 0  # nobody else sees it
    act(state, "snap select own slot 1", "snap confirm", "pass")
    assert slot_names(state, 0) == ["2S", "--", "4S", "--"]
    assert [state.card_name(c) for c in state.table.discard_pile[-3:]] == ["9C", "9D", "9H"]
    # A multi-card attempt with one wrong card is wrong: every card returns.
    state = new_game([["2S", "9H", "4S", "9S"], ["2H", "3H", "4H", "5H"]], draw=["9C"])
    act(state, "draw", "discard drawn", "decline power", "snap select own slot 1", "snap select own slot 3",
        "snap confirm", "pass")
    assert slot_names(state, 0)[:4] == ["2S", "9H", "4S", "9S"] and len(state.table.hands[0]) == 6


def test_k13_attempts_need_room_for_two_penalty_cards():
    hands = [["2S", "3S", "4S", "5S", "6S"], ["2H", "3H", "4H", "5H"]]
    state = new_game(hands, draw=["AC"], max_hand_slots=6)
    act(state, "draw", "discard drawn")
    assert state.window.players == [1]  # player 0 has room for one penalty card only
    # An emptied slot at the end of the hand is room again; one between cards is not.
    state = new_game([["9D", "3S", "4S", "5S", "9H"], ["2H", "3H", "4H", "5H"]], draw=["9C"], max_hand_slots=6)
    act(state, "draw", "discard drawn", "decline power")
    assert state.window.players == [1]
    act(state, "snap select own slot 0", "snap confirm")  # player 1's wrong snap
    assert len(state.table.hands[1]) == 6
    assert state.room_for_penalties(0) == 1


def snapped_slot_0() -> KaboomState:
    """Player 0 has just snapped 9S from slot 0 onto 9H (K-11); it knows 4S and 5S (K-09)."""
    hands = [["9S", "3S", "4S", "5S"], ["2H", "3H", "4H", "5H"], ["2D", "3D", "4D", "5D"]]
    state = new_game(hands, draw=["9H", "AC", "AD"])
    act(state, "draw", "discard drawn", "decline power", "snap select own slot 0", "snap confirm", "pass", "pass")
    return state


def test_k13b_the_snapper_may_close_the_gap_and_the_cards_keep_what_is_known_of_them():
    state = snapped_slot_0()
    assert state.phase == Phase.SLIDE and state.current_player == 0 and state.window is None
    assert legal_names(state) == {"close the gap", "leave the gap"}
    for seat in range(3):  # public: the gap, in the snapper's row
        gaps = observe(state, seat)["snap_gaps"]
        assert gaps.sum() == 1 and gaps[(0 - seat) % 3, 0] == 1
    assert state.room_for_penalties(0) == 4
    act(state, "close the gap")
    assert slot_names(state, 0) == ["3S", "4S", "5S", "--"]
    assert knowers(state, 0, 1) == [0] and knowers(state, 0, 2) == [0] and knowers(state, 0, 0) == []
    assert observe(state, 0)["slot_known"][0, :4].tolist() == [0, 1, 1, 0]  # 4S and 5S, one slot up
    assert state.room_for_penalties(0) == 5  # K-13: the end of the hand moved up
    slide = state.events[-1]
    assert slide.kind == "slide" and slide.player == 0 and slide.places == ((0, 0), (0, 1), (0, 2), (0, 3))
    assert observe(state, 1)["event_places"][0, 2, :4].tolist() == [1, 1, 1, 1]  # what moved, for all to see
    # Then the snapped card opens its window (K-12), the snapper's included.
    assert state.phase == Phase.WINDOW and state.card_name(state.window.trigger) == "9S"
    assert state.window.players == [0, 1, 2] and observe(state, 1)["snap_gaps"].sum() == 0


def test_k13b_leaving_the_gap_moves_nothing():
    state = snapped_slot_0()
    act(state, "leave the gap")
    assert slot_names(state, 0) == ["--", "3S", "4S", "5S"] and knowers(state, 0, 2) == [0]
    assert state.events[-1].kind == "snap" and state.phase == Phase.WINDOW


def test_k13b_no_choice_when_no_own_card_lies_after_the_gap():
    hands = [["3S", "4S", "5S", "9S"], ["2H", "3H", "4H", "5H"]]
    state = new_game(hands, draw=["9H", "AC"])
    act(state, "draw", "discard drawn", "decline power", "snap select own slot 3", "snap confirm", "pass")
    assert slot_names(state, 0) == ["3S", "4S", "5S", "--"] and state.phase == Phase.WINDOW


def test_k13b_a_multi_card_snap_closes_every_gap_it_made_and_penalties_go_after_the_last_card():
    hands = [["2S", "9H", "4S", "9D", "7S"], ["2H", "3H", "4H", "5H"]]
    state = new_game(hands, draw=["9C", "AC", "AD"])
    act(state, "draw", "discard drawn", "decline power", "snap select own slot 1", "snap select own slot 3",
        "snap confirm", "pass", "close the gap")
    assert slot_names(state, 0) == ["2S", "4S", "7S", "--", "--"]
    assert state.events[-1].places == ((0, 1), (0, 2), (0, 4))
    # A wrong snap of player 0 in the next window: its penalty cards go after its last card.
    act(state, "snap select own slot 0", "snap confirm", "pass")
    assert slot_names(state, 0) == ["2S", "4S", "7S", "AC", "AD"]


def test_k13b_a_two_card_snap_offers_the_slide_for_an_own_card_between_its_gaps_only():
    """K-13b: the slide is offered when some own card lies after the *first* emptied
    slot; here slots 0 and 3 are snapped together, and the only cards left lie between
    the gaps (none after the last one): they may still slide into slot 0."""
    hands = [["9H", "3S", "4S", "9D"], ["2H", "3H", "4H", "5H"], ["2D", "3D", "4D", "5D"]]
    state = new_game(hands, draw=["9C", "AC", "AD"])
    act(state, "draw", "discard drawn", "decline power", "snap select own slot 0", "snap select own slot 3",
        "snap confirm", "pass", "pass")
    assert slot_names(state, 0) == ["--", "3S", "4S", "--"]
    assert state.phase == Phase.SLIDE and state.current_player == 0
    assert legal_names(state) == {"close the gap", "leave the gap"}
    for seat in range(3):  # public: both gaps, in the snapper's row
        gaps = observe(state, seat)["snap_gaps"]
        assert gaps.sum() == 2 and gaps[(0 - seat) % 3, 0] == 1 and gaps[(0 - seat) % 3, 3] == 1
    act(state, "close the gap")
    assert slot_names(state, 0) == ["3S", "4S", "--", "--"]
    assert knowers(state, 0, 1) == [0]  # 4S, seen at the deal (K-09), one slot up
    assert state.phase == Phase.WINDOW and state.card_name(state.window.trigger) == "9D"


@pytest.mark.parametrize("choice", ["leave the gap", "close the gap"])
def test_k13b_once_the_snapper_chose_no_seat_sees_a_gap_any_more(choice):
    """K-13b: the gap is shown (to everyone) only while the snapper decides; after
    either choice, every seat's observation shows none, through the next window and
    the next turn."""
    state = snapped_slot_0()
    assert all(observe(state, seat)["snap_gaps"].sum() == 1 for seat in range(3))
    act(state, choice)
    assert state.phase == Phase.WINDOW
    while True:
        for seat in range(3):
            assert observe(state, seat)["snap_gaps"].sum() == 0, (choice, seat, state.phase)
        if state.phase != Phase.WINDOW:
            break
        act(state, "pass")
    assert state.phase == Phase.TURN and state.current_player == 1
    act(state, "draw")
    assert all(observe(state, seat)["snap_gaps"].sum() == 0 for seat in range(3))
    expected = ["--", "3S", "4S", "5S"] if choice == "leave the gap" else ["3S", "4S", "5S", "--"]
    assert slot_names(state, 0) == expected


def test_k13a_a_player_emptied_by_snaps_plays_on_and_scores_zero():
    hands = [["2S", "3S", "4S", "5S"], ["9S"], ["2D", "3D", "4D", "5D"]]
    state = new_game(hands, draw=["9H", "6C", "JC", "AC", "AD"])
    act(state, "draw", "discard drawn", "decline power", "pass", "snap select own slot 0", "snap confirm", "pass")
    assert slot_names(state, 1) == ["--"]
    assert state.window.players == [0, 2]  # the new window: player 1 holds no card
    pass_window(state)
    act(state, "draw")
    assert state.current_player == 1 and state.turn_player == 1
    assert legal_names(state) == {"discard drawn"}  # K-13a: must discard
    act(state, "discard drawn")  # a black 6 needs own cards: skipped
    assert state.phase == Phase.WINDOW and 1 not in state.window.players
    pass_window(state)
    act(state, "draw", "discard drawn", "J/Q: own slot 0")  # player 2 plays a J
    # The empty-handed player 1 (two seats on) is no target; player 0 is.
    assert legal_names(state) == {f"J/Q: exchange with player +1 slot {s}" for s in range(4)}
    act(state, "J/Q: exchange with player +1 slot 0")
    pass_window(state)
    act(state, "call KABOOM")
    quiet_turn(state)
    quiet_turn(state)
    result = state.round_results[0]
    assert result.hand_totals[1] == 0 and result.points_added[1] == 0


# --- KABOOM and the end of a round -----------------------------------------------------------------

def test_k14_the_caller_freezes_and_everyone_else_has_one_more_turn():
    state = new_game(draw=["AC", "AD", "AH"], starter=1)
    act(state, "call KABOOM")
    assert state.callers == [1] and state.current_player == 2 and state.final_turns_left == 3
    quiet_turn(state)
    quiet_turn(state)
    assert state.round_index == 0 and state.current_player == 0
    quiet_turn(state)
    assert state.round_index == 1  # after the player before the caller
    assert state.round_results[0].caller == 1


def test_k14_two_callers_the_lap_still_ends_at_the_first():
    state = new_game(draw=["AC", "AD"], starter=0)
    act(state, "call KABOOM")
    act(state, "call KABOOM")  # player 1 calls during the lap: its final turn
    assert state.callers == [0, 1] and state.current_player == 2
    quiet_turn(state)
    assert state.round_index == 0 and state.current_player == 3
    quiet_turn(state)
    assert state.round_index == 1
    result = state.round_results[0]
    assert result.callers == (0, 1) and result.caller == 0


def _round_with_callers(totals_hands, callers) -> tuple[int, ...]:
    """Play a round where ``callers`` (in seat order from 0) call at once and the others
    draw and discard an ace; returns the points added."""
    draw = ["AC", "AD", "AH", "AS"][: len(totals_hands) - len(callers)]
    state = new_game(totals_hands, draw=draw, starter=0)
    for seat in range(len(totals_hands)):
        if seat in callers:
            act(state, "call KABOOM")
        else:
            quiet_turn(state)
    assert state.round_index == 1
    return state.round_results[0].points_added


def test_k16_k17_a_lone_caller_lowest_subtracts_ten():
    # Lone caller 3 vs others 5, 7, 9 → caller adds −7.
    added = _round_with_callers([["3S"], ["5S"], ["7S"], ["9S"]], [0])
    assert added == (-7, 5, 7, 9)


def test_k16_k17_a_caller_adds_ten_per_player_it_lost_to_ties_with_non_callers_lose():
    # Lone caller 6 vs others 5, 6, 9 → caller adds 6 + 20 = 26.
    added = _round_with_callers([["6S"], ["5S"], ["6D"], ["9S"]], [0])
    assert added == (26, 5, 6, 9)


def test_k16_k17_callers_tying_lowest_add_their_hands():
    # Callers A=4 and B=4 vs non-callers 7, 9 → A adds 4, B adds 4.
    added = _round_with_callers([["4S"], ["4H"], ["7S"], ["9S"]], [0, 1])
    assert added == (4, 4, 7, 9)


def test_k16_k17_tying_callers_beaten_by_a_non_caller_add_ten_each():
    # Callers A=4 and B=4 vs non-callers 3, 9 → A adds 14, B adds 14.
    added = _round_with_callers([["4S"], ["4H"], ["3S"], ["9S"]], [0, 1])
    assert added == (14, 14, 3, 9)


def test_k16_a_caller_losing_to_another_caller_counts_it():
    added = _round_with_callers([["5S"], ["2H"], ["7S"], ["9S"]], [0, 1])
    assert added == (15, -8, 7, 9)


def test_k15_reshuffle_keeps_the_top_card():
    deck = [f"{r}{s}" for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
    deck += ["RJ", "BJ"]
    hands = [deck[0:4], deck[4:8]]
    state = new_game(hands, discard=deck[8:])  # the draw pile is empty
    top = state.table.top_discard
    assert state.table.draw_pile == [] and state.card_name(top) == "BJ"
    act(state, "draw")
    assert state.table.discard_pile == [top]
    assert len(state.table.draw_pile) == 54 - 8 - 1 - 1
    assert not state.table.knowledge.known[:, state.table.draw_pile].any()  # forgotten by all


def test_k15_no_card_to_draw_ends_the_round():
    deck = [f"{r}{s}" for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
    deck += ["RJ", "BJ"]
    state = new_game([deck[0:27], deck[27:53]], discard=deck[53:], max_hand_slots=30)
    act(state, "draw")
    assert state.round_results[0].reason == "no card can be drawn"


def test_k15a_the_turn_cap_ends_the_round():
    state = new_game(draw=["AC", "AD"], max_turns_per_round=2)
    quiet_turn(state)
    assert state.round_index == 0
    quiet_turn(state)
    assert state.round_results[0].reason == "the turn cap was reached"
    assert state.round_results[0].points_added == tuple(state.round_results[0].hand_totals)


def test_k18_the_game_ends_at_the_target_and_lowest_wins_ties_share():
    state = new_game([["9S"], ["2S"], ["2H"]], draw=["AC", "AD"], target_score=100)
    state.scores = [95, 50, 50]
    act(state, "call KABOOM")
    quiet_turn(state)
    quiet_turn(state)
    assert state.is_terminal and state.scores == [95 + 9 + 20, 52, 52]
    assert state.winners() == [1, 2] and state.ranks() == [3, 1, 1]


@pytest.mark.parametrize("num_players", [2, 8])
def test_two_and_eight_players_play_whole_games(num_players):
    state = KaboomState(KaboomConfig(num_players=num_players), np.random.default_rng(num_players))
    rng = np.random.default_rng(0)
    while not state.is_terminal:
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
        state.table.check_every_card_once()
    assert max(state.scores) >= 100 or state.is_truncated
    assert len({len(h) for h in (state.table.hands[p] for p in range(num_players))}) >= 1


def test_observation_shows_colour_wherever_it_shows_a_card():
    state = new_game([["2S", "3S", "KH", "KC"], ["2H", "3H", "4H", "5H"]], draw=["RJ"], discard=["9D"])
    v = observe(state, 0)
    assert v["slot_red"][0, :4].tolist() == [0, 0, 1, 0]  # only shown cards: slots 2 and 3
    assert v["slot_points"][0, 2] == pytest.approx(-0.2)  # the red King's −2 / 10
    assert v["top_discard_red"][0] == 1 and v["top_discard_rank"].argmax() == 8
    act(state, "draw")
    v = observe(state, 0)
    assert v["drawn_card_red"][0] == 1 and v["drawn_card_rank"].argmax() == 13  # the red joker
    act(state, "discard drawn")
    v = observe(state, 1)
    assert v["event_face_up_colour"][0].tolist() == [0, pytest.approx(1 / 27)]


# --- elimination (K-19) ------------------------------------------------------------------------------

def test_k19_a_player_at_the_target_leaves_and_the_others_play_on():
    state = new_game([["9S"], ["2S"], ["2H"]], draw=["AC", "AD"], elimination=True, target_score=100)
    state.scores = [95, 50, 60]
    act(state, "call KABOOM")
    quiet_turn(state)
    quiet_turn(state)
    assert not state.is_terminal and state.eliminated == [True, False, False]
    assert [e.player for e in state.events if e.kind == "out"] == [0]
    assert state.table.hands[0] == [] and [len(h) for h in state.table.hands[1:]] == [4, 4]  # no cards dealt
    # K-09: the dealer (player 2, the seat before the first starter) moves to the next
    # seat in play, player 1, and the player after the dealer starts.
    assert state.dealer == 1 and state.starter == state.current_player == 2
    # Nobody may touch the player who left, and the final lap counts only those in play.
    act(state, "call KABOOM")
    assert state.final_turns_left == 1
    v = observe(state, 1)
    assert v["out"].tolist() == [0, 0, 1]


@pytest.mark.parametrize("num_players, dealer, gone, next_dealer, next_starter", [
    (3, 2, [0], 1, 2),  # the starter left: the deal moves past it, and the dealer's neighbour starts
    (4, 3, [0, 1], 2, 3),  # the starter and the seat after it left
    (4, 3, [3], 0, 1),  # the dealer left
    (4, 3, [1], 0, 2),  # the seat that would have started round 2 left
])
def test_k09_k19_the_deal_rotates_past_players_who_left(num_players, dealer, gone, next_dealer, next_starter):
    """K-09 with K-19: the dealer moves one seat clockwise skipping players who left, and
    the player after the dealer starts, whoever started the round before."""
    starter = (dealer + 1) % num_players
    hands = [[f"9{'SCDH'[p]}"] if p in gone else [f"{p + 2}H"] for p in range(num_players)]
    state = new_game(hands, draw=["AC", "AD", "2C", "3C"], starter=starter, elimination=True, target_score=100)
    state.scores = [95 if p in gone else 0 for p in range(num_players)]
    assert state.dealer == dealer
    while state.round_index == 0:
        act(state, "call KABOOM" if state.current_player == starter else "draw")
        if state.phase == Phase.DRAWN:
            act(state, "discard drawn")
        pass_window(state)
    assert [p for p in range(num_players) if state.eliminated[p]] == gone
    assert state.dealer == next_dealer and state.starter == state.current_player == next_starter


def test_k19_the_last_player_left_wins_and_ranks_follow_the_order_of_leaving():
    state = new_game([["9S"], ["2S"], ["2H"]], draw=["AC", "AD"], elimination=True, target_score=100)
    state.scores = [95, 50, 99]
    act(state, "call KABOOM")  # 9 + 20: player 0 reaches 124
    quiet_turn(state)
    quiet_turn(state)  # player 2's 2 brings it to 101: both leave together
    assert state.is_terminal and state.eliminated == [True, False, True]
    assert state.winners() == [1] and state.ranks() == [3, 1, 2]


# --- docs/kaboom.md, "Worked example" ----------------------------------------------------------------

WORKED_EXAMPLE = {
    "hands": [["9S", "KH", "2C", "5D"], ["QH", "8C", "9D", "AS"], ["3S", "7H", "10C", "KS"]],
    "draw_pile": ["9H", "4D", "AH", "AD", "KC", "2S", "3C"],
    "starter": 0,
}
WORKED_STEPS = [
    # 1. player_0 discards 9H, looks at player_1's slot 0; the window on 9H.
    "draw", "discard drawn", "9/10: look at player +1 slot 0",
    "snap select own slot 0", "snap confirm",  # player_0: 9S, never seen (right)
    "snap select own slot 2", "snap confirm",  # player_1: 9D, same colour (wrong)
    "pass",  # player_2
    "leave the gap",  # player_0 (K-13b)
    # 2. the window on 9S: player_1 snaps its shown 9D and closes the gap; then the window on 9D.
    "pass", "snap select own slot 2", "snap confirm", "pass", "close the gap",
    "pass", "pass", "pass",
    # 3. player_1 puts AD in slot 1; 8C goes face up without power.
    "draw", "put drawn into slot 1", "pass", "pass", "pass",
    # 4. player_2 discards the black King, looks at player_1's AD and takes it.
    "draw", "discard drawn", "black K: look at player +2 slot 1", "black K: take it, giving own slot 1",
    "pass", "pass", "pass",
    # 5. player_0 calls KABOOM; players 1 and 2 take their final turns.
    "call KABOOM",
    "draw", "discard drawn", "pass", "pass",
    "draw", "discard drawn", "pass", "pass",
]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_worked_example_in_the_docs_holds_whatever_the_resolution_order(seed):
    state = KaboomState(KaboomConfig(num_players=3, single_round=True), np.random.default_rng(seed), WORKED_EXAMPLE)
    act(state, *WORKED_STEPS[:8])
    assert slot_names(state, 0) == ["--", "KH", "2C", "5D"]
    assert slot_names(state, 1) == ["QH", "8C", "9D", "AS", "4D", "AH"]
    act(state, *WORKED_STEPS[8:14])
    assert slot_names(state, 1) == ["QH", "8C", "AS", "4D", "AH", "--"]
    act(state, *WORKED_STEPS[14:])
    assert state.is_terminal
    assert slot_names(state, 1) == ["QH", "7H", "AS", "4D", "AH", "--"]
    result = state.round_results[0]
    assert result.hand_totals == (5, 23, 24) and result.points_added == (-5, 23, 24) and result.callers == (0,)
