"""Random-play fuzzing of onefifty_v0: thousands of full games, invariants after every
step, and every round's points recomputed here from the revealed hands (O-19/O-20).

Three policies: uniformly random over the mask; one that never calls END (long rounds
that reshuffle the discard pile, O-17, fill the hands with penalty cards until no card
can be drawn, and reach the turn cap, O-18); and one that matches the cards it knows
(hands that empty, O-16).

The default run plays 2,000+ full games with the per-step invariants and the scoring
check; the ``slow`` tests add, at every step, that every masked-in action applies
(on a copy) and that the acting player's observation is well formed.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from cardenv.core.cards import CARD_NAMES, RANK_OF
from cardenv.core.table import EMPTY
from cardenv.games.onefifty import OneFiftyConfig, OneFiftyObserver, OneFiftyState, Phase
from cardenv.testing import check_invariants, check_legal_actions_apply
from tests.test_onefifty_rules import points_by_name


class RecordingState(OneFiftyState):
    """Records, when a round is scored, each player's remaining cards and the caller."""

    def __init__(self, *args, **kwargs):
        self.final_hands: list[list[list[str]]] = []
        self.final_callers: list[int | None] = []
        super().__init__(*args, **kwargs)

    def _score_round(self, reason):
        types = self.table.card_types
        self.final_hands.append([[CARD_NAMES[types[c]] for c in self.table.cards_in_hand(p)]
                                 for p in range(self.num_players)])
        self.final_callers.append(self.caller)
        return super()._score_round(reason)

    def _clone_extra(self, other):
        super()._clone_extra(other)
        other.final_hands = [h for h in self.final_hands]
        other.final_callers = self.final_callers.copy()


def expected_points(totals: list[int], caller: int | None) -> list[int]:
    """O-19 / O-20, written out independently of the engine."""
    n = len(totals)
    if caller is None:
        best = min(totals)
        return [0 if totals[p] == best else totals[p] for p in range(n)]
    others = [totals[p] for p in range(n) if p != caller]
    if totals[caller] < min(others):
        return [0 if p == caller else totals[p] for p in range(n)]
    return [2 * totals[p] if p == caller else (0 if totals[p] < totals[caller] else totals[p]) for p in range(n)]


def test_expected_points_helper_reproduces_O21():
    assert expected_points([12, 9, 25, 30], 0) == [24, 0, 25, 30]
    assert expected_points([3, 4, 20, 10], 0) == [0, 4, 20, 10]
    assert expected_points([5, 5, 20, 9], None) == [0, 0, 20, 9]


def check_rounds(state: RecordingState) -> None:
    """Every round's hand totals and points, recomputed from the revealed hands."""
    assert len(state.final_hands) == len(state.round_results)
    round_ends = [e for e in state.events if e.kind == "round end"]
    assert len(round_ends) == len(state.round_results)
    scores = np.zeros(state.num_players, dtype=np.int64)
    for hands, caller, result, event in zip(state.final_hands, state.final_callers, state.round_results, round_ends):
        # the recorded hands are the ones revealed to everyone at the round's end
        assert [state.card_name(c) for c in event.cards] == [name for hand in hands for name in hand]
        assert event.visible_to is None
        totals = [sum(points_by_name(name) for name in hand) for hand in hands]
        assert list(result.hand_totals) == totals
        assert result.caller == caller
        assert list(result.points_added) == expected_points(totals, caller)
        scores += result.points_added
    assert state.scores == scores.tolist()
    if state.is_terminal and not state.is_truncated:
        target = state.config.target_score
        assert max(state.scores) >= target or state.config.single_round  # O-22
        before_last = scores - np.array(state.round_results[-1].points_added)
        assert max(before_last) < target, "O-23: below the target another round is dealt"


def never_call(state: OneFiftyState, rng: np.random.Generator) -> int:
    legal = state.legal_actions()
    call = state.action_table.first("call")
    choices = [a for a in legal if a != call] or legal
    return choices[int(rng.integers(len(choices)))]


def uniform(state: OneFiftyState, rng: np.random.Generator) -> int:
    legal = state.legal_actions()
    return legal[int(rng.integers(len(legal)))]


def matcher(state: OneFiftyState, rng: np.random.Generator) -> int:
    """Matches every own card it knows to share the top discard's rank (knowledge it
    legitimately has), otherwise draws or takes at random and swaps cards in to learn
    them; rarely calls. Empties hands (O-16) far more often than random play."""
    legal = state.legal_actions()
    table, at, p = state.table, state.action_table, state.current_player
    if state.phase in (Phase.MAIN, Phase.MATCH_SELECT) and table.discard_pile:
        known = table.knowledge.known[p]
        top_rank = RANK_OF[table.card_types[table.top_discard]]
        for s, card in enumerate(table.hands[p]):
            action = at.id("match_select", s)
            if card != EMPTY and known[card] and RANK_OF[table.card_types[card]] == top_rank and action in legal:
                return action
        if state.phase == Phase.MATCH_SELECT:
            return at.first("match_confirm")
    if state.phase == Phase.MAIN:
        if at.first("call") in legal and rng.random() < 0.03:
            return at.first("call")
        options = [a for a in legal if at.specs[a].kind in ("draw", "take")]
        return options[int(rng.integers(len(options)))]
    if state.phase == Phase.DRAWN and rng.random() < 0.7:
        options = [a for a in legal if at.specs[a].kind == "swap"]
        return options[int(rng.integers(len(options)))]
    if state.phase == Phase.AFTER_ACTION:
        return at.first("pass")
    return legal[int(rng.integers(len(legal)))]


