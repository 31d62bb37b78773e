"""The ISMCTS agent: legal full games on every ruleset, reproducible with a seed, and a
search that finds the clearly best move even when its heuristic prior points elsewhere."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from cardenv.agents import ismcts, make_agent, make_raw_env, ruleset_info
from cardenv.agents.ismcts import ISMCTSAgent
from cardenv.eval.tournament import play_game
from cardenv.rulesets import ruleset_names


def _play(ruleset: str, specs: list[str], seed: int, factory=make_agent, **env_kwargs):
    info = ruleset_info(ruleset, **env_kwargs)
    env = make_raw_env(ruleset, **env_kwargs)
    agents = [factory(spec, info, np.random.default_rng(seed + i)) for i, spec in enumerate(specs)]
    play_game(env, agents, seed)  # raw_env raises on an illegal action; Agent.act asserts the mask
    assert env.game.is_terminal
    return env.game


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_plays_full_games_without_illegal_moves(ruleset):
    n = ruleset_info(ruleset).num_players
    state = _play(ruleset, ["ismcts:4"] + ["heuristic"] * (n - 1), 21)
    assert len(state.round_results) >= 1
    # Other table sizes and the memoryless observation model, against itself.
    _play(ruleset, ["ismcts:3"] * 3, 22, num_players=3, single_round=True)
    _play(ruleset, ["ismcts:3"] + ["random"] * (n - 1), 23, memory="none", single_round=True)


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_same_seed_same_game(ruleset):
    n = ruleset_info(ruleset).num_players

    def events(seed):
        state = _play(ruleset, ["ismcts:4"] + ["heuristic"] * (n - 1), seed, single_round=True)
        return state.describe_events(None)

    first = events(7)
    assert first == events(7)
    assert first != events(8)


# --- stacked onefifty scenarios ------------------------------------------------------------
def _scenario(options, known_to_player_0):
    """player_0 to act in a stacked deal; it also knows the cards in ``known_to_player_0``
    ((seat, slot) pairs) besides its own bottom row."""
    info = ruleset_info("onefifty_v0")
    env = make_raw_env("onefifty_v0")
    env.reset(seed=0, options={**options, "starter": 0})
    table = env.game.table
    table.knowledge.reveal(0, [table.hands[seat][slot] for seat, slot in known_to_player_0])
    return info, env


def _search(info, env, misleading_prior: str, simulations: int = 150, seed: int = 0) -> str:
    """The search's choice when the root prior insists on ``misleading_prior``."""
    agent = ISMCTSAgent(info, np.random.default_rng(seed), simulations=simulations)
    agent.reset()
    bad = info.action_table.from_name(misleading_prior)
    agent.root_prior.act = lambda observation, state, seat: bad
    seat = env.game.current_player
    return info.action_table.name(agent.act(env.observe(env.possible_agents[seat]), env.game, seat))


EVERYONE_ELSE_HIGH = [["KS", "KH", "QS", "QH"], ["KD", "KC", "QD", "QC"], ["JS", "JH", "JD", "JC"]]


def test_calls_end_while_it_is_sure_to_succeed_despite_the_prior():
    # player_0 knows it holds 4 points and that the lowest opponent holds 10 (nobody can
    # get under 4 in one final turn): calling now is a sure success (O-19). Taking the 9
    # (the misleading prior) puts it on 12, above that opponent; a failed match adds a
    # penalty card. Drawing first and then calling is as good (a drawn card can be
    # discarded), so either is right; the other 8 legal actions are not.
    hands = [["AS", "AH", "AD", "AC"], ["2S", "2H", "3S", "3H"], *EVERYONE_ELSE_HIGH[:2]]
    info, env = _scenario({"hands": hands, "discard_pile": ["9S"]},
                          [(0, 0), (0, 1)] + [(p, s) for p in (1, 2, 3) for s in range(4)])
    assert len(env.game.legal_actions()) == 10
    for seed in range(2):
        assert _search(info, env, "take discard into slot 0", seed=seed) in ("call END", "draw")


