"""The onefifty heuristic's decisions on stacked decks (that it reads no hidden card: every
heuristic's, in tests/test_heuristics_read_no_hidden_card.py)."""

from __future__ import annotations

import numpy as np

from cardenv.agents import make_agent, make_raw_env, ruleset_info
from cardenv.games.onefifty import Phase


def _setup(options, seed=0, **env_kwargs):
    info = ruleset_info("onefifty_v0", **env_kwargs)
    env = make_raw_env("onefifty_v0", **env_kwargs)
    env.reset(seed=seed, options=options)
    agent = make_agent("heuristic", info, np.random.default_rng(seed))
    agent.reset()
    return info, env, agent


def _act(env, agent):
    seat = env.game.current_player
    return agent.act(env.observe(env.possible_agents[seat]), env.game, seat)


def test_matches_a_known_card_of_the_top_discard_rank():
    # player_0 has seen slots 2 and 3 (O-05): slot 3 is a 7, and a 7 tops the discard pile.
    hands = [["KS", "KH", "2C", "7S"], ["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"], ["AD", "2D", "3D", "4D"]]
    info, env, agent = _setup({"hands": hands, "discard_pile": ["7H"], "starter": 0})
    at = info.action_table
    assert _act(env, agent) == at.id("match_select", 3)
    env.step(at.id("match_select", 3))
    assert _act(env, agent) == at.id("match_confirm")


def test_swaps_a_low_drawn_card_for_its_highest_known_card_and_discards_a_high_one():
    hands = [["5S", "5H", "9C", "2S"], ["AS", "2H", "3S", "4S"], ["AH", "2D", "3H", "4H"], ["AD", "2C", "3D", "4D"]]
    info, env, agent = _setup({"hands": hands, "draw_pile": ["AC", "8S"], "starter": 0})
    at = info.action_table
    assert _act(env, agent) == at.id("draw")
    env.step(at.id("draw"))
    assert env.game.phase == Phase.DRAWN
    assert _act(env, agent) == at.id("swap", 2)  # the known 9 goes, the ace stays
    env.step(at.id("swap", 2))
    env.step(at.id("pass"))
    for _ in range(3):  # the others draw and discard
        env.step(at.id("draw"))
        env.step(at.id("discard"))
        env.step(at.id("pass"))
    env.step(at.id("draw"))  # player_0 draws the 8: higher than every known card and than the unknowns' mean
    assert _act(env, agent) == at.id("discard")


def test_calls_with_a_very_low_known_hand_and_not_with_a_high_one():
    low = [["AS", "AH", "AD", "AC"], ["KS", "KH", "QS", "QH"], ["KD", "KC", "QD", "QC"], ["JS", "JH", "JD", "JC"]]
    info, env, agent = _setup({"hands": low, "draw_pile": ["10H"], "starter": 0})
    at = info.action_table
    state = env.game
    # player_0 has seen slots 2 and 3; the Queen-peeks below make all four known.
    state.table.knowledge.reveal(0, [state.table.hands[0][0], state.table.hands[0][1]])
    env.step(at.id("draw"))
    env.step(at.id("swap", 0))  # red 10 = 0 points
    assert env.game.phase == Phase.AFTER_ACTION
    assert _act(env, agent) == at.id("call")

    high = [["KS", "KH", "QS", "QH"], ["AS", "AH", "AD", "AC"], ["2S", "2H", "2D", "2C"], ["3S", "3H", "3D", "3C"]]
    info, env, agent = _setup({"hands": high, "draw_pile": ["9S"], "starter": 0})
    env.step(at.id("draw"))
    env.step(at.id("discard"))
    assert _act(env, agent) == at.id("pass")


def test_memory_resets_every_round_and_game():
    info = ruleset_info("onefifty_v0")
    agent = make_agent("heuristic", info, np.random.default_rng(0))
    agent.reset()
    agent.mem_rank[0, 0] = 5
    agent.start_round()
    assert (agent.mem_rank == -1).all()
    env = make_raw_env("onefifty_v0")
    env.reset(seed=1)
    seat = env.game.current_player
    agent.act(env.observe(env.possible_agents[seat]), env.game, seat)
    agent.mem_rank[1, 0] = 5  # pretend it remembered something
    env.game.round_index += 1  # the next act sees a new round
    agent.act(env.observe(env.possible_agents[seat]), env.game, seat)
    assert agent.mem_rank[1, 0] == -1


def test_worst_slot_matches_its_numpy_form():
    """``_worst_slot`` scans a hand's few slots in plain Python; the numpy form it
    replaced, over random values with empty slots (NaN), ties and unknown cards."""
    from cardenv.games.onefifty.heuristic import OneFiftyHeuristic

    def numpy_worst_slot(own_values, known):
        values = np.where(np.isnan(own_values), -np.inf, own_values)
        best = np.flatnonzero(values == values.max())
        known_best = [s for s in best if known[0, s]]
        return int(known_best[0] if known_best else best[0])

    rng = np.random.default_rng(0)
    for _ in range(2000):
        slots = int(rng.integers(1, 9))
        own_values = rng.integers(0, 6, slots).astype(np.float64)  # few values: many ties
        own_values[rng.random(slots) < 0.3] = np.nan
        known = rng.random((4, slots)) < 0.5
        assert OneFiftyHeuristic._worst_slot(own_values, known) == numpy_worst_slot(own_values, known)


def test_the_sampled_deals_order_the_draws_as_argsort_does():
    """``first_in_sorted_order`` sorts integers instead of arg-sorting the draws; the
    columns it returns are argsort's, for rows of every length a deal can have."""
    from cardenv.engine.slot_heuristic import first_in_sorted_order

    rng = np.random.default_rng(0)
    for columns in [1, 2, 3, 7, 8, 9, 31, 32, 33, 45, 52, 64, 65, 200]:
        draws = rng.random((128, columns))
        for k in {1, columns // 2 or 1, columns}:
            np.testing.assert_array_equal(first_in_sorted_order(draws, k), np.argsort(draws, axis=1)[:, :k])
