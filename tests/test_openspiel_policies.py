"""cardenv.adapters.openspiel_policies: any agent as a tabular policy of a mini variant,
and its exact exploitability."""

from __future__ import annotations

import json
from pathlib import Path

import pyspiel
import pytest

from cardenv import MINI_VARIANTS
from cardenv.adapters.openspiel_policies import agent_exploitability, agent_policy, mini_ruleset

STORED = Path(__file__).resolve().parents[1] / "docs" / "results" / "openspiel_mini.json"


def test_a_mini_variant_is_named_by_its_ruleset_or_its_game():
    assert mini_ruleset("cut_v0") == "cut_v0" and mini_ruleset("cardenv_kaboom_mini") == "kaboom_v0"


@pytest.mark.parametrize("ruleset", ["poker_v0", "cardenv_cut_v0", None])
def test_a_ruleset_without_a_mini_variant_is_one_line(ruleset):
    with pytest.raises(ValueError) as error:
        agent_exploitability(ruleset, "heuristic")
    message = str(error.value)
    assert "\n" not in message and repr(ruleset) in message
    assert all(name in message for name in MINI_VARIANTS) and "cardenv_cut_mini" in message


@pytest.mark.parametrize("kwargs, message", [
    ({"spec": "nobody"}, "unknown agent 'nobody'"),
    ({"spec": "heuristic", "samples": 0}, "samples must be"),
    ({"spec": "heuristic", "seed": -1}, "seed must be"),
])
def test_bad_arguments_are_one_line_before_the_tree_is_built(kwargs, message):
    with pytest.raises(ValueError) as error:
        agent_exploitability("cut_v0", **kwargs)
    assert message in str(error.value) and "\n" not in str(error.value)


@pytest.mark.slow
def test_exploitability_of_agents_on_a_mini_variant():
    """carte's mini variant (the smallest tree): random is exactly OpenSpiel's uniform
    policy, as the benchmark measured it; the heuristic lies between a Nash equilibrium
    and uniform random; a policy is a distribution over the legal actions at every state."""
    stored = json.loads(STORED.read_text())["tables"][0]["data"]["carte_v0"]["cfr"]["uniform_exploitability"]
    random = agent_exploitability("carte_v0", "random")
    assert random.exact_distribution and random.samples == 1
    assert random.exploitability == pytest.approx(random.uniform_exploitability, abs=1e-9)
    assert random.uniform_exploitability == pytest.approx(stored, rel=1e-9)
    assert random.nash_conv == pytest.approx(2 * random.exploitability)
    assert random.tree_seconds > 0 and random.information_states > 100
    heuristic = agent_exploitability("cardenv_carte_mini", "heuristic")
    assert not heuristic.exact_distribution and heuristic.tree_seconds == 0.0
    assert 0.0 <= heuristic.exploitability < heuristic.uniform_exploitability
    assert heuristic.exploitability == agent_exploitability("carte_v0", "heuristic").exploitability
    no_call = agent_exploitability("carte_v0", "random_no_call")
    assert no_call.exact_distribution and no_call.exploitability >= 0.0
    assert "points per game" in heuristic.describe() and json.dumps(heuristic.to_dict())
    mixed = agent_exploitability("carte_v0", "heuristic|random", samples=4)
    assert mixed.samples == 4 and 0.0 <= mixed.exploitability
    policy = agent_policy("carte_v0", "heuristic|random", samples=4)
    game = pyspiel.load_game("cached_tree(game=cardenv_carte_mini())")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probabilities = policy.action_probabilities(state)
    assert set(probabilities) == set(state.legal_actions()) and sum(probabilities.values()) == pytest.approx(1.0)