def test_completes_a_multi_step_match_that_empties_the_hand_despite_the_prior():
    # Matching both 7s empties player_0's hand: the round ends at once (O-16) with player_0
    # on 0 and the others adding their (known, low) hands. Drawing, or confirming only one
    # 7, leaves it above the others.
    low = [["AS", "AH", "2S", "2H"], ["AD", "AC", "2D", "2C"], ["3S", "3H", "3D", "3C"]]
    info, env = _scenario({"hands": [["7S", "7C"], *low], "discard_pile": ["7H"]},
                          [(0, 0), (0, 1)] + [(p, s) for p in (1, 2, 3) for s in range(4)])
    first = _search(info, env, "draw")
    assert first in ("match select slot 0", "match select slot 1")
    env.step(info.action_table.from_name(first))
    other = "match select slot 1" if first.endswith("0") else "match select slot 0"
    assert _search(info, env, "match confirm") == other


# --- a policy as the prior (ismcts:N@ppo:MODEL) --------------------------------------------
def test_policy_prior_mixes_the_policys_probabilities_with_the_uniform():
    info = ruleset_info("onefifty_v0")
    env = make_raw_env("onefifty_v0")
    env.reset(seed=3)
    agent = make_agent("ismcts:1@ppo:pretrained", info, np.random.default_rng(0))
    assert isinstance(agent, ISMCTSAgent) and agent.prior_spec == "ppo:pretrained"
    assert agent.prior_weight == 0.9  # a policy prior's default share; the heuristic's is 0.5
    assert make_agent("ismcts:1", info, np.random.default_rng(0)).prior_weight == 0.5
    seat = env.game.current_player
    observation = env.observe(env.possible_agents[seat])
    policy = make_agent("ppo:pretrained", info, np.random.default_rng(0))
    expected = policy.probabilities(observation, env.game, seat)
    move, probabilities = agent._ask_prior(agent.root_prior, observation, env.game, seat)
    np.testing.assert_allclose(probabilities, expected)
    assert move == int(np.argmax(expected)) == policy.act(observation, env.game, seat)
    legal = np.flatnonzero(observation["action_mask"]).tolist()
    from cardenv.agents.ismcts import _InfoSetNode

    node = _InfoSetNode(legal, move, agent.prior_weight, probabilities)
    assert sorted(node.prior) == legal
    assert sum(node.prior.values()) == pytest.approx(1.0)
    for action in legal:
        assert node.prior[action] == pytest.approx(0.9 * expected[action] + 0.1 / len(legal))


@pytest.mark.parametrize("ruleset", ["onefifty_v0", "cut_v0"])
def test_policy_prior_plays_legal_reproducible_games(ruleset):
    n = ruleset_info(ruleset).num_players
    specs = ["ismcts:4@ppo:pretrained"] + ["heuristic"] * (n - 1)
    first = _play(ruleset, specs, 11, single_round=True).describe_events(None)
    assert first == _play(ruleset, specs, 11, single_round=True).describe_events(None)


@pytest.mark.parametrize(("spec", "message"), [
    ("ismcts:5@random", "the ismcts prior must be heuristic or a ppo model"),
    ("ismcts:5@ismcts:3", "the ismcts prior must be heuristic or a ppo model"),
    ("ismcts:5@ppo:no_such_model.zip", "ppo model file 'no_such_model.zip' does not exist"),
    ("ismcts:@heuristic", "ismcts simulations must be an integer of at least 1, got ''"),
    ("ismcts:5@", "unknown agent ''"),
    ("ismcts:5/deep", "the ismcts leaf evaluation must be one of rollout, static, value, next_value .*got 'deep'"),
    ("ismcts:5/value", "leaf 'value' reads a policy's value function: give a ppo prior"),
    ("ismcts:5/value@heuristic", "leaf 'value' reads a policy's value function: give a ppo prior"),
    ("ismcts:5/next_value", "leaf 'next_value' reads a policy's value function: give a ppo prior"),
])
def test_bad_prior_specs_are_refused_in_one_line(spec, message):
    from cardenv.agents.specs import parse_spec

    with pytest.raises(ValueError, match=message) as caught:
        parse_spec(spec)
    assert "\n" not in str(caught.value)


def test_heuristic_prior_spelled_out_is_the_default():
    info = ruleset_info("onefifty_v0")
    state = _play("onefifty_v0", ["ismcts:4@heuristic"] + ["heuristic"] * 3, 7, single_round=True)
    assert state.describe_events(None) == _play("onefifty_v0", ["ismcts:4"] + ["heuristic"] * 3, 7,
                                                  single_round=True).describe_events(None)
    assert make_agent("ismcts:4@heuristic", info, np.random.default_rng(0)).prior_spec == "heuristic"