def play_game(seed: int, num_players: int, memory: str, policy, deep: bool = False, **config) -> RecordingState:
    """One full game; invariants after every step (and, if ``deep``, every masked-in
    action applied on a copy plus the acting player's observation)."""
    rng = np.random.default_rng(seed)
    cfg = OneFiftyConfig(num_players=num_players, memory=memory, **config)
    state = RecordingState(cfg, np.random.default_rng(rng.integers(2**63)))
    observer = OneFiftyObserver(cfg) if deep else None
    high = observer.layout.high() if deep else None
    steps = 0
    while True:
        check_invariants(state)
        if deep:
            check_legal_actions_apply(state)
        if state.is_terminal:
            break
        if deep:
            obs = observer.observe(state, state.current_player)
            assert obs.shape == high.shape and (obs >= 0).all() and (obs <= high).all()
        state.apply(policy(state, rng))
        steps += 1
    assert len(state.round_results) >= 1
    check_rounds(state)
    return state


def _configs(num_games: int):
    """(seed, players, memory, policy) spread evenly over 3–6 players, both memory models
    and the policies: of every eight games, four uniform, two never calling END, two matching."""
    policies = [uniform, never_call, uniform, matcher, uniform, never_call, uniform, matcher]
    for i in range(num_games):
        yield i, 3 + i % 4, ("perfect", "none")[(i // 4) % 2], policies[(i + i // 8) % 8]


def _run(num_games: int, deep: bool, first_seed: int = 0):
    start = time.perf_counter()
    stats = {"games": 0, "rounds": 0, "steps": 0, "reasons": {}, "players": set(), "memories": set(),
             "never_call": 0}
    for i, n, memory, policy in _configs(num_games):
        state = play_game(first_seed + i, n, memory, policy, deep=deep)
        stats["games"] += 1
        stats["rounds"] += len(state.round_results)
        stats["steps"] += state.table.knowledge.clock
        stats["players"].add(n)
        stats["memories"].add(memory)
        stats["never_call"] += policy is never_call
        for r in state.round_results:
            stats["reasons"][r.reason] = stats["reasons"].get(r.reason, 0) + 1
    stats["seconds"] = time.perf_counter() - start
    return stats


def _check_coverage(stats, num_games, every_round_end: bool = True):
    assert stats["games"] == num_games
    assert stats["players"] == {3, 4, 5, 6} and stats["memories"] == {"perfect", "none"}
    assert stats["never_call"] >= num_games // 5
    if not every_round_end:
        return
    # every way a round can end was reached (O-15, O-16, O-17, O-18)
    assert set(stats["reasons"]) == {"the final lap after the call is over", "a match emptied a hand",
                                     "the turn cap was reached", "no card can be drawn"}, stats["reasons"]


FUZZ_CHUNKS = 2  # 2,000 games in two tests, so that pytest-xdist can spread them over cores


@pytest.mark.parametrize("chunk", range(FUZZ_CHUNKS))
def test_fuzz_2000_full_games(chunk):
    games = 2000 // FUZZ_CHUNKS
    stats = _run(games, deep=False, first_seed=chunk * games)
    _check_coverage(stats, games)
    print(f"\nfuzz: {stats['games']} games, {stats['rounds']} rounds, {stats['steps']} steps in "
          f"{stats['seconds']:.1f}s; round ends {stats['reasons']}")


def test_fuzz_deep_checks_on_a_sample():
    """Default run: the per-step deep checks on a smaller sample (the full set is slow)."""
    stats = _run(60, deep=True, first_seed=10_000)
    assert stats["games"] == 60


DEEP_CHUNKS = 4  # 2,000 games in four tests, so that pytest-xdist can spread them over cores


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(DEEP_CHUNKS))
def test_fuzz_2000_full_games_deep(chunk):
    games = 2000 // DEEP_CHUNKS
    stats = _run(games, deep=True, first_seed=20_000 + chunk * games)
    _check_coverage(stats, games, every_round_end=False)
    print(f"\ndeep fuzz: {stats['games']} games, {stats['rounds']} rounds, {stats['steps']} steps in "
          f"{stats['seconds']:.1f}s; round ends {stats['reasons']}")


def test_recorded_rounds_catch_a_wrong_score():
    """The scoring check can fail: corrupt one round's points and it must object."""
    state = play_game(1, 4, "perfect", uniform)
    result = state.round_results[0]
    state.round_results[0] = type(result)(result.hand_totals, (result.points_added[0] + 1,) + result.points_added[1:],
                                          result.caller, result.reason)
    with pytest.raises(AssertionError):
        check_rounds(state)
