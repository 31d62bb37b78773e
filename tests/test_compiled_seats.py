"""The single-seat view's compiled engine (cardenv.train.compiled_seats) against the rules
engine: the same view played both ways (``engine="compiled"`` and ``engine="python"``)
must give identical observations, rewards, ends, infos, masks and renders, episode after
episode, with the generators' buffers, the event records, the actions and the rounds'
points made to run short often; ``env.game`` rebuilt from the actions is the engine's
game; copies play on alike; and the generators are back where the Python view leaves them."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from cardenv.train import SingleSeatEnv
from cardenv.train import compiled_seats

CONFIGS = [
    {},
    {"memory": "none", "match_hints": True},
    {"num_players": 3, "reward_mode": "relative"},
    {"num_players": 6, "reward_mode": "outcome"},
    {"initial_slots": 2, "max_hand_slots": 5},
    {"initial_slots": 1, "first_starter": 2},
    {"max_turns_per_round": 7, "max_rounds": 3},
    {"single_round": True, "reward_scale": 0.5},
    {"target_score": 30, "recent_events": 3},
    # 18 cards: the discards are reshuffled into the draw pile often, and a round ends
    # when nothing can be drawn (O-17).
    {"deck": "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH 2H 3H 4H 5H"},
]


@pytest.fixture
def short_of_room(monkeypatch):
    """Buffers and arrays small enough to run short every few moves."""
    monkeypatch.setattr(compiled_seats, "DRAWS_PER_BUFFER", 600)  # refilled every round or two
    monkeypatch.setattr(compiled_seats, "EVENT_ENTRIES", 1100)
    monkeypatch.setattr(compiled_seats, "ACTION_ENTRIES", 2)
    monkeypatch.setattr(compiled_seats, "ROUND_ROWS", 1)


def play_side_by_side(opponents, env_kwargs, episodes: int, seed: int, rng_seed: int = 7):
    compiled = SingleSeatEnv("onefifty_v0", opponents, env_kwargs, render_mode="ansi", engine="compiled")
    python = SingleSeatEnv("onefifty_v0", opponents, env_kwargs, render_mode="ansi", engine="python")
    rng = np.random.default_rng(rng_seed)
    steps = 0
    for episode in range(episodes):
        # A seeded reset now and then; in between the generators run on.
        reset_seed = seed + episode if episode % 5 == 0 else None
        got, want = compiled.reset(seed=reset_seed), python.reset(seed=reset_seed)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]
        done = False
        while not done:
            mask = compiled.action_masks()
            np.testing.assert_array_equal(mask, python.action_masks())
            if rng.random() < 0.003:  # an illegal action ends the episode alike
                action = int(rng.choice(np.flatnonzero(~mask))) if not mask.all() else 0
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            got, want = compiled.step(action), python.step(action)
            steps += 1
            np.testing.assert_array_equal(got[0], want[0])
            assert got[1:] == want[1:], (episode, steps)
            assert type(got[1]) is float
            assert all(type(score) is int for score in got[4].get("final_scores", ()))
            done = got[2] or got[3]
        assert compiled.render() == python.render()
    return compiled, python, steps


@pytest.mark.parametrize("env_kwargs", CONFIGS, ids=lambda kwargs: ",".join(map(str, kwargs.items())) or "defaults")
@pytest.mark.parametrize("opponents", ["random_no_call", ["random", "random_no_call", "random"]])
def test_the_compiled_engine_plays_the_engines_games(opponents, env_kwargs, short_of_room):
    if env_kwargs.get("num_players", 4) != 4 and not isinstance(opponents, str):
        opponents = "random"
    compiled, python, steps = play_side_by_side(opponents, env_kwargs, episodes=25, seed=100)
    assert compiled.engine == "compiled" and compiled._seats_play
    assert python.engine == "python" and not python._seats_play
    assert steps > 50  # a few rounds at least, the buffers refilled and the arrays grown on the way
    # The generators, put back where the games left them, are where the Python view's are.
    compiled._seats.sync()
    for a, b in [(compiled.np_random, python.np_random)] + [(x.rng, y.rng) for x, y in
                                                            zip(compiled.opponents, python.opponents)]:
        assert a.integers(2**63) == b.integers(2**63)


def test_env_game_is_rebuilt_from_the_actions_and_kept_up_to_date(short_of_room):
    view = SingleSeatEnv("onefifty_v0", "random_no_call", {"memory": "none"})
    assert view.engine == "compiled"
    rng = np.random.default_rng(3)
    for episode in range(6):
        observation, _ = view.reset(seed=episode if episode % 2 else None)
        done = False
        while not done:
            if rng.random() < 0.3:  # read env.game now and then: it must be this game, now
                state = view.env.game
                assert state.current_player == view.learner_seat
                np.testing.assert_array_equal(view.env.observer.observe(state, view.learner_seat), observation)
                np.testing.assert_array_equal(state.legal_action_mask().astype(bool), view.action_masks())
            action = int(rng.choice(np.flatnonzero(view.action_masks())))
            observation, _, terminated, truncated, info = view.step(action)
            done = terminated or truncated
        state = view.env.game
        assert state.is_terminal and list(state.scores) == info["final_scores"]


def test_copies_play_on_as_the_original(short_of_room):
    view = SingleSeatEnv("onefifty_v0", "random_no_call")
    view.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(5):
        view.step(int(rng.choice(np.flatnonzero(view.action_masks()))))
    copies = [copy.deepcopy(view), pickle.loads(pickle.dumps(view))]
    for step in range(200):
        action = int(rng.choice(np.flatnonzero(view.action_masks())))
        results = [v.step(action) for v in (view, *copies)]
        for result in results[1:]:
            np.testing.assert_array_equal(result[0], results[0][0])
            assert result[1:] == results[0][1:]
        if results[0][2] or results[0][3]:
            for v in (view, *copies):
                v.reset()
    assert [c.render() for c in copies] == [view.render()] * 2


def test_reset_options_play_on_the_engine_and_the_games_after_them_match():
    """A scenario (reset options) is the engine's to set up: that episode is played in
    Python, the generators put back first; the episodes after it are the twin's again."""
    scenario = {"hands": [["AS", "2S", "3S", "4S"], ["5S", "6S", "7S", "8S"], ["9S", "10S", "JS", "QS"],
                          ["KS", "AH", "2H", "3H"]], "starter": 0}
    views = [SingleSeatEnv("onefifty_v0", "random_no_call", seat=0, engine=engine) for engine in ("auto", "python")]
    rng = np.random.default_rng(5)
    for episode in range(4):
        options = scenario if episode == 1 else None
        got = [v.reset(seed=3 if episode == 0 else None, options=options) for v in views]
        np.testing.assert_array_equal(got[0][0], got[1][0])
        assert views[0]._seats_play == (options is None)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(views[1].action_masks())))
            got = [v.step(action) for v in views]
            np.testing.assert_array_equal(got[0][0], got[1][0])
            assert got[0][1:] == got[1][1:]
            done = got[0][2] or got[0][3]