def test_policy_prior_plays_the_searchers_seat_in_the_rollouts():
    info = ruleset_info("onefifty_v0")
    env = make_raw_env("onefifty_v0")
    env.reset(seed=5)
    assert make_agent("ismcts:2", info, np.random.default_rng(0)).rollout_self is None  # heuristic everywhere
    agent = make_agent("ismcts:6@ppo:pretrained", info, np.random.default_rng(0))
    agent.reset()
    agent._foregone_conclusion = lambda root, legal: None  # the confident policy would settle it unsearched
    seats_played = []
    choose = agent.rollout_self.choose

    def spy(observation, state, seat):
        seats_played.append(seat)
        return choose(observation, state, seat)

    agent.rollout_self.choose = spy
    while len(env.game.legal_actions()) == 1:
        env.step(env.game.legal_actions()[0])
    seat = env.game.current_player
    agent.act(env.observe(env.possible_agents[seat]), env.game, seat)
    assert seats_played and set(seats_played) == {seat}


# --- simulations that cannot change the move ------------------------------------------------
@pytest.mark.parametrize("ruleset, simulations", [("cut_v0", 10), ("kaboom_v0", 10), ("onefifty_v0", 10)])
def test_a_foregone_conclusion_is_the_move_the_full_search_makes(ruleset, simulations):
    """Where the search skips its simulations (PUCT's choice cannot depend on the rollouts
    before the search stops), running them all returns the same move, on any random numbers."""
    info = ruleset_info(ruleset)
    env = make_raw_env(ruleset)
    players = [make_agent("heuristic", info, np.random.default_rng(seat)) for seat in range(info.num_players)]
    searcher = ISMCTSAgent(info, np.random.default_rng(0), simulations=simulations)
    env.reset(seed=3)
    foregone = searched = 0
    while not env.game.is_terminal and foregone < 12:
        state, seat = env.game, env.game.current_player
        observation = env.observe(env.possible_agents[seat])
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) > 1:
            prior_action, probabilities = searcher._ask_prior(players[seat], observation, state, seat)
            root = ismcts._InfoSetNode(legal, prior_action, searcher.prior_weight, probabilities)
            conclusion = searcher._foregone_conclusion(root, legal)
            if conclusion is not None:
                foregone += 1
                for trial in range(2):
                    full = ISMCTSAgent(info, np.random.default_rng(100 + trial), simulations=simulations)
                    full._foregone_conclusion = lambda root, legal: None
                    full.root_prior.act = lambda observation, state, seat, action=prior_action: action
                    assert full.choose(observation, state, seat) == conclusion
            else:
                searched += 1
        env.step(players[seat].act(observation, state, seat))
    assert foregone == 12 and searched > 0


# --- the prior comes from whoever builds the search -----------------------------------------
def test_the_prior_is_built_by_the_agent_factory_given():
    info = ruleset_info("onefifty_v0")
    built = []

    def recording_factory(spec, info, rng):
        built.append(spec)
        return make_agent(spec, info, rng)

    agent = ISMCTSAgent(info, np.random.default_rng(0), simulations=2, agent_factory=recording_factory)
    assert built == ["heuristic", "heuristic"]  # the root's prior and the nodes' prior
    assert agent.root_prior is not agent.node_prior


def test_a_prior_other_than_the_heuristic_needs_an_agent_factory():
    with pytest.raises(ValueError, match="the ismcts prior 'ppo:pretrained' needs an agent_factory") as caught:
        ISMCTSAgent(ruleset_info("onefifty_v0"), np.random.default_rng(0), prior="ppo:pretrained")
    assert "\n" not in str(caught.value)


# --- the static leaf (ismcts:N/static) ---------------------------------------------------------
@pytest.mark.parametrize("ruleset", ruleset_names())
def test_static_leaf_plays_legal_reproducible_games(ruleset):
    n = ruleset_info(ruleset).num_players
    specs = ["ismcts:20/static"] + ["heuristic"] * (n - 1)
    first = _play(ruleset, specs, 31, single_round=True).describe_events(None)
    assert first == _play(ruleset, specs, 31, single_round=True).describe_events(None)


