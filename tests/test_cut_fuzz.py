"""Random-play fuzzing of the cut_v0 engine: thousands of full games with invariants
after every step, round scores recomputed independently, exact masks on a subset, and
the no-leak check (observation and mask unchanged under information-set sampling),
inside match windows too."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.core.table import EMPTY
from cardenv.games.cut import CutConfig, CutObserver, CutState, Phase
from cardenv.testing import check_invariants, check_legal_actions_apply, check_no_leak, play_random

_POINTS_BY_RANK_NAME = {"A": 1, "J": 0, "Q": 20, "K": 20}


def independent_points(card_name: str) -> int:
    """C-02, written from the rules text rather than from the engine's table."""
    rank = card_name[:-1]
    if rank in _POINTS_BY_RANK_NAME:
        return _POINTS_BY_RANK_NAME[rank]
    return int(rank)


class RecordingCutState(CutState):
    """Records every hand as revealed at the end of a round, before the next deal."""

    revealed: tuple = ()

    def _end_round(self, reason: str) -> None:
        hands = tuple(tuple(self.card_name(c) for c in hand if c != EMPTY) for hand in self.table.hands)
        self.revealed = self.revealed + ((hands, self.caller),)
        super()._end_round(reason)


def check_round_scores(state: RecordingCutState, initial_scores: list[int]) -> None:
    assert len(state.revealed) == len(state.round_results)
    totals = list(initial_scores)
    for (hands, caller), result in zip(state.revealed, state.round_results):
        hand_totals = [sum(independent_points(name) for name in hand) for hand in hands]
        added = list(hand_totals)
        if caller is not None and any(t <= hand_totals[caller] for p, t in enumerate(hand_totals) if p != caller):
            added[caller] += 10  # C-16
        assert result.caller == caller
        assert list(result.hand_totals) == hand_totals
        assert list(result.points_added) == added
        totals = [t + a for t, a in zip(totals, added)]
    assert state.scores == totals


def check_cut_invariants(state: CutState) -> None:
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
    if state.phase == Phase.WINDOW:
        assert state.window.current_player == state.current_player
        assert table.num_occupied(state.current_player) > 0
        assert state.card_name(state.window.trigger) == state.card_name(table.top_discard)
    if state.phase == Phase.GIVE:
        owner, slot = state.give_target
        assert table.hands[owner][slot] == EMPTY
    if state.is_terminal:
        ended = max(state.scores) >= state.config.target_score or state.config.single_round
        assert ended or state.is_truncated


def patient_choice(state: CutState, rng: np.random.Generator) -> int:
    """Mostly passes in windows and rarely calls Cut!, so rounds run long enough to
    exhaust the deck and reach the turn cap; otherwise uniform."""
    at = state.action_table
    legal = state.legal_actions()
    if state.phase == Phase.WINDOW and rng.random() < 0.8:
        return at.first("pass")
    cut = at.first("cut")
    if cut in legal and len(legal) > 1 and rng.random() < 0.97:
        legal.remove(cut)
    return legal[int(rng.integers(len(legal)))]


def random_config(rng: np.random.Generator) -> CutConfig:
    return CutConfig(
        num_players=int(rng.integers(2, 7)),
        target_score=int(rng.choice([30, 100])),
        max_turns_per_round=int(rng.choice([12, 40, 200])),
        single_round=bool(rng.random() < 0.2),
        memory=str(rng.choice(["perfect", "none"])),
        power_on_replace=bool(rng.random() < 0.7),
        max_hand_slots=int(rng.integers(5, 11)),
        max_rounds=int(rng.choice([2, 100])),
    )


def play_fuzzed_game(seed: int, per_step=None, observe: bool = True) -> RecordingCutState:
    """One full game; every fifth is played patiently (long rounds), the rest uniformly."""
    rng = np.random.default_rng(seed)
    config = random_config(rng)
    state = RecordingCutState(config, np.random.default_rng(seed + 10_000))
    observer = CutObserver(config)

    def on_step(current: CutState) -> None:
        check_cut_invariants(current)
        if observe and current.current_player is not None:
            obs = observer.observe(current, current.current_player)
            assert obs.shape == (observer.size,) and np.all(obs >= 0) and np.all(obs <= observer.layout.high())
        if per_step is not None:
            per_step(current, observer, rng)

    choose = patient_choice if seed % 5 == 0 else None
    play_random(state, rng, on_step, choose=choose)
    assert state.is_terminal
    check_round_scores(state, [0] * config.num_players)
    return state


