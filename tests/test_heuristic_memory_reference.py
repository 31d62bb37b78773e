"""The slot heuristics' memory update (a fast path that skips the re-location check when
nothing remembered is out of sight, and keeps which remembered cards are) and the beliefs
drawn from it (one compiled loop) against the straightforward rules, at every decision of
heuristic self-play, under both memory models."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.agents import make_agent, make_raw_env, ruleset_info


def reference_memory(agent, v):
    """What the heuristic remembers after seeing ``v``: every shown card, and every
    remembered card still in its slot with the same knowers (the player among them)."""
    present = v["slot_present"] > 0.5
    shown = v["slot_known"] > 0.5
    knowers = v["slot_known_by"] > 0.5
    rank = np.argmax(v["slot_rank"], axis=-1)
    points = np.rint(v["slot_points"] * agent.points_scale).astype(np.int64)
    still_valid = (present & (agent.mem_rank >= 0) & knowers[:, :, 0]
                   & np.all(knowers == agent.mem_knowers, axis=-1))
    mem_rank = np.where(shown, rank, np.where(still_valid, agent.mem_rank, -1))
    mem_points = np.where(mem_rank >= 0, np.where(shown, points, agent.mem_points), 0)
    return mem_rank, mem_points


def reference_beliefs(agent, v, out_of_sight):
    """The unseen card types' points, their mean, the known places and every place's
    value, from the memory after its update (``out_of_sight``: its cards not shown)."""
    unseen = v["accounted"] < 0.5
    # Remembered cards the observation no longer shows are accounted for by memory.
    for r, s in zip(*np.nonzero(out_of_sight)):
        candidates = np.flatnonzero(unseen & (agent.type_rank == agent.mem_rank[r, s])
                                    & (agent.type_points == agent.mem_points[r, s]))
        if len(candidates):
            unseen[candidates[0]] = False
    unseen_points = agent.type_points.astype(np.float64)[unseen]
    expected = float(unseen_points.sum()) / len(unseen_points) if len(unseen_points) else 6.0
    known = agent.mem_rank >= 0
    present = v["slot_present"] > 0.5
    values = np.where(present, np.where(known, agent.mem_points, expected), np.nan)
    return unseen_points, expected, known, values


@pytest.mark.parametrize("memory", ["perfect", "none"])
@pytest.mark.parametrize("ruleset", ["onefifty_v0", "cut_v0", "kaboom_v0"])
def test_memory_update_matches_the_reference(ruleset, memory):
    info = ruleset_info(ruleset, memory=memory)
    env = make_raw_env(ruleset, memory=memory)
    players = [make_agent("heuristic", info, np.random.default_rng(seat)) for seat in range(info.num_players)]
    checked = kept_out_of_sight = 0
    for seed in range(3):
        env.reset(seed=seed)
        for player in players:
            player.reset()
        while not env.game.is_terminal:
            state = env.game
            seat = state.current_player
            player = players[seat]
            observation = env.observe(env.possible_agents[seat])
            if player._round_index != state.round_index:
                player.start_round()
                player._round_index = state.round_index
            v = player._views(observation["observation"])
            expected_rank, expected_points = reference_memory(player, v)
            beliefs = player._beliefs(v)  # the memory update first
            np.testing.assert_array_equal(player.mem_rank, expected_rank)
            np.testing.assert_array_equal(player.mem_points, expected_points)
            out_of_sight = (player.mem_rank >= 0) & (v["slot_known"] < 0.5)
            unseen_points, expected, known, values = reference_beliefs(player, v, out_of_sight)
            np.testing.assert_array_equal(beliefs[0], unseen_points)
            assert beliefs[1] == expected
            np.testing.assert_array_equal(beliefs[2], known)
            np.testing.assert_array_equal(beliefs[3], values)  # NaN where NaN
            # What the unseen-card count leans on: the remembered cards out of sight.
            np.testing.assert_array_equal(player._still_valid, out_of_sight)
            assert player._kept == int(out_of_sight.sum())
            kept_out_of_sight += int(out_of_sight.sum())
            checked += 1
            env.step(player.act(observation, state, seat))
    assert checked > 300
    # Under memory="none" the memory must have kept cards the observation no longer shows.
    assert (kept_out_of_sight > 0) == (memory == "none")