def test_rollout_leaf_spelled_out_is_the_default():
    specs = ["ismcts:4/rollout"] + ["heuristic"] * 3
    assert _play("onefifty_v0", specs, 7, single_round=True).describe_events(None) == _play(
        "onefifty_v0", ["ismcts:4"] + ["heuristic"] * 3, 7, single_round=True).describe_events(None)
    with pytest.raises(ValueError, match="leaf evaluation must be one of rollout, static, value, next_value, got 'x'"):
        ISMCTSAgent(ruleset_info("onefifty_v0"), np.random.default_rng(0), leaf="x")


def test_static_leaf_scores_the_sampled_hands_and_never_rolls_out(monkeypatch):
    info = ruleset_info("kaboom_v0")
    env = make_raw_env("kaboom_v0")
    env.reset(seed=4)
    agent = make_agent("ismcts:40/static", info, np.random.default_rng(0))
    world = env.game.sample_world(0, np.random.default_rng(1))
    totals = [world.hand_total(p) for p in range(info.num_players)]
    expected = -(totals[0] - (sum(totals) - totals[0]) / (info.num_players - 1)) / ismcts.REWARD_SCALE
    assert agent._static_value(world, 0) == pytest.approx(expected)

    def no_rollout_step(*args):
        raise AssertionError("a static leaf asked a rollout agent to move")

    for rollout_agent in agent.rollout_agents:
        monkeypatch.setattr(rollout_agent, "choose", no_rollout_step)
    state = env.game
    while state.current_player != 0 or len(state.legal_actions()) < 2:
        state.apply(state.legal_actions()[0])
    mask = state.legal_action_mask()
    observation = {"observation": env.observer.observe(state, 0), "action_mask": mask}
    assert mask[agent.act(observation, state, 0)]


# --- the value leaf ----------------------------------------------------------------------
def _turn_just_ended(ruleset: str, seed: int, seat: int = 0):
    """A heuristic game of ``ruleset`` played until ``seat``'s first turn has just ended
    (another seat to move, the round going on, no call pending)."""
    info = ruleset_info(ruleset)
    env = make_raw_env(ruleset)
    env.reset(seed=seed)
    heuristic = make_agent("heuristic", info, np.random.default_rng(seed))
    state, moved = env.game, False
    while True:
        player = state.current_player
        if moved and player != seat and getattr(state, "caller", None) is None:
            return env, state
        moved = moved or player == seat
        state.apply(heuristic.act({"observation": env.observer.observe(state, player),
                                   "action_mask": state.legal_action_mask()}, state, player))


def test_value_leaf_is_the_policy_value_of_the_searchers_observation():
    """Where the searcher's turn ends the leaf is the policy's own (torch) value of the
    searcher's observation there (with the match hints onefifty_v0's policy was trained
    with, worked out from it), in points / REWARD_SCALE (its reward_scale is 0.01)."""
    from cardenv.agents.ppo import predicted_value

    env, state = _turn_just_ended("onefifty_v0", 5)
    info = ruleset_info("onefifty_v0")
    agent = make_agent("ismcts:20/value@ppo:pretrained", info, np.random.default_rng(0))
    vector = env.observer.observe(state, 0)
    hints = info.observer_class.derived_pieces["match_hints"](info.layout, vector)
    expected = predicted_value(agent.node_prior.model, np.concatenate([vector, hints])) / (0.01 * ismcts.REWARD_SCALE)
    assert agent._value_leaf(state, state.round_index, 0) == pytest.approx(expected, rel=1e-5)
    # What the searcher cannot see does not matter: another determinization, the same value.
    world = state.sample_world(0, np.random.default_rng(9))
    assert agent._value_leaf(world, world.round_index, 0) == pytest.approx(expected, rel=1e-5)


