"""Random-play fuzzing of carte_v0 with invariants after every step: every one of the 108
cards in exactly one place, every meld on the table valid with its jokers where R-11 put
them, the player to act has a legal action, scores follow the hands, the lists the engine
keeps move by move (hand counts, cards known to all) equal a fresh derivation; and, on small
hands, the mask equals a brute-force reading of the rules (every sub-multiset of the
hand tried), so every selection can be completed and nothing legal is missing.

The default run plays a few dozen games; ``pytest -m slow`` plays 2,000."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from cardenv.core.melds import JOKER, NUM_POSITIONS, classify, position_of_rank
from cardenv.games.carte import CarteConfig, CarteState, Phase
from cardenv.testing import check_invariants, play_random

MAX_BRUTE_FORCE_TYPES = 9  # distinct types in hand up to which the mask is brute-forced


def check_melds(state: CarteState) -> None:
    """R-09 … R-12: every meld is valid; runs hold their cards in position order, each real
    card at its own rank's position and each joker inside the run."""
    for m, meld in enumerate(state.melds):
        types = [state.meld_name(c) for c in state.table.melds[m]]
        meld_types = [min(int(state.table.card_types[c]), JOKER) for c in state.table.melds[m]]
        assert classify(meld_types) is not None, f"meld {m} is not valid: {types}"
        if meld.is_run:
            assert meld.positions == list(range(meld.low, meld.high + 1)), (m, meld.positions)
            assert 0 <= meld.low and meld.high < NUM_POSITIONS
            for t, position in zip(meld_types, meld.positions):
                if t != JOKER:
                    assert t & 3 == meld.key and position_of_rank(t >> 2) == position, (m, types)
        else:
            assert 3 <= len(meld_types) <= 4
            assert all(t >> 2 == meld.key for t in meld_types if t != JOKER), (m, types)


def accepts_by_rule(state: CarteState, m: int, t: int) -> bool:
    """R-12, read from the meld's cards: a set takes its rank or a joker below 4 cards; a
    run takes a joker or a real card of its suit next to either end below 13 cards."""
    meld, size = state.melds[m], len(state.table.melds[m])
    if not meld.is_run:
        return size < 4 and (t == JOKER or t >> 2 == meld.key)
    if size >= 13:
        return False
    if t == JOKER:
        return True
    return t & 3 == meld.key and position_of_rank(t >> 2) in (meld.low - 1, meld.high + 1)


def brute_force_play_mask(state: CarteState) -> set[str] | None:
    """The legal play-phase actions by trying every sub-multiset of the hand (None when the
    hand has too many distinct types to try them all)."""
    p = state.current_player
    hand = Counter(min(int(state.table.card_types[c]), JOKER) for c in state.table.hands[p])
    if len(hand) > MAX_BRUTE_FORCE_TYPES:
        return None
    pile = state.pile_card
    pile_type = (min(int(state.table.card_types[pile]), JOKER)
                 if pile is not None and pile in state.table.hands[p] else None)
    selection = Counter({t: int(c) for t, c in enumerate(state.selection) if c})

    def leaves_a_discard(meld: Counter) -> bool:
        after = hand - meld
        return not (pile_type is not None and sum(after.values()) == 1 and after[pile_type] == 1
                    and not meld[pile_type])

    def completions(start: Counter, lowest: int):
        extra_types = sorted(t for t in hand if t >= lowest and hand[t] > start[t])
        ranges = [range(hand[t] - start[t] + 1) for t in extra_types]
        for amounts in itertools.product(*ranges):
            meld = start.copy()
            for t, k in zip(extra_types, amounts):
                meld[t] += k
            yield meld

    def completable(start: Counter, lowest: int) -> bool:
        for meld in completions(start, lowest):
            cards = sorted(meld.elements())
            if 3 <= len(cards) <= 13 and classify(cards) is not None and leaves_a_discard(meld):
                return True
        return False

    names = set()
    started = state.started[p]
    if not selection:
        for t in hand:
            alone = Counter({t: 1})
            addable = started and any(accepts_by_rule(state, m, t) for m in range(len(state.melds)))
            if (addable and leaves_a_discard(alone)) or completable(alone, t):
                names.add(state.action_table.name(state.action_table.id("select", t)))
            if hand[t] - (t == pile_type) > 0:
                names.add(state.action_table.name(state.action_table.id("discard", t)))
        if sum(hand.values()) == 2 and not state.said_carte[p]:
            names.add("say carte")
        return names
    last = max(selection)
    for t in hand:
        if t >= last and hand[t] > selection[t]:
            grown = selection.copy()
            grown[t] += 1
            if completable(grown, t):
                names.add(state.action_table.name(state.action_table.id("select", t)))
    chosen = sorted(selection.elements())
    if classify(chosen) is not None and leaves_a_discard(selection):
        names.add("put down")
    if len(chosen) == 1 and started and leaves_a_discard(selection):
        for m in range(len(state.melds)):
            if accepts_by_rule(state, m, chosen[0]):
                names.add(f"add to meld {m}")
    return names