def test_the_engine_option():
    assert SingleSeatEnv("onefifty_v0", "random_no_call").engine == "compiled"
    assert SingleSeatEnv("onefifty_v0", ["random", "random_no_call", "random"]).engine == "compiled"
    for ruleset, opponents, guide in [("onefifty_v0", "heuristic", None), ("cut_v0", "random_no_call", None),
                                      ("onefifty_v0", "random_no_call", "heuristic")]:
        assert SingleSeatEnv(ruleset, opponents, guide=guide).engine == "python"
        with pytest.raises(ValueError, match="engine='compiled' plays onefifty_v0 against random") as error:
            SingleSeatEnv(ruleset, opponents, guide=guide, engine="compiled")
        assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="engine"):
        SingleSeatEnv("onefifty_v0", "random_no_call", engine="fast")


def test_the_compiled_draws_are_numpys():
    """The twin's draws from a buffer of ``next_uint32`` outputs against numpy's own:
    ``integers(n)`` (large bounds too, where Lemire's method rejects often) and the
    shuffle of a list."""
    from cardenv.games.onefifty import kernel

    for seed in range(20):
        reference = np.random.default_rng(seed)
        draws = np.random.default_rng(seed).integers(0, 2**32, size=(1, 20000), dtype=np.uint32)
        drawn = np.zeros(1, dtype=np.int64)
        picks = np.random.default_rng(seed + 99)
        for _ in range(200):
            n = int(picks.choice([1, 2, 3, 7, 52, 101, 3 * 2**29, 2**31 - 1, 2**30 + 1]))
            if picks.random() < 0.3:
                count = int(picks.integers(0, 60))
                cards = np.arange(count, dtype=np.int64)
                expected = list(range(count))
                kernel.shuffle(cards, count, draws, drawn)
                reference.shuffle(expected)
                assert cards.tolist() == expected
            else:
                assert kernel.bounded(draws, drawn, 0, n) == reference.integers(n)
