"""Observations without the recent events, for agents that never read them (issue 12).

``observer.observe(state, seat, recent_events=False)`` leaves the ``event_*`` and
``events_dropped`` pieces at zero and is otherwise the full observation. Runners give
such observations to agents with ``needs_recent_events = False`` (the heuristics); the
tests check, over heuristic self-play, that every heuristic decides exactly as it does
from full observations, and that the comparison does catch an agent that reads events.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.agents import make_agent, make_raw_env, ruleset_info
from cardenv.agents.base import observation_for
from cardenv.games.onefifty.heuristic import OneFiftyHeuristic

SLOT_RULESETS = ["onefifty_v0", "cut_v0", "kaboom_v0"]


def event_pieces(layout) -> list[str]:
    return [name for name in layout.pieces if name.startswith("event_") or name == "events_dropped"]


def without_events(layout, vector: np.ndarray) -> np.ndarray:
    expected = vector.copy()
    views = layout.views(expected)
    for name in event_pieces(layout):
        views[name][...] = 0
    return expected


@pytest.mark.parametrize("memory", ["perfect", "none"])
@pytest.mark.parametrize("ruleset", SLOT_RULESETS)
def test_the_observation_without_events_is_the_full_one_with_the_events_zeroed(ruleset, memory):
    env = make_raw_env(ruleset, memory=memory)
    fresh = make_raw_env(ruleset, memory=memory).observer  # only ever asked for full observations
    observer, layout = env.observer, env.layout
    rng = np.random.default_rng(0)
    events_seen = 0
    for seed in range(2):
        env.reset(seed=seed)
        while not env.game.is_terminal:
            state = env.game
            for seat in range(env.config.num_players):
                # Alternate the two kinds of call on one observer: the events skipped by the
                # partial ones must still be in the full ones that follow.
                partial = observer.observe(state, seat, recent_events=False)
                full = observer.observe(state, seat)
                np.testing.assert_array_equal(full, fresh.observe(state, seat))
                np.testing.assert_array_equal(partial, without_events(layout, full))
                events_seen += bool(layout.view(full, "event_kind").any())
            legal = np.flatnonzero(state.legal_action_mask())
            state.apply(int(legal[rng.integers(len(legal))]))
    assert events_seen > 100


def decisions_that_differ(ruleset: str, make_player, seeds=range(2), memory: str = "perfect") -> tuple[int, int]:
    """Play games with one set of players acting from full observations while a twin set
    (same seeds) is asked the same decisions through ``observation_for`` (without events
    where the agent says it needs none); return (decisions, how many the twins answered
    differently)."""
    info = ruleset_info(ruleset, memory=memory)
    env = make_raw_env(ruleset, memory=memory)
    n = info.num_players
    decisions = differ = 0
    for seed in seeds:
        players = [make_player(info, seat, seed) for seat in range(n)]
        twins = [make_player(info, seat, seed) for seat in range(n)]
        for agent in players + twins:
            agent.reset()
        env.reset(seed=seed)
        while not env.game.is_terminal:
            state, seat = env.game, env.game.current_player
            action = players[seat].act(env.observe(env.possible_agents[seat]), state, seat)
            twin_action = twins[seat].act(observation_for(twins[seat], env, seat), state, seat)
            decisions += 1
            differ += action != twin_action
            env.step(action)
            env.step_done_agents()
    return decisions, differ


@pytest.mark.parametrize("memory", ["perfect", "none"])
@pytest.mark.parametrize("ruleset", [*SLOT_RULESETS, "carte_v0"])
def test_heuristics_decide_alike_without_the_events(ruleset, memory):
    def heuristic(info, seat, seed):
        agent = make_agent("heuristic", info, np.random.default_rng(1000 * seed + seat))
        assert not agent.needs_recent_events
        return agent

    decisions, differ = decisions_that_differ(ruleset, heuristic, memory=memory)
    assert decisions > 200
    assert differ == 0


class EventReadingHeuristic(OneFiftyHeuristic):
    """The 150 heuristic, except that it passes whenever the newest event was a discard:
    an agent that reads the events but claims not to."""

    needs_recent_events = False

    def choose(self, observation, state, seat) -> int:
        kinds = self.info.layout.view(observation["observation"], "event_kind")
        discard = self.info.observer_class(self.info.config).kind_index["discard"]
        mask = observation["action_mask"]
        if kinds[0, discard] > 0.5 and mask.sum() > 1:
            return int(np.flatnonzero(mask)[-1])
        return super().choose(observation, state, seat)


def test_the_comparison_catches_an_agent_that_reads_the_events():
    def reader(info, seat, seed):
        return EventReadingHeuristic(info, np.random.default_rng(1000 * seed + seat))

    decisions, differ = decisions_that_differ("onefifty_v0", reader, seeds=[0])
    assert differ > 0


def test_observation_for_leaves_the_env_s_own_observations_whole():
    env = make_raw_env("onefifty_v0")
    info = ruleset_info("onefifty_v0")
    heuristic = make_agent("heuristic", info, np.random.default_rng(0))
    env.reset(seed=0)
    for _ in range(12):
        env.step(int(np.flatnonzero(env.game.legal_action_mask())[0]))
    seat = env.game.current_player
    full = env.observe(env.possible_agents[seat])["observation"]
    assert env.layout.view(full, "event_kind").any()
    partial = observation_for(heuristic, env, seat)["observation"]
    np.testing.assert_array_equal(partial, without_events(env.layout, full))
    np.testing.assert_array_equal(env.observe(env.possible_agents[seat])["observation"], full)
