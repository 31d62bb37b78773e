"""Core: reaction windows, exercised through a small toy "snap" game written here.

Toy snap: a card is turned face up; every player holding a card of the same rank may
try to snap it (decision = the rank they claim) or pass. Players decide in turn without
seeing what the others decided (only *whether* they have). Attempts are then resolved in
an order drawn from the game's seeded generator; the first correct snap wins the card,
a wrong snap costs a point.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cardenv.core.reaction import PASS, ReactionWindow


class ToySnap:
    def __init__(self, hands: list[list[int]], seed: int):
        self.hands = hands
        self.rng = np.random.default_rng(seed)
        self.penalties = [0] * len(hands)
        self.won: list[int] = []
        self.window: ReactionWindow | None = None
        self.face_up: int | None = None

    def turn_up(self, rank: int, first: int) -> None:
        n = len(self.hands)
        self.face_up = rank
        self.window = ReactionWindow(("turned up", rank), [(first + i) % n for i in range(n)])

    def observe(self, player: int) -> tuple:
        """What ``player`` may see while the window is open: never another's decision."""
        w = self.window
        return (w.trigger, w.current_player, tuple(w.has_decided(p) for p in range(len(self.hands))),
                tuple(self.hands[player]))

    def decide(self, player: int, snap: bool) -> None:
        self.window.decide(player, self.face_up if snap else PASS)

    def resolve(self) -> list[int]:
        """Resolve the attempts; returns the players in resolution order."""
        order = self.window.resolution_order(self.rng)
        winner_found = False
        for player, claimed in order:
            correct = claimed in self.hands[player]
            if correct and not winner_found:
                self.won.append(player)
                self.hands[player].remove(claimed)
                winner_found = True
            elif not correct:
                self.penalties[player] += 1
        self.window = None
        return [p for p, _ in order]


def test_players_decide_in_turn_once():
    w = ReactionWindow("t", [2, 0, 1])
    assert w.current_player == 2 and not w.is_complete
    with pytest.raises(ValueError, match="not the one deciding"):
        w.decide(0, "x")
    w.decide(2, "snap")
    assert w.has_decided(2) and not w.has_decided(0)
    w.decide(0)  # PASS
    w.decide(1, "snap")
    assert w.is_complete and w.current_player is None
    with pytest.raises(ValueError, match="closed"):
        w.decide(1, "again")
    assert w.attempts() == [(2, "snap"), (1, "snap")]


def test_a_player_may_not_appear_twice():
    with pytest.raises(ValueError, match="only once"):
        ReactionWindow("t", [0, 1, 0])


def test_resolution_only_after_everyone_decided():
    w = ReactionWindow("t", [0, 1])
    w.decide(0, "snap")
    with pytest.raises(ValueError, match="after every player"):
        w.resolution_order(np.random.default_rng(0))


def test_deciders_do_not_see_pending_decisions():
    """Player 2's view is the same whether players 0 and 1 snapped or passed."""
    views = set()
    for choices in itertools.product([True, False], repeat=2):
        game = ToySnap([[5], [5], [5]], seed=0)
        game.turn_up(5, first=0)
        for p, snap in zip([0, 1], choices):
            game.decide(p, snap)
        views.add(game.observe(2))
    assert len(views) == 1
    (view,) = views
    assert view[1] == 2 and view[2] == (True, True, False)


def test_pass_and_single_attempt_use_no_randomness():
    w = ReactionWindow("t", [0, 1, 2])
    w.decide(0)
    w.decide(1, "snap")
    w.decide(2)
    rng = np.random.default_rng(7)
    before = rng.bit_generator.state
    assert w.resolution_order(rng) == [(1, "snap")]
    assert rng.bit_generator.state == before


def _snap_order(seed: int, n: int = 3) -> list[int]:
    game = ToySnap([[9] for _ in range(n)], seed=seed)
    game.turn_up(9, first=0)
    for p in range(n):
        game.decide(p, True)
    return game.resolve()


def test_resolution_order_is_reproducible_from_the_seed():
    for seed in range(20):
        assert _snap_order(seed) == _snap_order(seed)


def test_resolution_order_varies_across_seeds_and_reaches_every_permutation():
    orders = {tuple(_snap_order(seed)) for seed in range(300)}
    assert orders == set(itertools.permutations(range(3)))


def test_resolution_order_is_the_seeded_permutation_and_takes_the_same_draws():
    """The order shuffles the attempts in place; it must be the order indexing them by
    ``rng.permutation`` gives (the straightforward reference), and leave the generator
    where the reference leaves it, so seeded games do not change."""
    for num_attempts in range(2, 7):
        for seed in range(100):
            window = ReactionWindow("t", list(range(num_attempts)))
            for p in range(num_attempts):
                window.decide(p, f"claim {p}")
            rng, reference_rng = np.random.default_rng(seed), np.random.default_rng(seed)
            attempts = window.attempts()
            expected = [attempts[i] for i in reference_rng.permutation(num_attempts)]
            assert window.resolution_order(rng) == expected
            assert rng.bit_generator.state == reference_rng.bit_generator.state
            assert window.attempts() == attempts  # the window's own decisions unchanged


def test_toy_snap_winner_and_penalties():
    # players 0 and 2 hold a 4; player 1 claims a 4 it does not hold; player 3 passes
    winners = set()
    for seed in range(40):
        game = ToySnap([[4], [7], [4, 1], [4]], seed=seed)
        game.turn_up(4, first=1)
        game.decide(1, True)
        game.decide(2, True)
        game.decide(3, False)
        game.decide(0, True)
        order = game.resolve()
        assert sorted(order) == [0, 1, 2]
        assert game.penalties == [0, 1, 0, 0], "a wrong snap is penalized whatever the order"
        first_correct = next(p for p in order if p != 1)
        assert game.won == [first_correct]
        assert 4 not in game.hands[first_correct]
        winners.add(first_correct)
    assert winners == {0, 2}, "the race is random: either correct snapper can win"


def test_clone_is_independent():
    w = ReactionWindow("t", [0, 1])
    w.decide(0, "a")
    other = w.clone()
    other.decide(1, "b")
    assert not w.is_complete and other.is_complete
    assert w.decisions == ["a"] and other.decisions == ["a", "b"]
