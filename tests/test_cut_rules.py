"""Rules tests for cut_v0 on stacked decks; each test cites the rule ids it checks
(docs/cut.md, C-01 … C-17)."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.core.cards import parse_card
from cardenv.core.table import EMPTY
from cardenv.engine.rounds import IllegalActionError
from cardenv.games.cut import POINTS, CutConfig, CutObserver, CutState, Phase

# Every test hand: slots 2 and 3 are what the owner saw at the start (C-03).
TWO_HANDS = [["7S", "2H", "3H", "4H"], ["7H", "8C", "9C", "10C"]]


def new_game(hands, draw=(), discard=(), starter=0, seed=0, **config) -> CutState:
    config.setdefault("num_players", len(hands))
    options = {"hands": hands, "draw_pile": list(draw), "discard_pile": list(discard), "starter": starter}
    return CutState(CutConfig(**config), np.random.default_rng(seed), options)


def act(state: CutState, *names: str) -> None:
    for name in names:
        state.apply(state.action_from_name(name))


def slot_names(state: CutState, player: int) -> list[str]:
    return ["--" if c == EMPTY else state.card_name(c) for c in state.table.hands[player]]


def knowers(state: CutState, player: int, slot: int) -> list[int]:
    card = state.table.card_at(player, slot)
    return np.flatnonzero(state.table.knowledge.known[:, card]).tolist()


def legal_names(state: CutState) -> set[str]:
    return {state.action_name(a) for a in state.legal_actions()}


def pass_window(state: CutState) -> None:
    while state.phase == Phase.WINDOW:
        act(state, "pass")


# --- cards, deck, setup ---------------------------------------------------------------

def test_c01_one_52_card_deck_and_2_to_6_players():
    state = CutState(CutConfig(), np.random.default_rng(0))
    assert state.num_players == 4  # C-01 default
    assert sorted(state.table.card_types.tolist()) == list(range(52))
    for n in (2, 6):
        CutConfig(num_players=n)
    for n in (1, 7):
        with pytest.raises(ValueError, match="from 2 to 6"):
            CutConfig(num_players=n)


def test_c02_points():
    names = "AS 2H 9D 10C JS QH KD".split()
    assert [int(POINTS[parse_card(n)]) for n in names] == [1, 2, 9, 10, 0, 20, 20]
    state = new_game([["AS", "10C", "JS", "KD"], ["QH", "2H", "5S", "6S"]])
    assert state.hand_total(0) == 1 + 10 + 0 + 20
    # An empty slot scores 0: remove a card by a successful match.
    state = new_game([["KS", "10C", "JS", "AD"], ["QH", "2H", "5S", "6S"]], draw=["KH"])
    act(state, "draw", "discard drawn", "K: own slot 0", "K: look at opponent +1 slot 0", "K: keep")
    act(state, "match own slot 0", "pass")
    assert slot_names(state, 0)[0] == "--"
    assert state.hand_total(0) == 10 + 0 + 1


def test_c03_deal_four_and_peek_the_bottom_row():
    state = CutState(CutConfig(num_players=3), np.random.default_rng(5))
    table = state.table
    assert [len(h) for h in table.hands] == [4, 4, 4]
    assert len(table.draw_pile) == 52 - 12 and table.discard_pile == []
    for p in range(3):
        for s in range(4):
            expected = [p] if s in (2, 3) else []
            assert knowers(state, p, s) == expected, (p, s)
    # The observation shows exactly the two peeked slots of the observer.
    observer = CutObserver(state.config)
    pieces = observer.layout.views(observer.observe(state, 1))
    assert pieces["slot_known"][0].tolist()[:4] == [0, 0, 1, 1]
    assert pieces["slot_known"][1:].sum() == 0


def test_c04_random_first_starter_then_clockwise():
    starters = {CutState(CutConfig(), np.random.default_rng(seed)).starter for seed in range(30)}
    assert starters == {0, 1, 2, 3}
    assert CutState(CutConfig(), np.random.default_rng(7)).starter == CutState(CutConfig(),
                                                                                np.random.default_rng(7)).starter
    state = new_game(TWO_HANDS + [["2S", "3S", "4S", "5S"]], starter=2, seed=1)
    act(state, "call Cut!")
    for _ in range(2):  # the two final turns: draw, discard, everyone passes
        act(state, "draw", "discard drawn")
        while state.phase != Phase.TURN and state.round_index == 0:
            act(state, "pass" if state.phase == Phase.WINDOW else "decline power")
    assert state.round_index == 1 and state.starter == 0 and state.current_player == 0


# --- a turn -------------------------------------------------------------------------

def test_c05_draw_or_cut_and_only_the_drawer_sees_the_card():
    state = new_game(TWO_HANDS, draw=["9H"], discard=["8S"])
    assert legal_names(state) == {"draw", "call Cut!"}
    act(state, "draw")
    held = state.table.held[0]
    assert [state.card_name(c) for c in held] == ["9H"]
    assert np.flatnonzero(state.table.knowledge.known[:, held[0]]).tolist() == [0]
    # The discard pile was not drawn from.
    assert [state.card_name(c) for c in state.table.discard_pile] == ["8S"]


def test_c06a_discard_drawn_face_up():
    state = new_game(TWO_HANDS, draw=["9H"])
    act(state, "draw", "discard drawn")
    top = state.table.top_discard
    assert state.card_name(top) == "9H" and state.table.knowledge.known[:, top].all()
    assert state.phase == Phase.WINDOW


def test_c06b_place_into_occupied_slot_only():
    state = new_game(TWO_HANDS, draw=["9H", "JD"])
    act(state, "draw", "place drawn into slot 1")
    assert slot_names(state, 0) == ["7S", "9H", "3H", "4H"]
    assert state.card_name(state.table.top_discard) == "2H"
    assert knowers(state, 0, 1) == [0]
    # Empty one of player 1's slots with a 7 match to check empty slots cannot be chosen.
    state = new_game(TWO_HANDS, draw=["7D", "9H"])
    act(state, "draw", "discard drawn", "pass", "match own slot 0")
    assert slot_names(state, 1)[0] == "--"
    pass_window(state)
    act(state, "draw")
    assert "place drawn into slot 0" not in legal_names(state)
    assert {"place drawn into slot 1", "place drawn into slot 2", "place drawn into slot 3"} <= legal_names(state)
    with pytest.raises(IllegalActionError, match="place drawn into slot 0"):
        act(state, "place drawn into slot 0")


@pytest.mark.parametrize("power_on_replace", [True, False])
def test_c07_power_on_replace_variant(power_on_replace):
    state = new_game([["5S", "2H", "3H", "4H"], TWO_HANDS[1]], draw=["9H"], power_on_replace=power_on_replace)
    act(state, "draw", "place drawn into slot 0")
    assert state.card_name(state.table.top_discard) == "5S"
    assert state.phase == (Phase.PEEK_OWN if power_on_replace else Phase.WINDOW)


# --- match windows --------------------------------------------------------------------

def test_c08_window_after_the_action_and_its_power():
    state = new_game([TWO_HANDS[0], TWO_HANDS[1], []], draw=["6D"], starter=1)
    act(state, "draw", "discard drawn")
    assert state.phase == Phase.PEEK_OTHER and state.window is None  # the power comes first
    # Player 2 (+1 from player 1) holds nothing, so only player 0 (+2) can be looked at.
    assert legal_names(state) == {"decline power"} | {f"6: look at opponent +2 slot {s}" for s in range(4)}
    act(state, "6: look at opponent +2 slot 0")
    assert state.phase == Phase.WINDOW and state.card_name(state.window.trigger) == "6D"


def test_c08_window_players_mask_and_observation():
    hands = [TWO_HANDS[0], TWO_HANDS[1], []]
    state = new_game(hands, draw=["9H"], starter=1)
    act(state, "draw", "discard drawn")
    # Clockwise from the turn player; the empty hand decides too (C-08).
    assert state.window.players == [1, 2, 0]
    assert state.current_player == 1
    legal = legal_names(state)
    # Every occupied slot is a legal target whether or not it matches (no leak).
    assert legal == ({"pass"} | {f"match own slot {s}" for s in range(4)}
                     | {f"call out opponent +2 slot {s}" for s in range(4)})
    observer = CutObserver(state.config)
    before = observer.layout.views(observer.observe(state, 0).copy())
    assert before["window_open"][0] == 1 and before["window_rank"].argmax() == 8  # rank 9
    assert before["window_decided"][0] == 0
    act(state, "match own slot 1")  # player 1's pending attempt
    after = observer.layout.views(observer.observe(state, 0))
    # Player 0 sees that it is its turn to decide, never what player 1 decided.
    assert after["window_decided"][0] == 0
    for name in ("slot_present", "slot_known", "slot_rank", "slot_known_by", "window_rank", "power_slots"):
        assert np.array_equal(before[name], after[name]), name
    assert observer.layout.views(observer.observe(state, 1))["window_decided"][0] == 1



def reference_window_mask(state: CutState) -> list[int]:
    """C-08 the plain way: pass, and, with room for a penalty card, every occupied slot of
    every seat (the decider's own to match, the others' to call out)."""
    legal = [state.action_table.first("pass")]
    p, n = state.current_player, state.num_players
    hand = state.table.hands[p]
    if len(hand) < state.config.max_hand_slots or EMPTY in hand:
        for offset in range(n):
            for slot, card in enumerate(state.table.hands[(p + offset) % n]):
                if card != EMPTY:
                    legal.append(state.action_table.id("match" if offset == 0 else "call_out", slot,
                                                       None if offset == 0 else offset))
    return sorted(legal)


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_c08_window_masks_against_the_plain_loop(num_players):
    """The window mask, whose occupied slots are found once per window and turned to each
    decider's seat, against the plain loop; also in clones and after a hand is changed
    by hand mid-window (``mark_changed``)."""
    rng = np.random.default_rng(num_players)
    windows = changed = 0
    for seed in range(20):
        state = CutState(CutConfig(num_players=num_players), np.random.default_rng(seed))
        while not state.is_terminal:
            if state.phase == Phase.WINDOW:
                windows += 1
                assert state.legal_actions() == reference_window_mask(state)
                twin = state.clone()
                assert twin.legal_actions() == reference_window_mask(twin)
                if rng.random() < 0.05:  # a slot emptied by hand: the cached slots must go
                    p = int(rng.integers(num_players))
                    occupied = state.table.occupied_slots(p)
                    if occupied:
                        state.table.hands[p][occupied[0]] = EMPTY
                        state.mark_changed()
                        assert state.legal_actions() == reference_window_mask(state)
                        changed += 1
                        break
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    assert windows > 100 and changed > 0

def test_c09_race_for_the_same_card_one_wins_the_other_takes_a_penalty():
    winners = set()
    for seed in range(12):
        state = new_game(TWO_HANDS, draw=["7D", "KC"], seed=seed)
        act(state, "draw", "discard drawn", "match own slot 0", "match own slot 0")
        match = [e for e in state.events if e.kind == "match"]
        failed = [e for e in state.events if e.kind == "failed attempt"]
        penalty = [e for e in state.events if e.kind == "penalty"]
        assert len(match) == 1 and len(failed) == 1 and len(penalty) == 1
        winner, loser = match[0].player, failed[0].player
        assert {winner, loser} == {0, 1} and penalty[0].player == loser
        winners.add(winner)
        assert slot_names(state, winner)[0] == "--"
        # Too late: the loser's 7 was shown to all and stays; the penalty is new slot 4.
        assert slot_names(state, loser)[0] in ("7S", "7H") and knowers(state, loser, 0) == [0, 1]
        assert slot_names(state, loser)[4] == "KC" and knowers(state, loser, 4) == []
        # C-09 chain: the winner's 7 on top opens a new window, and the loser may match now.
        assert state.phase == Phase.WINDOW and state.window.players == [0, 1]
        assert state.card_name(state.table.top_discard) == TWO_HANDS[winner][0]
        name = "match own slot 0"
        act(state, *(name if p == loser else "pass" for p in state.window.players))
        assert slot_names(state, loser)[0] == "--"
        assert len([e for e in state.events if e.kind == "match"]) == 2
        # A third window on the loser's 7; nobody succeeds, so it closes for good.
        assert state.phase == Phase.WINDOW
        pass_window(state)
        assert state.phase == Phase.TURN and state.current_player == 1 and state.window is None
    assert winners == {0, 1}  # the race is really random


def test_c09_wrong_match_shows_the_card_and_takes_a_penalty():
    state = new_game(TWO_HANDS, draw=["7D", "KC"])
    act(state, "draw", "discard drawn", "match own slot 1", "pass")
    assert slot_names(state, 0) == ["7S", "2H", "3H", "4H", "KC"]
    assert knowers(state, 0, 1) == [0, 1]  # shown to all, stays in place
    assert knowers(state, 0, 4) == []  # the penalty card is seen by nobody
    assert state.card_name(state.table.top_discard) == "7D"
    # Nobody succeeded: the window closed for good and the turn passed.
    assert state.phase == Phase.TURN and state.current_player == 1


def test_c09_wrong_call_out_and_penalty_into_first_empty_slot():
    state = new_game(TWO_HANDS, draw=["7D", "KC", "QS"])
    act(state, "draw", "discard drawn", "pass", "match own slot 0")  # player 1 empties slot 0
    act(state, "pass", "call out opponent +1 slot 3")  # player 1 claims player 0's 4H: wrong
    assert slot_names(state, 1) == ["KC", "8C", "9C", "10C"]  # penalty into the empty slot 0
    assert knowers(state, 0, 3) == [0, 1]


def test_c09_call_out_then_give():
    state = new_game(TWO_HANDS, draw=["7D"])
    act(state, "draw", "discard drawn", "call out opponent +1 slot 0", "pass")
    assert state.card_name(state.table.top_discard) == "7H"
    assert state.phase == Phase.GIVE and state.current_player == 0
    assert legal_names(state) == {f"give own slot {s}" for s in range(4)}
    observer = CutObserver(state.config)
    seen_by_1 = observer.layout.views(observer.observe(state, 1))
    assert seen_by_1["give_slot"][0, 0] == 1  # player 1's own slot 0 is to be filled (public)
    act(state, "give own slot 3")
    assert slot_names(state, 0) == ["7S", "2H", "3H", "--"]
    assert slot_names(state, 1) == ["4H", "8C", "9C", "10C"]
    assert knowers(state, 1, 0) == [0]  # the receiver does not see it; the giver still knows it
    # The called-out 7H on top opens a new window (C-09 chain): player 0's 7S can match.
    assert state.phase == Phase.WINDOW and state.window_rank == 6
    act(state, "match own slot 0", "pass")
    assert slot_names(state, 0) == ["--", "2H", "3H", "--"]
    pass_window(state)
    assert state.phase == Phase.TURN and state.current_player == 1


def test_c09_late_claim_on_the_same_card_fails():
    # Both claim player 1's 7H; whichever resolves second is too late.
    seen_orders = set()
    for seed in range(10):
        state = new_game(TWO_HANDS, draw=["7D", "KC", "QC"], seed=seed)
        act(state, "draw", "discard drawn", "call out opponent +1 slot 0", "match own slot 0")
        first = next(e.player for e in state.events if e.kind in ("match", "call out"))
        seen_orders.add(first)
        if state.phase == Phase.GIVE:
            act(state, "give own slot 1")
        failed = [e for e in state.events if e.kind == "failed attempt"]
        assert len(failed) == 1 and failed[0].player != first
        assert len([e for e in state.events if e.kind == "penalty"]) == 1
    assert seen_orders == {0, 1}


def test_c09_an_attempt_on_a_card_that_left_its_slot_is_late_and_shows_nothing():
    """Player 0 attempts its own 7S in slot 0; player 1 calls that same card out. If the
    call-out resolves first and player 1 gives its 8C into player 0's slot 0, player 0's
    attempt is late: the given 8C is not shown (C-09: the receiver does not see it)."""
    orders = set()
    for seed in range(16):
        state = new_game(TWO_HANDS, draw=["7D", "KC", "QC"], seed=seed)
        act(state, "draw", "discard drawn", "match own slot 0", "call out opponent +1 slot 0")
        if state.phase != Phase.GIVE:  # player 0's match resolved first: the call-out is late
            orders.add("match first")
            assert slot_names(state, 0)[0] == "--"
            assert [e.cards for e in state.events if e.kind == "failed attempt"] == [()]
            continue
        orders.add("call-out first")
        act(state, "give own slot 1")  # player 1's 8C into player 0's slot 0
        assert slot_names(state, 0)[0] == "8C"
        failed = [e for e in state.events if e.kind == "failed attempt"]
        assert len(failed) == 1 and failed[0].player == 0 and failed[0].cards == ()
        assert "already gone" in failed[0].text
        assert knowers(state, 0, 0) == []  # nobody saw the given 8C (the giver never had)
        assert [e.player for e in state.events if e.kind == "penalty"] == [0]
    assert orders == {"match first", "call-out first"}


def test_c09_an_attempt_on_a_slot_refilled_by_a_penalty_is_late():
    """A penalty card dropped into a slot emptied earlier in the same resolution was never
    claimed: an attempt on that slot is late and shows nothing (C-09)."""
    hands = [["7S", "2H", "3H", "4H"], ["9H", "8C", "9C", "10C"], ["5D", "6D", "8D", "JD"]]
    for seed in range(24):
        state = new_game(hands, draw=["7D", "KC", "QC", "JC"], seed=seed)
        # 0 matches its 7S (slot 0); 1 claims its 9H wrongly; 2 calls out player 0's slot 0.
        act(state, "draw", "discard drawn", "match own slot 0", "match own slot 0",
            "call out opponent +1 slot 0")
        shown = [e.cards for e in state.events if e.kind == "failed attempt"]
        # However the race went, no failed attempt showed a card nobody claimed.
        for cards in shown:
            assert all(state.card_name(c) in ("9H", "7S") for c in cards)


def test_c08_a_player_without_cards_may_pass_or_call_out():
    hands = [TWO_HANDS[0], TWO_HANDS[1], []]
    state = new_game(hands, draw=["7D", "KC"], starter=0)
    act(state, "draw", "discard drawn", "pass", "pass")
    assert state.current_player == 2 and state.window.players == [0, 1, 2]
    assert legal_names(state) == {"pass"} | {f"call out opponent +{o} slot {s}" for o in (1, 2) for s in range(4)}
    act(state, "call out opponent +2 slot 0")  # player 1's 7H: correct
    # A success with nothing to give gives nothing (C-09); the 7H on top opens a new window.
    assert state.card_name(state.table.top_discard) == "7H"
    assert slot_names(state, 1)[0] == "--" and slot_names(state, 2) == []
    assert state.phase == Phase.WINDOW and state.window.players == [0, 1, 2]


def test_c08_a_player_without_cards_who_calls_out_wrongly_takes_a_penalty():
    hands = [TWO_HANDS[0], TWO_HANDS[1], []]
    state = new_game(hands, draw=["7D", "KC"], starter=0)
    act(state, "draw", "discard drawn", "pass", "pass", "call out opponent +1 slot 1")  # player 0's 2H: wrong
    assert slot_names(state, 2) == ["KC"]  # no empty slot: a new one (C-09)
    assert knowers(state, 2, 0) == []
    assert knowers(state, 0, 1) == [0, 1, 2]  # the claimed 2H was shown to all


def test_c09_matching_never_fires_a_power():
    state = new_game([["5S", "2H", "3H", "4H"], TWO_HANDS[1]], draw=["5D"])
    act(state, "draw", "discard drawn", "decline power", "match own slot 0", "pass")
    assert state.card_name(state.table.top_discard) == "5S"
    assert state.phase == Phase.WINDOW  # the chain's window, not a 5 power


def test_c09_an_attempt_needs_room_for_a_penalty():
    full = ["2S", "3S", "4S", "6S", "8S", "9S", "10S", "JS"]
    state = new_game([full, TWO_HANDS[1]], draw=["7D"], max_hand_slots=8)
    act(state, "draw", "discard drawn")
    assert legal_names(state) == {"pass"}


# --- powers ---------------------------------------------------------------------------

def test_c10_five_looks_at_own_slot():
    state = new_game([["5S", "2H", "3H", "4H"], TWO_HANDS[1]], draw=["5D"])
    act(state, "draw", "discard drawn")
    assert state.phase == Phase.PEEK_OWN
    assert legal_names(state) == {"decline power"} | {f"5: look at own slot {s}" for s in range(4)}
    act(state, "5: look at own slot 0")
    assert knowers(state, 0, 0) == [0] and state.phase == Phase.WINDOW


def test_c10_six_looks_at_an_opponent_slot_and_c11_everyone_sees_where():
    state = new_game([TWO_HANDS[0], TWO_HANDS[1], ["2S", "3S", "4S", "8S"]], draw=["6D"])
    act(state, "draw", "discard drawn")
    assert state.phase == Phase.PEEK_OTHER
    act(state, "6: look at opponent +2 slot 1")
    assert knowers(state, 2, 1) == [0]
    observer = CutObserver(state.config)
    seen_by_1 = observer.layout.views(observer.observe(state, 1))
    # C-11: player 1 sees that player 0 (2 seats on from 1) knows player 2's slot 1, not the card.
    assert seen_by_1["slot_known_by"][1, 1].tolist() == [0, 0, 1] and seen_by_1["slot_known"][1, 1] == 0


def test_c10_queen_blind_swap():
    state = new_game(TWO_HANDS, draw=["QD"])
    act(state, "draw", "discard drawn")
    known_before = state.table.knowledge.known.copy()
    assert state.phase == Phase.QUEEN_OWN
    act(state, "Q: own slot 0")
    observer = CutObserver(state.config)
    seen_by_1 = observer.layout.views(observer.observe(state, 1))
    assert seen_by_1["power_slots"][1, 0] == 1  # C-11: the chosen slot is public
    act(state, "Q: swap with opponent +1 slot 2")
    assert slot_names(state, 0) == ["9C", "2H", "3H", "4H"]
    assert slot_names(state, 1) == ["7H", "8C", "7S", "10C"]
    # Nobody saw either card: knowledge only moved with the cards (player 1 still knows 9C).
    assert np.array_equal(state.table.knowledge.known, known_before)
    assert knowers(state, 0, 0) == [1] and knowers(state, 1, 2) == []
    assert state.phase == Phase.WINDOW


def test_c10_king_look_then_swap():
    state = new_game(TWO_HANDS, draw=["KD"])
    act(state, "draw", "discard drawn", "K: own slot 0", "K: look at opponent +1 slot 1")
    assert state.phase == Phase.KING_DECIDE
    assert legal_names(state) == {"K: swap", "K: keep"}
    assert knowers(state, 0, 0) == [0] and knowers(state, 1, 1) == [0]
    observer = CutObserver(state.config)
    mine = observer.layout.views(observer.observe(state, 0))
    assert mine["slot_known"][0, 0] == 1 and mine["slot_known"][1, 1] == 1
    assert mine["power_slots"][0, 0] == 1 and mine["power_slots"][1, 1] == 1
    act(state, "K: swap")
    assert slot_names(state, 0)[0] == "8C" and slot_names(state, 1)[1] == "7S"
    assert knowers(state, 1, 1) == [0]  # player 1 got 7S without seeing it
    assert state.phase == Phase.WINDOW


def test_c10_king_keep_and_decline():
    state = new_game(TWO_HANDS, draw=["KD"])
    act(state, "draw", "discard drawn", "K: own slot 0", "K: look at opponent +1 slot 1", "K: keep")
    assert slot_names(state, 0) == TWO_HANDS[0] and slot_names(state, 1) == TWO_HANDS[1]
    state = new_game(TWO_HANDS, draw=["KD"])
    act(state, "draw", "discard drawn", "K: own slot 0", "decline power")
    assert state.phase == Phase.WINDOW and knowers(state, 0, 0) == []


def test_c10_jack_has_no_power():
    state = new_game(TWO_HANDS, draw=["JD"])
    act(state, "draw", "discard drawn")
    assert state.phase == Phase.WINDOW


# --- ending a round, scoring ----------------------------------------------------------------

def test_c14_cut_gives_every_other_player_one_final_turn():
    hands = [["AS", "AH", "2S", "2H"], TWO_HANDS[1], ["3S", "3H", "4S", "8S"]]
    state = new_game(hands, draw=["7D", "9D", "10D"])
    act(state, "call Cut!")
    assert state.caller == 0 and state.current_player == 1
    assert legal_names(state) == {"draw"}  # nobody may call Cut! a second time
    act(state, "draw", "discard drawn")
    # Windows keep working during final turns: player 1 matches 7H.
    act(state, "match own slot 0", "pass", "pass")  # window order: 1, 2, 0
    assert slot_names(state, 1)[0] == "--"
    pass_window(state)
    assert state.current_player == 2 and legal_names(state) == {"draw"}
    act(state, "draw", "discard drawn")
    pass_window(state)
    assert state.round_index == 1
    result = state.round_results[0]
    assert result.caller == 0 and result.reason == "the final lap after the call is over"


def test_c15_reshuffle_the_discards_but_the_top():
    state = new_game(TWO_HANDS, draw=["9D"])
    table = state.table
    # Only 9D is left to draw: every other deck card lies face up under the discard pile.
    for card in table.draw_pile[:-1]:
        table.discard_face_up(card)
    table.draw_pile = table.draw_pile[-1:]
    act(state, "draw", "discard drawn")
    pass_window(state)
    assert table.draw_pile == [] and len(table.discard_pile) == 52 - 8
    act(state, "draw")
    table.check_every_card_once()
    assert [state.card_name(c) for c in table.discard_pile] == ["9D"]
    assert len(table.draw_pile) == 52 - 8 - 2
    drawn = table.held[1][0]
    assert np.flatnonzero(table.knowledge.known[:, drawn]).tolist() == [1]
    assert not table.knowledge.known[:, table.draw_pile].any()  # shuffled cards are forgotten


def _all_but_9d_in_hands(**config) -> CutState:
    """Six hands hold 51 cards, so once 9D is drawn and discarded nothing can be drawn."""
    names = [n for n in (r + s for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split() for s in "SHDC") if n != "9D"]
    hands, start = [], 0
    for size in (8, 9, 9, 9, 8, 8):
        hands.append(names[start:start + size])
        start += size
    return new_game(hands, draw=["9D"], max_hand_slots=9, single_round=True, **config)


def test_c15_no_card_to_draw_ends_the_round():
    state = _all_but_9d_in_hands()
    act(state, "draw", "discard drawn")
    pass_window(state)
    assert state.current_player == 1 and not state.is_terminal
    act(state, "draw")
    assert state.is_terminal and state.round_results[0].reason == "no card can be drawn"


def test_c15_no_card_for_a_penalty_ends_the_round():
    state = _all_but_9d_in_hands()
    act(state, "draw", "discard drawn", "match own slot 1")  # AH: wrong
    pass_window(state)
    assert state.is_terminal and state.round_results[0].reason == "no card can be drawn"
    state.table.check_every_card_once()


def test_c15_turn_cap():
    state = new_game(TWO_HANDS, max_turns_per_round=3, single_round=True)
    for _ in range(3):
        act(state, "draw", "discard drawn")
        while state.phase not in (Phase.TURN, Phase.GAME_OVER):
            act(state, "pass" if state.phase == Phase.WINDOW else "decline power")
    assert state.is_terminal
    result = state.round_results[0]
    assert result.reason == "the turn cap was reached" and result.caller is None
    assert result.points_added == result.hand_totals  # C-16: no caller, no bonus


def _cut_then_finish(hands, draw, starter=0, **config) -> CutState:
    state = new_game(hands, draw=draw, starter=starter, single_round=True, **config)
    act(state, "call Cut!")
    while not state.is_terminal:
        if state.phase == Phase.TURN:
            act(state, "draw")
        elif state.phase == Phase.DRAWN:
            act(state, "discard drawn")
        else:
            act(state, "pass" if state.phase == Phase.WINDOW else "decline power")
    return state


def test_c16_caller_tied_for_lowest_takes_10():
    hands = [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"], ["KS", "KH", "QS", "QH"]]
    state = _cut_then_finish(hands, draw=["9D", "9C"])
    result = state.round_results[0]
    assert result.hand_totals == (10, 10, 80)
    assert result.points_added == (20, 10, 80)
    assert state.scores == [20, 10, 80]


def test_c16_caller_strictly_lowest_adds_nothing_extra():
    hands = [["AS", "2S", "3S", "JS"], ["AH", "2H", "3H", "4H"]]
    state = _cut_then_finish(hands, draw=["9D"])
    assert state.round_results[0].points_added == (6, 10)


def test_c16_caller_not_lowest_takes_10():
    hands = [["AH", "2H", "3H", "4H"], ["AS", "2S", "3S", "JS"]]
    state = _cut_then_finish(hands, draw=["9D"])
    assert state.round_results[0].points_added == (20, 6)


def test_c17_game_to_target_lowest_wins_ties_share():
    hands = [["AS", "2S", "3S", "4S"], ["KS", "KH", "QS", "QH"], ["AH", "2H", "3H", "4H"]]
    options = {"hands": hands, "draw_pile": ["9D", "9C"], "starter": 1, "scores": [50, 30, 60]}
    state = CutState(CutConfig(num_players=3), np.random.default_rng(0), options)
    act(state, "call Cut!")  # player 1 (80 points) calls: 80 + 10
    while not state.is_terminal:
        if state.phase == Phase.TURN:
            act(state, "draw")
        elif state.phase == Phase.DRAWN:
            act(state, "discard drawn")
        else:
            act(state, "pass")
    assert state.scores == [60, 120, 70]
    assert state.winners() == [0] and state.ranks() == [1, 3, 2]
    assert state.current_player is None and state.phase == Phase.GAME_OVER


def test_c17_below_target_starts_the_next_round_and_max_rounds_truncates():
    hands = [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"]]
    options = {"hands": hands, "draw_pile": ["9D"], "starter": 0}
    state = CutState(CutConfig(num_players=2, max_rounds=1), np.random.default_rng(0), options)
    act(state, "call Cut!", "draw", "discard drawn", "pass", "pass")
    assert state.is_terminal and state.is_truncated
    state = CutState(CutConfig(num_players=2), np.random.default_rng(0), options)
    act(state, "call Cut!", "draw", "discard drawn", "pass", "pass")
    assert not state.is_terminal and state.round_index == 1
    assert [len(h) for h in state.table.hands] == [4, 4] and state.caller is None


def test_docs_worked_example():
    """The worked example of docs/cut.md, with a seed where player 1's claim resolves first."""
    for seed in range(50):
        state = new_game(TWO_HANDS, draw=["7D", "KC"], seed=seed)
        act(state, "draw", "discard drawn", "call out opponent +1 slot 0", "match own slot 1")
        if state.phase == Phase.GIVE and any(e.kind == "penalty" for e in state.events):
            break
    else:
        pytest.fail("no seed resolves player 1's claim first")
    assert knowers(state, 1, 1) == [0, 1] and slot_names(state, 1)[4] == "KC" and knowers(state, 1, 4) == []
    act(state, "give own slot 2")
    assert knowers(state, 1, 0) == [0]
    act(state, "match own slot 0", "pass", "pass", "pass")
    assert slot_names(state, 0) == ["--", "2H", "--", "4H"] and state.hand_total(0) == 6
    assert slot_names(state, 1) == ["3H", "8C", "9C", "10C", "KC"] and state.hand_total(1) == 50
    assert state.phase == Phase.TURN and state.current_player == 1