def check_derived_lists(state: CarteState) -> None:
    """What the engine keeps up to date move by move equals what it is derived from: each
    card's type and meld type, each hand's count per type, and whether every player knows a card
    (the knowledge table's column)."""
    table = state.table
    assert state.card_meld_types == [min(int(t), JOKER) for t in table.card_types]
    assert state.card_core_types == [int(t) for t in table.card_types]
    for p, hand in enumerate(table.hands):
        counts = Counter(min(int(table.card_types[c]), JOKER) for c in hand)
        assert state.hand_type_counts[p] == [counts[t] for t in range(JOKER + 1)], p
    assert state.card_public == table.knowledge.known.all(axis=0).tolist()


def check_step(state: CarteState, rng: np.random.Generator, brute_force_every: float) -> bool:
    """The invariants; returns whether the mask was compared with the brute force."""
    check_invariants(state)
    check_melds(state)
    check_derived_lists(state)
    if not state.is_terminal and state.phase == Phase.PLAY and rng.random() < brute_force_every:
        expected = brute_force_play_mask(state)
        if expected is not None:
            assert {state.action_name(a) for a in state.legal_actions()} == expected, state.render_text(None)
            return True
    return False


def fuzz(games: int, seed: int, brute_force_every: float, turn_caps=(60, 200)) -> tuple[int, int, int]:
    """Play ``games`` random games (round caps drawn from ``turn_caps``); returns (steps,
    rounds, masks brute-forced)."""
    rng = np.random.default_rng(seed)
    steps = rounds = 0
    compared = []
    for game in range(games):
        config = CarteConfig(num_players=int(rng.integers(2, 7)), single_round=bool(rng.random() < 0.3),
                             max_turns_per_round=int(rng.choice(turn_caps)))
        state = CarteState(config, np.random.default_rng(seed * 100_000 + game))
        scores_at_start = list(state.scores)
        steps += play_random(state, rng, on_step=lambda s: compared.append(check_step(s, rng, brute_force_every)))
        rounds += len(state.round_results)
        lost = [sum(r.points_added[p] for r in state.round_results) for p in range(config.num_players)]
        assert state.scores == [s - x for s, x in zip(scores_at_start, lost)]
        assert state.is_terminal and state.winners()
    return steps, rounds, sum(compared)


def test_random_games_keep_every_invariant():
    steps, rounds, compared = fuzz(games=12, seed=1, brute_force_every=0.3)
    assert steps > 5_000 and rounds >= 12 and compared >= 500


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(2))  # 2,000 games in two tests, so that pytest-xdist can spread them
def test_two_thousand_random_games_keep_every_invariant(chunk):
    # Random players rarely go out, so most rounds run to the turn cap: short caps keep
    # 2,000 games affordable (rounds ended by going out, the stock and the cap all occur).
    steps, rounds, compared = fuzz(games=1000, seed=2 + chunk, brute_force_every=0.05, turn_caps=(20, 40, 120))
    print(f"\n1000 carte games: {steps} steps, {rounds} rounds, {compared} masks brute-forced")
    assert steps > 100_000 and compared >= 1_500
