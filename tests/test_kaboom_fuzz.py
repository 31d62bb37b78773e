"""Random-play fuzzing of the kaboom_v0 engine: full games with invariants after every
step (every card in exactly one place, the player to act has a legal action, frozen
hands untouched, players who left hold nothing), round scores recomputed independently
from the revealed hands (K-02, K-16) and totals equal to the sum of round points; exact
masks and the resampling no-leak check on a subset, inside snap windows too. The 2,000-game
run is marked slow (``pytest -m slow``)."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.core.table import EMPTY
from cardenv.games.kaboom import KaboomConfig, KaboomObserver, KaboomState, Phase, snaps_onto
from cardenv.testing import check_invariants, check_legal_actions_apply, check_no_leak, play_random

_POINTS_BY_NAME = {"KH": -2, "KD": -2, "RJ": 0, "BJ": 0}
_POINTS_BY_RANK_NAME = {"A": 1, "J": 10, "Q": 10, "K": 10}


def independent_points(card_name: str) -> int:
    """K-02, written from the rules text rather than from the engine's table."""
    if card_name in _POINTS_BY_NAME:
        return _POINTS_BY_NAME[card_name]
    rank = card_name[:-1]
    return _POINTS_BY_RANK_NAME.get(rank) or int(rank)


def independent_round_points(totals: list[int], callers: list[int], playing: list[int]) -> list[int]:
    """K-16 from the rules text."""
    added = list(totals)
    for c in callers:
        lower = [p for p in playing if p != c and totals[p] < totals[c]]
        tied_non_callers = [p for p in playing if p != c and p not in callers and totals[p] == totals[c]]
        losses = len(lower) + len(tied_non_callers)
        if losses:
            added[c] += 10 * losses
        elif not [q for q in callers if q != c and totals[q] == totals[c]]:
            added[c] -= 10
    return added


class RecordingKaboomState(KaboomState):
    """Records every hand as revealed at the end of a round, and the hands of callers
    when they call (frozen hands must not change, K-14)."""

    revealed: tuple = ()
    frozen_hands: dict | None = None

    def _call_kaboom(self, p: int) -> None:
        # A new dict each time: clones (copy.copy) must not share it.
        earlier = self.frozen_hands if self.callers and self.frozen_hands else {}
        self.frozen_hands = {**earlier, p: list(self.table.hands[p])}
        super()._call_kaboom(p)

    def _end_round(self, reason: str) -> None:
        hands = tuple(tuple(self.card_name(c) for c in hand if c != EMPTY) for hand in self.table.hands)
        self.revealed = self.revealed + ((hands, list(self.callers), self.seats_in_play()),)
        self.frozen_hands = None
        super()._end_round(reason)


def check_round_scores(state: RecordingKaboomState) -> None:
    assert len(state.revealed) == len(state.round_results)
    totals = [0] * state.num_players
    for (hands, callers, playing), result in zip(state.revealed, state.round_results):
        hand_totals = [sum(independent_points(name) for name in hand) for hand in hands]
        assert list(result.hand_totals) == hand_totals
        assert list(result.callers) == callers
        assert list(result.points_added) == independent_round_points(hand_totals, callers, playing)
        totals = [t + a for t, a in zip(totals, result.points_added)]
    assert state.scores == totals  # scores = the sum of round points


def check_kaboom_invariants(state: RecordingKaboomState) -> None:
    check_invariants(state)
    table = state.table
    known = table.knowledge.known
    assert all(len(hand) <= state.config.max_hand_slots for hand in table.hands)
    assert known[:, table.discard_pile].all(), "the discard pile is face up"
    assert not known[:, table.draw_pile].any(), "nobody knows a card in the deck"
    holding = [p for p in range(state.num_players) if table.held[p]]
    if state.phase == Phase.DRAWN:
        assert holding == [state.current_player] == [state.turn_player]
    else:
        assert holding == []
    for p in range(state.num_players):
        if state.eliminated[p] and not state.is_terminal:  # K-19: dealt no cards
            assert not table.hands[p] and p != state.current_player
    if state.frozen_hands and not state.is_terminal:
        for p, hand in state.frozen_hands.items():  # K-14: nobody touches a frozen hand
            assert table.hands[p] == hand
            assert p not in (state.window.players if state.window else [])
    if state.phase == Phase.WINDOW:
        window = state.window
        assert window.current_player == state.current_player
        assert table.num_occupied(state.current_player) > 0
        assert window.trigger == table.top_discard
        assert state.room_for_penalties(state.current_player) >= 2
    if state.is_terminal:
        config = state.config
        if config.elimination:
            ended = len(state.seats_in_play()) <= 1 or config.single_round
        else:
            ended = max(state.scores) >= config.target_score or config.single_round
        assert ended or state.is_truncated


def patient_choice(state: KaboomState, rng: np.random.Generator) -> int:
    """Mostly passes in windows and rarely calls KABOOM, so rounds run long enough to
    exhaust the deck and reach the turn cap; otherwise uniform."""
    at = state.action_table
    legal = state.legal_actions()
    if state.phase == Phase.WINDOW and not state.snap_selected and rng.random() < 0.8:
        return at.first("pass")
    kaboom = at.first("kaboom")
    if kaboom in legal and len(legal) > 1 and rng.random() < 0.97:
        legal.remove(kaboom)
    return legal[int(rng.integers(len(legal)))]