def test_value_leaf_scores_a_round_that_ended_and_values_the_next():
    """A round that ends inside the searcher's turn (or has a call pending) is finished and
    scored as the policy was paid (kaboom_v0's: relative to the round's players), and the
    policy's value of the next round is added."""
    from cardenv.core.scoring import points_relative_to_table

    info = ruleset_info("kaboom_v0")
    env = make_raw_env("kaboom_v0")
    env.reset(seed=2)
    agent = make_agent("ismcts:20/value@ppo:pretrained", info, np.random.default_rng(0))
    agent._in_round = env.game.seats_in_play()
    heuristic = make_agent("heuristic", info, np.random.default_rng(0))
    state = env.game
    while state.round_index == 0:
        player = state.current_player
        state.apply(heuristic.act({"observation": env.observer.observe(state, player),
                                   "action_mask": state.legal_action_mask()}, state, player))
    assert not state.is_terminal
    added = state.round_results[0].points_added
    after = agent._policy_value(state, 0)
    expected = points_relative_to_table(added, range(info.num_players))[0] / ismcts.REWARD_SCALE + after
    assert agent._value_leaf(state, 0, 0) == pytest.approx(expected)
    assert after == pytest.approx(agent.node_prior.value(
        {"observation": env.observer.observe(state, 0), "action_mask": np.zeros(len(info.action_table), np.int8)},
        state, 0) / (agent.node_prior.reward_scale * ismcts.REWARD_SCALE))


def test_next_value_leaf_plays_the_replies_and_values_the_searchers_next_decision():
    """The next_value leaf lets fresh heuristics play the other seats until the searcher is
    to decide, and is the policy's value of its observation there, with its mask (a
    straightforward replay with a copy of the search's players and generator)."""
    env, state = _turn_just_ended("onefifty_v0", 5)
    info = ruleset_info("onefifty_v0")
    agent = make_agent("ismcts:20/next_value@ppo:pretrained", info, np.random.default_rng(0))
    reference, world = copy.deepcopy(agent), copy.deepcopy(state)
    for heuristic in reference.rollout_agents:
        heuristic.start_round()
    replies = 0
    while world.current_player != 0:
        player = world.current_player
        world.apply(reference.rollout_agents[player].act(
            {"observation": env.observer.observe(world, player), "action_mask": world.legal_action_mask()},
            world, player))
        replies += 1
    assert replies >= 3 and world.round_index == state.round_index and world.caller is None
    expected = reference.node_prior.value({"observation": env.observer.observe(world, 0),
                                           "action_mask": world.legal_action_mask()}, world, 0)
    leaf = agent._value_leaf(state, state.round_index, 0)
    assert leaf == pytest.approx(expected / (0.01 * ismcts.REWARD_SCALE), rel=1e-5)
    # The leaf played on the world it was given: the same replies.
    assert np.array_equal(env.observer.observe(state, 0), env.observer.observe(world, 0))


class _UncachedValueSearch(ISMCTSAgent):
    """The value leaf asking the policy at every simulation (the reference for the cache)."""

    def _policy_value(self, world, seat):
        value = super()._policy_value(world, seat)
        self._leaf_values.clear()
        return value


@pytest.mark.parametrize("leaf", ["value", "next_value"])
@pytest.mark.parametrize("ruleset", ["onefifty_v0", "carte_v0"])
def test_value_leaf_plays_legal_reproducible_games_and_its_cache_changes_nothing(ruleset, leaf):
    n = ruleset_info(ruleset).num_players
    specs = [f"ismcts:12/{leaf}@ppo:pretrained"] + ["heuristic"] * (n - 1)
    first = _play(ruleset, specs, 13, single_round=True).describe_events(None)
    assert first == _play(ruleset, specs, 13, single_round=True).describe_events(None)

    def uncached(spec, info, rng):
        agent = make_agent(spec, info, rng)
        if isinstance(agent, ISMCTSAgent):
            agent.__class__ = _UncachedValueSearch
        return agent

    assert _play(ruleset, specs, 13, factory=uncached, single_round=True).describe_events(None) == first


def test_value_leaf_needs_a_policy_paid_in_points(monkeypatch):
    agent = make_agent("ismcts:5/value@ppo:pretrained", ruleset_info("cut_v0"), np.random.default_rng(0))
    monkeypatch.setattr(agent.node_prior, "reward_mode", "outcome")
    with pytest.raises(ValueError, match="needs a policy trained with reward_mode points or relative.*'outcome'"):
        agent._check_value_prior()
    with pytest.raises(ValueError, match="its prior must be a ppo policy"):
        ISMCTSAgent(ruleset_info("cut_v0"), np.random.default_rng(0), leaf="value")
