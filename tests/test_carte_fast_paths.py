"""carte_v0's fast paths against straightforward references kept here.

The engine's play-phase mask tests selectable types with bit masks and spares
``classify`` most hands; the references below are the plain readings: every type
through the general ``completable`` search, the R-07 veto always through ``classify``.
They are compared at every step of random games whose players favour selecting,
putting down and adding, so that long selections, adds, the R-07 veto and carte all
occur (uniformly random players mostly draw and discard)."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from cardenv.core.cards import card_name
from cardenv.core.melds import JOKER, NUM_MELD_TYPES, accepts, can_start_meld, classify, completable, startable_types
from cardenv.games.carte import CarteConfig, CarteObserver, CarteState, Phase
from cardenv.testing import play_random


def leaves_a_discard(hand: list[int], pile_type: int, meld: list[int]) -> bool:
    """R-07 read plainly: a put-down or an add of ``meld`` (counts by type) may not leave
    the card taken from the pile as the only card in hand. The reference asks this only
    while the hand holds one card of the pile card's type, so a lone card of that type
    left is the pile card."""
    left = [h - m for h, m in zip(hand, meld)]
    return not (sum(left) == 1 and left[pile_type] == 1)


def types_of(counts: list[int]) -> list[int]:
    """One meld type per card of ``counts`` (per type)."""
    return [t for t, count in enumerate(counts) for _ in range(count)]


def reference_play_actions(state: CarteState) -> list[int]:
    """The play-phase legal actions, every selectable type through ``completable``."""
    table = state.action_table
    p = state.current_player
    types = [min(int(state.table.card_types[c]), JOKER) for c in state.table.hands[p]]
    hand = [types.count(t) for t in range(NUM_MELD_TYPES)]
    hand_size = len(types)
    pile = state.pile_card
    pile_type = min(int(state.table.card_types[pile]), JOKER) if pile in state.table.hands[p] else -1
    allowed = None
    if pile_type >= 0 and hand[pile_type] == 1 and hand_size <= 14:
        rest = [min(int(state.table.card_types[c]), JOKER) for c in state.table.hands[p] if c != pile]
        if classify(rest) is not None:
            allowed = partial(leaves_a_discard, hand, pile_type)
    melds = [(meld.is_run, meld.key, meld.low, meld.high, len(state.table.melds[m]))
             for m, meld in enumerate(state.melds)]
    selection = [int(c) for c in state.selection]
    legal = []
    if sum(selection) == 0:
        for t in sorted(set(types)):
            alone = [0] * NUM_MELD_TYPES
            alone[t] = 1
            rest = hand.copy()
            rest[t] -= 1
            addable = state.started[p] and any(accepts(*meld, t) is not None for meld in melds)
            if allowed is None:
                stranded = pile_type >= 0 and hand_size == 2 and t != pile_type
                selectable = (addable and not stranded) or completable(alone, rest, t)
            else:
                selectable = (addable and allowed(alone)) or completable(alone, rest, t, allowed)
            if selectable:
                legal.append(table.id("select", t))
            if hand[t] > (t == pile_type):
                legal.append(table.id("discard", t))
        if hand_size == 2 and not state.said_carte[p]:
            legal.append(table.id("carte"))
        return sorted(legal)
    last = max(t for t in range(NUM_MELD_TYPES) if selection[t])
    for t in range(last, NUM_MELD_TYPES):
        if hand[t] > selection[t]:
            grown = selection.copy()
            grown[t] += 1
            if completable(grown, [h - c for h, c in zip(hand, grown)], t, allowed):
                legal.append(table.id("select", t))
    permitted = allowed(selection) if allowed is not None else not (
        pile_type >= 0 and hand_size == sum(selection) + 1 and not selection[pile_type])
    if permitted and classify(types_of(selection)) is not None:
        legal.append(table.id("put_down"))
    if sum(selection) == 1 and state.started[p] and permitted:
        legal += [table.id("add_to", m) for m, meld in enumerate(melds) if accepts(*meld, last) is not None]
    return sorted(legal)


KEEN_KINDS = ("draw_pile", "select", "put_down", "add_to", "carte")


def keen_player(state: CarteState, rng: np.random.Generator) -> int:
    """Mostly takes the pile, selects, puts down and adds when it may; else any legal action."""
    legal = state.legal_actions()
    keen = [a for a in legal if state.action_table.specs[a].kind in KEEN_KINDS]
    if keen and rng.random() < 0.8:
        return keen[int(rng.integers(len(keen)))]
    return legal[int(rng.integers(len(legal)))]


def compare_masks(games: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    compared = 0

    def check(state: CarteState) -> None:
        nonlocal compared
        if not state.is_terminal and state.phase == Phase.PLAY:
            assert state.legal_actions() == reference_play_actions(state), state.render_text(None)
            compared += 1

    for game in range(games):
        config = CarteConfig(num_players=int(rng.integers(2, 7)), max_turns_per_round=int(rng.choice((20, 60))),
                             max_rounds=3)
        play_random(CarteState(config, np.random.default_rng(seed * 1000 + game)), rng, on_step=check,
                    choose=keen_player if game % 4 else None)
    return compared


def test_play_mask_equals_the_reference():
    assert compare_masks(games=60, seed=1) > 3_000



def test_play_mask_reads_a_selection_set_by_hand_after_mark_changed():
    """The mask counts the selection as actions make it; a selection written by other
    means is counted again by ``mark_changed``."""
    rng = np.random.default_rng(4)
    checked = 0
    for game in range(40):
        state = CarteState(CarteConfig(num_players=3), np.random.default_rng(game))
        while not state.is_terminal and checked <= game:
            if state.phase == Phase.PLAY and not state.selection.any():
                legal = [a for a in state.legal_actions() if state.action_table.specs[a].kind == "select"]
                if legal:
                    state.selection[state.action_table.specs[legal[0]].slot] = 1
                    state.mark_changed()
                    assert state.legal_actions() == reference_play_actions(state), state.render_text(None)
                    state.selection[:] = 0
                    state.mark_changed()
                    assert state.legal_actions() == reference_play_actions(state), state.render_text(None)
                    checked += 1
            state.apply(keen_player(state, rng))
    assert checked >= 30

@pytest.mark.slow
def test_play_mask_equals_the_reference_long():
    assert compare_masks(games=600, seed=2) > 30_000


def stacked_hand_games(games: int, seed: int):
    """Games whose starter holds exactly one meld (a set or a run, jokers in some) and
    finds a card on the pile: drawn, it is the R-07 case where the whole hand but the
    pile card is a meld, which random deals nearly never give."""
    rng = np.random.default_rng(seed)
    for game in range(games):
        deck = [t for t in range(54) for _ in range(2)]  # two packs; types 52, 53 are the jokers
        if rng.random() < 0.5:
            rank = int(rng.integers(13))
            meld = [rank * 4 + int(s) for s in rng.integers(4, size=int(rng.integers(3, 5)))]
        else:
            suit, length = int(rng.integers(4)), int(rng.integers(3, 8))
            low = int(rng.integers(0, 14 - length))
            meld = [((p + 1) % 13) * 4 + suit for p in range(low, low + length)]
        for i in range(len(meld)):
            if rng.random() < 0.25:
                meld[i] = 52 + int(rng.integers(2))
        pile_card = int(rng.integers(54))
        if any((meld + [pile_card]).count(t) > 2 for t in meld):
            continue  # more copies than the deck holds
        for t in meld + [pile_card]:
            deck.remove(t)
        rng.shuffle(deck)
        num_players = int(rng.integers(2, 5))
        hands = [[card_name(t) for t in meld]] + [[card_name(t) for t in deck[10 * k: 10 * k + 10]]
                                                    for k in range(num_players - 1)]
        options = {"hands": hands, "discard_pile": [card_name(pile_card)], "draw_pile": [], "starter": 0}
        yield CarteState(CarteConfig(num_players=num_players, max_turns_per_round=12, max_rounds=1),
                         np.random.default_rng(seed * 1000 + game), options)


def test_play_mask_equals_the_reference_when_r07_vetoes_a_meld():
    rng = np.random.default_rng(3)
    compared = vetoed = 0
    for state in stacked_hand_games(400, seed=3):
        state.apply(state.action_table.id("draw_pile"))
        while not state.is_terminal and state.turns_completed < 3:
            if state.phase == Phase.PLAY:
                assert state.legal_actions() == reference_play_actions(state), state.render_text(None)
                compared += 1
                vetoed += state.turns_completed == 0 and state.pile_card in state.table.hands[state.current_player]
            state.apply(keen_player(state, rng))
    assert compared > 1_500 and vetoed > 500


def test_startable_types_equal_the_general_search():
    """``startable_types`` against ``completable`` for one selected card, over random hands
    drawn from the whole deck, one suit, or two suits with jokers (runs, sets, gaps)."""
    rng = np.random.default_rng(0)
    for trial in range(20_000):
        pools = (list(range(NUM_MELD_TYPES)), [t for t in range(JOKER) if t & 3 == trial % 4] + [JOKER],
                 [t for t in range(JOKER) if t & 3 < 2] + [JOKER] * 3)
        pool = pools[trial % 3]
        hand = [0] * NUM_MELD_TYPES
        for i in rng.integers(len(pool), size=int(rng.integers(1, 16))):
            hand[pool[i]] += 1
        hand[JOKER] = min(hand[JOKER], 4)  # four jokers
        present = [t for t in range(NUM_MELD_TYPES) if hand[t]]
        expected = []
        for t in present:
            alone = [0] * NUM_MELD_TYPES
            alone[t] = 1
            rest = hand.copy()
            rest[t] -= 1
            expected.append(completable(alone, rest, t))
        assert startable_types(hand, present) == expected, hand
        assert [can_start_meld(hand, t) for t in present] == expected, hand


def test_observer_caches_follow_diverging_copies():
    """One observer's per-seat caches (melds rewritten meld by meld, the pile and the
    turned-over stock moved rather than rewritten, shared event rows) against an
    observer that starts afresh for every observation, while the observed states are
    copies that diverge (each plays on its own actions), sampled worlds and new rounds."""
    rng = np.random.default_rng(5)
    compared = 0
    for game in range(8):
        config = CarteConfig(num_players=2 + game % 4, memory=("perfect", "none")[game % 2],
                             max_turns_per_round=int(rng.choice((30, 200))), starting_score=40, recent_events=6)
        cached, fresh = CarteObserver(config), CarteObserver(config)
        states = [CarteState(config, np.random.default_rng(game))]
        for _ in range(700):
            state = states[int(rng.integers(len(states)))]
            if state.is_terminal:
                continue
            if rng.random() < 0.04:
                copy = state.sample_world(state.current_player, rng) if rng.random() < 0.3 else state.clone()
                states = states[-3:] + [copy]
            seat = int(rng.integers(config.num_players))
            fresh._make_buffers()
            assert np.array_equal(cached.observe(state, seat), fresh.observe(state, seat)), (game, seat)
            compared += 1
            state.apply(keen_player(state, rng) if rng.random() < 0.7 else state.legal_actions()[0])
    assert compared > 4_000