def knowing_choice(state: KaboomState, rng: np.random.Generator) -> int:
    """Snaps every own card that qualifies (read from the engine: a fuzzer may cheat), so
    races, late snaps, chains and multi-card snaps are frequent; otherwise patient."""
    at = state.action_table
    if state.phase == Phase.WINDOW and rng.random() < 0.7:
        table = state.table
        top = int(table.card_types[state.window.trigger])
        for s in state.own_slots(state.current_player):
            if s not in state.snap_selected and snaps_onto(int(table.card_types[table.card_at(state.current_player, s)]), top):
                return at.id("snap_select", s)
        if state.snap_selected:
            return at.first("snap_confirm")
    return patient_choice(state, rng)


def random_config(rng: np.random.Generator) -> KaboomConfig:
    return KaboomConfig(
        num_players=int(rng.integers(2, 9)),
        target_score=int(rng.choice([30, 100])),
        max_turns_per_round=int(rng.choice([12, 40, 200])),
        single_round=bool(rng.random() < 0.2),
        memory=str(rng.choice(["perfect", "none"])),
        elimination=bool(rng.random() < 0.3),
        max_hand_slots=int(rng.integers(5, 11)),
        max_rounds=int(rng.choice([2, 100])),
    )


def play_fuzzed_game(seed: int, per_step=None, observe: bool = True) -> RecordingKaboomState:
    """One full game; every fifth is played patiently (long rounds), every fifth snapping
    whatever qualifies, the rest uniformly."""
    rng = np.random.default_rng(seed)
    config = random_config(rng)
    state = RecordingKaboomState(config, np.random.default_rng(seed + 10_000))
    observer = KaboomObserver(config)
    high, low = observer.layout.high(), observer.layout.low()

    def on_step(current: KaboomState) -> None:
        check_kaboom_invariants(current)
        if observe and current.current_player is not None:
            obs = observer.observe(current, current.current_player)
            assert obs.shape == (observer.size,) and np.all(obs >= low) and np.all(obs <= high)
        if per_step is not None:
            per_step(current, observer, rng)

    choose = {0: patient_choice, 2: knowing_choice}.get(seed % 5)
    play_random(state, rng, on_step, choose=choose)
    assert state.is_terminal
    check_round_scores(state)
    return state


def fuzz(seeds) -> tuple[dict, dict]:
    reasons: dict[str, int] = {}
    kinds: dict[str, int] = {}
    for seed in seeds:
        # Invariants after every step of every game; observations on every fourth game.
        state = play_fuzzed_game(seed, observe=seed % 4 == 1)
        for result in state.round_results:
            reasons[result.reason] = reasons.get(result.reason, 0) + 1
        for event in state.events:
            kinds[event.kind] = kinds.get(event.kind, 0) + 1
    return reasons, kinds


EVERY_KIND = ("black six", "red six", "look own", "look other", "blind swap", "king look", "king take",
              "king leave", "king give", "decline", "snap", "wrong snap", "late snap", "penalty", "swap", "out")


def test_fuzz_games():
    reasons, kinds = fuzz(range(150))
    assert {"the final lap after the call is over", "the turn cap was reached"} <= set(reasons)
    for kind in ("snap", "wrong snap", "late snap", "penalty", "king look", "blind swap"):
        assert kinds.get(kind, 0) > 0, kind


@pytest.mark.slow
def test_fuzz_2000_full_games():
    reasons, kinds = fuzz(range(2000))
    # The games really went through every path the rules have.
    assert set(reasons) == {"the final lap after the call is over", "the turn cap was reached",
                            "no card can be drawn"}, reasons
    for kind in EVERY_KIND:
        assert kinds.get(kind, 0) > 0, kind


def _exact_mask_and_no_leak(state: KaboomState, observer: KaboomObserver, rng: np.random.Generator) -> None:
    if state.is_terminal:
        return
    check_legal_actions_apply(state)
    for seat in range(state.num_players):
        check_no_leak(state, observer.observe, seat, rng, samples=2)


@pytest.mark.parametrize("first_seed", [0, 1])
def test_masks_exact_and_nothing_leaks_on_a_subset(first_seed):
    phases = set()

    def per_step(state, observer, rng):
        phases.add(state.phase)
        _exact_mask_and_no_leak(state, observer, rng)

    for seed in range(first_seed, 24, 2):
        play_fuzzed_game(seed, per_step)
    assert {Phase.WINDOW, Phase.DRAWN} <= phases
    assert len(phases - {Phase.TURN, Phase.DRAWN, Phase.WINDOW, Phase.GAME_OVER}) >= 2, phases  # powers


def test_illegal_actions_are_rejected_on_a_subset():
    for seed in range(10):
        rng = np.random.default_rng(seed)
        state = KaboomState(KaboomConfig(num_players=int(rng.integers(2, 9))), np.random.default_rng(seed))
        while not state.is_terminal:
            mask = state.legal_action_mask()
            illegal = np.flatnonzero(mask == 0)
            for action in illegal[:: max(1, len(illegal) // 10)]:
                with pytest.raises(ValueError):
                    state.clone().apply(int(action))
            legal = np.flatnonzero(mask)
            state.apply(int(legal[int(rng.integers(len(legal)))]))


@pytest.mark.slow
def test_fuzz_every_step_heavy():
    for seed in range(1000, 1100):
        play_fuzzed_game(seed, _exact_mask_and_no_leak)
