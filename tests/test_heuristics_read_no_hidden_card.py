"""Every heuristic, in every variant, decides from its observation alone: on a world
resampled from what its seat cannot know (``state.sample_world(seat, rng)``: the same
observation, other hidden cards), it makes the same decision as on the real state.

Each decision of the checked seats is made by a copy of the player (its memory and its
generator state included) on the real state and by other copies on resampled worlds; the
agents get the state too (they may read its public facts and sample from it), so a
heuristic that reads a hidden card from it (its own unseen card in a snap window, say)
decides differently on some world. Agents may not read hidden cards (cardenv.agents.base);
the observation itself leaking is tests/test_leak_pairs.py's concern, and is checked
here first so that a failure names the right culprit.

The checked games reach every ruleset's reaction windows (KABOOM's snaps, Cut!'s and
150's matches, carte's catches, which need a player who forgets carte: one seat plays
``random``, whose decisions are not checked) and the heuristic's powers; the test
asserts that they did.
"""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import pytest

from cardenv.agents import make_agent, make_raw_env, ruleset_info
from cardenv.agents.specs import AGENTS
from cardenv.rulesets import ruleset_names

# Every agent built on a ruleset's heuristic: heuristic, heuristic_no_call, heuristic_cautious, …
HEURISTIC_SPECS = sorted(name for name in AGENTS if name.startswith("heuristic"))
WORLDS = 2  # resampled worlds per decision
DECISIONS = 600  # checked decisions per ruleset and variant
# What the checked decisions must include: the window decision of each ruleset (made
# with that action kind legal), and the powers and other action kinds its heuristic plays.
WINDOW_KIND = {"kaboom_v0": "snap_select", "cut_v0": "match", "onefifty_v0": "match_select", "carte_v0": "catch"}
MIN_WINDOW_DECISIONS = {"carte_v0": 5}  # a catch needs a player who forgot carte; the others: 100
CHOSEN_KINDS = {
    "kaboom_v0": {"snap_select", "snap_confirm", "pass", "leave_gap", "look_own", "look_other", "black_six",
                  "red_six", "blind_own", "blind_target", "replace", "discard"},
    "cut_v0": {"match", "call_out", "give", "pass", "peek_own", "peek_other", "queen_own", "queen_target",
               "king_own", "king_target", "king_swap", "replace", "discard"},
    "onefifty_v0": {"match_select", "match_confirm", "take", "swap", "discard", "jack_own", "jack_target",
                    "queen_peek"},
    "carte_v0": {"catch", "put_down", "add_to", "select", "draw_stock", "draw_pile", "discard"},
}
# The deeper run reaches the rarer ones too (the black King's steps come from 2 cards of 54).
DEEPER_KINDS = {"kaboom_v0": {"king_look", "king_take", "king_leave", "king_give"}, "cut_v0": {"king_keep"}}
# The table: the variant under test in every seat but the last, which is not checked:
# it plays ``random`` (the games stray from the heuristics' habits), in carte
# ``heuristic_no_call``, who never says carte, so that catch windows open.
NUM_PLAYERS = 4
UNCHECKED_SEAT = {"carte_v0": "heuristic_no_call"}


def _copy(agent):
    """A deep copy of ``agent`` (memory, generator state) sharing the ruleset's tables."""
    info = agent.info
    shared = (info, info.action_table, info.layout, info.config)
    return copy.deepcopy(agent, {id(x): x for x in shared})


def _check_games(ruleset: str, spec: str, decisions: int, seed: int = 0, **env_kwargs):
    """Play games until ``decisions`` decisions of the checked seats were compared;
    returns (decisions with the window kind legal, kinds chosen, decisions checked)."""
    info = ruleset_info(ruleset, num_players=NUM_PLAYERS, **env_kwargs)
    env = make_raw_env(ruleset, num_players=NUM_PLAYERS, **env_kwargs)
    window_kind = info.action_table.span(WINDOW_KIND[ruleset])
    rng = np.random.default_rng(seed)
    window_decisions, chosen, checked, game = 0, Counter(), 0, 0
    while checked < decisions:
        env.reset(seed=seed * 1000 + game)
        unchecked = UNCHECKED_SEAT.get(ruleset, "random")
        players = [make_agent(spec if p < NUM_PLAYERS - 1 else unchecked, info, np.random.default_rng(seed + p))
                   for p in range(NUM_PLAYERS)]
        for player in players:
            player.reset()
        while not env.game.is_terminal and checked < decisions:
            state, seat = env.game, env.game.current_player
            observation = env.observe(env.possible_agents[seat])
            player = players[seat]
            if seat == NUM_PLAYERS - 1:
                env.step(player.act(observation, state, seat))
                continue
            before = _copy(player)  # its memory and generator state
            action = player.act(observation, state, seat)
            for _ in range(WORLDS):
                world = state.sample_world(seat, rng)
                world_observation = {"observation": env.observer.observe(world, seat),
                                     "action_mask": world.legal_action_mask().copy()}
                assert np.array_equal(world_observation["observation"], observation["observation"]), \
                    "the observation itself changed on a resampled world (a leak: see tests/test_leak_pairs.py)"
                assert np.array_equal(world_observation["action_mask"], observation["action_mask"])
                twin = _copy(before)
                world_action = twin.act(world_observation, world, seat)
                assert world_action == action, (
                    f"{spec} at seat {seat} of {ruleset} decides {env.action_name(action)} on the real state and "
                    f"{env.action_name(world_action)} on a resampled world (decision {checked}, phase "
                    f"{getattr(state, 'phase', None)!r}): it reads something its observation does not show")
            window_decisions += bool(observation["action_mask"][window_kind].any())
            chosen[info.action_table.specs[action].kind] += 1
            checked += 1
            env.step(action)
        game += 1
    return window_decisions, chosen, checked


@pytest.mark.parametrize("spec", HEURISTIC_SPECS)
@pytest.mark.parametrize("ruleset", ruleset_names())
def test_the_heuristic_reads_no_hidden_card(ruleset, spec):
    window_decisions, chosen, checked = _check_games(ruleset, spec, DECISIONS)
    assert checked == DECISIONS
    assert window_decisions >= MIN_WINDOW_DECISIONS.get(ruleset, 100), (window_decisions, dict(chosen))
    missing = CHOSEN_KINDS[ruleset] - set(chosen)
    assert not missing, f"the checked games never had {spec} play {sorted(missing)}: {dict(chosen)}"


@pytest.mark.slow
@pytest.mark.parametrize("memory", ["perfect", "none"])
@pytest.mark.parametrize("ruleset", ruleset_names())
def test_the_heuristic_reads_no_hidden_card_deeper(ruleset, memory):
    chosen = Counter()
    for seed in (1, 2):
        for spec in HEURISTIC_SPECS:
            chosen += _check_games(ruleset, spec, 2 * DECISIONS, seed=seed, memory=memory)[1]
    missing = (CHOSEN_KINDS[ruleset] | DEEPER_KINDS.get(ruleset, set())) - set(chosen)
    assert not missing, f"the checked games never played {sorted(missing)}: {dict(chosen)}"
