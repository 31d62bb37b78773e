"""The cut_v0 PettingZoo environment: API, seeding, determinism, registration,
scenarios, names, rendering, rewards and the generated docs tables."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from cardenv import cut_v0
from cardenv.engine.rounds import IllegalActionError
from cardenv.games.cut import Phase

DOCS = Path(__file__).resolve().parents[1] / "docs" / "cut.md"


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_api(num_players):
    api_test(cut_v0.env(num_players=num_players), num_cycles=200)


def test_api_long_games():
    # A higher target and a short turn cap make the game cross several round boundaries.
    api_test(cut_v0.env(target_score=400, max_turns_per_round=30), num_cycles=500)


def test_seed():
    seed_test(cut_v0.env, num_cycles=300)


def test_scenario_through_reset_options_and_action_names():
    env = cut_v0.raw_env(num_players=2, render_mode="ansi")
    env.reset(seed=3, options={"hands": [["7S", "2H", "3H", "4H"], ["7H", "8C", "9C", "10C"]],
                               "draw_pile": ["7D"], "starter": 1})
    assert env.agent_selection == "player_1"
    for name in ("draw", "discard drawn", "match own slot 0"):
        env.step(env.action_from_name(name))
    assert env.agent_selection == "player_0"
    assert env.game.phase == Phase.WINDOW
    # The mask offers every occupied slot; the observation says what the window is on.
    obs = env.observe("player_0")
    names = {env.action_name(a) for a in np.flatnonzero(obs["action_mask"])}
    assert names == {"pass"} | {f"match own slot {s}" for s in range(4)} | {
        f"call out opponent +1 slot {s}" for s in range(4)}
    pieces = env.observation_pieces(obs["observation"])
    assert pieces["window_open"][0] == 1 and pieces["window_rank"].argmax() == 6
    text = env.render()
    assert "match window on rank 7" in text and "4H" in text and "7S" not in text.split("recent")[0]
    assert len(env.action_names) == len(env.action_table)


def test_match_hints_name_the_shown_cards_of_the_top_discards_rank():
    """``match_hints=True`` appends seat × slot: the shown cards with the top discard's
    rank (C-08). Slots 2 and 3 are peeked at the start: 7S in slot 2 matches 7D; the unseen
    7H of slot 0 and the other player's unseen cards are no hint. The rest of the
    observation is the plain one, and ``match_hints_of`` works the piece out from it."""
    from cardenv.games.cut.observation import match_hints_of

    env, plain = cut_v0.raw_env(num_players=2, match_hints=True), cut_v0.raw_env(num_players=2)
    for e in (env, plain):
        e.reset(seed=3, options={"hands": [["7H", "2H", "7S", "4H"], ["5C", "8C", "9C", "10C"]],
                                 "draw_pile": ["7D"], "starter": 1})
        for name in ("draw", "discard drawn"):
            e.step(e.action_from_name(name))
    vector, plain_vector = env.observe("player_0")["observation"], plain.observe("player_0")["observation"]
    hints = env.observation_pieces(vector)["match_hint"]
    assert list(env.layout.pieces)[-1] == "match_hint" and hints.shape == (2, env.config.max_hand_slots)
    assert np.flatnonzero(hints).tolist() == [2]
    assert np.array_equal(vector[: plain.layout.size], plain_vector)
    assert np.array_equal(vector[plain.layout.size:], match_hints_of(plain.layout, plain_vector))


def test_illegal_action_raises_in_raw_env_and_terminates_in_wrapped_env():
    raw = cut_v0.raw_env(num_players=2)
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError, match="discard drawn.*legal actions: 0 \\(draw\\), 1 \\(call Cut!\\)"):
        raw.step(raw.action_from_name("discard drawn"))
    wrapped = cut_v0.env(num_players=2)
    wrapped.reset(seed=0)
    agent = wrapped.agent_selection
    wrapped.step(wrapped.unwrapped.action_from_name("discard drawn"))
    assert wrapped.terminations[agent] and wrapped.rewards[agent] == -1


def _play_out(env, chooser) -> dict[str, float]:
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        action = None if terminated or truncated else int(chooser.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return totals


def test_points_rewards_and_single_round():
    env = cut_v0.env(num_players=3, single_round=True, reward_scale=0.5)
    env.reset(seed=11)
    totals = _play_out(env, np.random.default_rng(0))
    state = env.unwrapped.game
    assert len(state.round_results) == 1
    added = state.round_results[0].points_added
    assert totals == {f"player_{p}": -0.5 * added[p] for p in range(3)}


def test_outcome_rewards():
    env = cut_v0.env(num_players=4, reward_mode="outcome")
    env.reset(seed=5)
    totals = _play_out(env, np.random.default_rng(1))
    state = env.unwrapped.game
    assert state.is_terminal and max(state.scores) >= 100
    winners = state.winners()
    assert totals == {f"player_{p}": (1.0 if p in winners else -1.0) for p in range(4)}


def test_memory_none_shows_only_fresh_reveals():
    env = cut_v0.raw_env(num_players=2, memory="none")
    env.reset(seed=0, options={"hands": [["7S", "2H", "3H", "4H"], ["7H", "8C", "9C", "10C"]],
                               "draw_pile": ["9D", "9S"], "starter": 0})
    known = env.observation_pieces(env.observe("player_0")["observation"])["slot_known"]
    assert known[0, :4].tolist() == [0, 0, 1, 1]  # the peek is fresh before the first decision
    env.step(env.action_from_name("draw"))
    known = env.observation_pieces(env.observe("player_0")["observation"])["slot_known"]
    assert known[0, :4].tolist() == [0, 0, 0, 0]  # remembering is now the agent's job


def test_options_are_validated():
    with pytest.raises(ValueError, match="from 2 to 6"):
        cut_v0.env(num_players=7)
    with pytest.raises(ValueError, match="memory"):
        cut_v0.env(memory="photographic")
    with pytest.raises(ValueError, match="max_hand_slots"):
        cut_v0.env(max_hand_slots=4)
    raw = cut_v0.raw_env(num_players=2, max_hand_slots=6)
    with pytest.raises(ValueError, match="max_hand_slots"):
        raw.reset(options={"hands": [["AS", "2S", "3S", "4S", "5S", "6S", "7S"], ["8S"]]})


def _generated_block(text: str, name: str) -> str:
    match = re.search(rf"<!-- BEGIN GENERATED: {name} -->\n(.*?)\n<!-- END GENERATED: {name} -->", text, re.S)
    assert match, f"docs/cut.md lacks the {name} markers"
    return match.group(1).strip()


def test_docs_tables_are_generated_from_the_code():
    text = DOCS.read_text(encoding="utf-8")
    env = cut_v0.raw_env()
    # docs/generate.py puts a note on the configuration above each table.
    assert _generated_block(text, "observation").endswith(env.layout.markdown())
    assert _generated_block(text, "actions").endswith(env.action_table.markdown())
    for rule in range(1, 18):
        if rule in (12, 13):  # the rules have no C-12 or C-13 (docs/cut.md)
            continue
        assert f"C-{rule:02d}" in text