NUM_GAMES = 2000
FUZZ_CHUNKS = 2  # in two tests, so that pytest-xdist can spread them over cores


@pytest.mark.parametrize("chunk", range(FUZZ_CHUNKS))
def test_fuzz_full_games(chunk):
    reasons: dict[str, int] = {}
    kinds: dict[str, int] = {}
    games = NUM_GAMES // FUZZ_CHUNKS
    for seed in range(chunk * games, (chunk + 1) * games):
        # Invariants after every step of every game; observations on every fourth game.
        state = play_fuzzed_game(seed, observe=seed % 4 == 1)
        for result in state.round_results:
            reasons[result.reason] = reasons.get(result.reason, 0) + 1
        for event in state.events:
            kinds[event.kind] = kinds.get(event.kind, 0) + 1
    # The games really went through every path the rules have.
    assert set(reasons) == {"the final lap after the call is over", "the turn cap was reached",
                            "no card can be drawn"}
    for kind in ("match", "call out", "give", "failed attempt", "penalty", "five", "six", "queen", "king look",
                 "king swap", "king keep",
                 "decline", "swap"):
        assert kinds.get(kind, 0) > 0, kind


def _exact_mask_and_no_leak(state: CutState, observer: CutObserver, rng: np.random.Generator) -> None:
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

    for seed in range(first_seed, 30, 2):
        play_fuzzed_game(seed, per_step)
    assert {Phase.WINDOW, Phase.GIVE, Phase.KING_DECIDE, Phase.DRAWN} <= phases


def test_illegal_actions_are_rejected_on_a_subset():
    for seed in range(20):
        rng = np.random.default_rng(seed)
        state = CutState(CutConfig(num_players=int(rng.integers(2, 7))), np.random.default_rng(seed))
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
    # About two minutes; pyproject's addopts leaves it to ``pytest -m slow`` (CI).
    for seed in range(1000, 1200):
        play_fuzzed_game(seed, _exact_mask_and_no_leak)


# --- the leak test can fail ---------------------------------------------------------------

class MaskThatKnows(CutState):
    """A deliberately leaky engine: a match is offered only when it would succeed."""

    def _fill_legal_mask(self, mask):
        super()._fill_legal_mask(mask)
        if self.phase == Phase.WINDOW:
            first = self.action_table.first("match")
            for s, card in enumerate(self.table.hands[self.current_player]):
                if card != EMPTY and self.table.type_of(card) >> 2 != self.window_rank:
                    mask[first + s] = 0


def _state_in_window(state_class) -> CutState:
    hands = [["7S", "2H", "3H", "4H"], ["7H", "8C", "9C", "10C"]]
    options = {"hands": hands, "draw_pile": ["7D"], "starter": 0}
    state = state_class(CutConfig(num_players=2), np.random.default_rng(0), options)
    for name in ("draw", "discard drawn"):
        state.apply(state.action_from_name(name))
    return state


def test_leak_check_catches_a_mask_that_knows():
    state = _state_in_window(MaskThatKnows)
    with pytest.raises(AssertionError, match="action mask"):
        check_no_leak(state, CutObserver(state.config).observe, 0, np.random.default_rng(0), samples=10)
    honest = _state_in_window(CutState)
    check_no_leak(honest, CutObserver(honest.config).observe, 0, np.random.default_rng(0), samples=10)


def test_observation_hides_others_decisions():
    class TellsDecisions(CutObserver):
        def observe(self, state, observer, out=None):
            out = super().observe(state, observer, out)
            decisions = [d for d in state.window.decisions if d is not None] if state.window else []
            out[self.layout.pieces["window_decided"].start] = float(bool(decisions))
            return out

    state = _state_in_window(CutState)
    state.apply(state.action_from_name("match own slot 0"))  # player 0 attempts; player 1 to decide
    leaky = TellsDecisions(state.config)
    # Resampling the world keeps the decisions, so this leak needs a sibling world in
    # which player 0 passed instead: the observation of player 1 must not tell them apart.
    other = _state_in_window(CutState)
    other.apply(other.action_from_name("pass"))
    assert not np.array_equal(leaky.observe(state, 1), leaky.observe(other, 1))
    honest = CutObserver(state.config)
    assert np.array_equal(honest.observe(state, 1), honest.observe(other, 1))
