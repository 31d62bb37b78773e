"""search@BLUEPRINT (cardenv.agents.blueprint_search): a search that never deviates plays
its blueprint's moves, the same seed gives the same moves, the worlds it rolls out are
sampled from what the searcher knows, batched rollouts are the one-by-one rollouts, and a
tiny budget plays a whole game on every ruleset."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cardenv.agents import make_agent, make_raw_env, ruleset_info
from cardenv.agents.blueprint_search import BlueprintSearchAgent, round_reward, tempered_weights
from cardenv.agents.specs import parse_spec
from cardenv.eval.tournament import play_game
from cardenv.rulesets import ruleset_names

BLUEPRINTS = ("heuristic", "ppo:pretrained")
ONE_ROUND = {"single_round": True}  # games of one round keep the tests short


def _info(ruleset: str):
    return ruleset_info(ruleset, **ONE_ROUND)


def _actions(ruleset: str, first, seed: int, others: str = "heuristic") -> list:
    """The (seat, action) of every decision of one game: ``first`` in seat 0 (an agent),
    seeded ``others`` in the other seats."""
    info = _info(ruleset)
    agents = [first] + [make_agent(others, info, np.random.default_rng(100 + s)) for s in range(1, info.num_players)]
    actions: list = []
    play_game(make_raw_env(ruleset, **ONE_ROUND), agents, seed, actions)
    return actions


def _search(ruleset: str, blueprint: str, seed: int, **options) -> BlueprintSearchAgent:
    return BlueprintSearchAgent(_info(ruleset), np.random.default_rng(seed), blueprint, make_agent, **options)


@pytest.mark.parametrize("ruleset", ruleset_names())
@pytest.mark.parametrize("blueprint", BLUEPRINTS)
def test_a_search_that_never_deviates_plays_its_blueprints_moves(ruleset, blueprint):
    """No worlds, or a threshold no gain clears: the blueprint's moves, decision for
    decision (the search's own draws come from a generator apart from the blueprint's)."""
    alone = _actions(ruleset, make_agent(blueprint, _info(ruleset), np.random.default_rng(4)), 21)
    assert _actions(ruleset, make_agent(f"search:0@{blueprint}", _info(ruleset), np.random.default_rng(4)), 21) == alone
    unreachable = _search(ruleset, blueprint, 4, worlds=2, threshold=1e9)
    assert _actions(ruleset, unreachable, 21) == alone
    assert unreachable.searched > 0 and unreachable.deviations == 0
    assert _actions(ruleset, _search(ruleset, blueprint, 4, threshold=math.inf), 21) == alone


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_a_tiny_search_plays_a_whole_game_the_same_way_for_the_same_seed(ruleset):
    """A budget of two worlds plays a legal game (of one round), and the same seed gives the
    same moves."""
    first = _search(ruleset, "heuristic", 8, worlds=2, threshold=0.0, z=0.0)
    moves = _actions(ruleset, first, 5)
    assert first.searched > 0 and first.deviations > 0  # with no margin it does deviate
    assert _actions(ruleset, _search(ruleset, "heuristic", 8, worlds=2, threshold=0.0, z=0.0), 5) == moves


def _decision(ruleset: str, seed: int, keep_deal: bool = False):
    """A heuristic game of ``ruleset`` played on until a decision with several legal actions,
    after some turns: the env, its state and the seat to decide (``keep_deal``: and a copy
    of the state as the game was dealt)."""
    env = make_raw_env(ruleset)
    env.reset(seed=seed)
    heuristic = make_agent("heuristic", ruleset_info(ruleset), np.random.default_rng(seed))
    state = env.game
    dealt = state.clone()
    steps = 0
    while steps < 12 or len(state.legal_actions()) < 2:
        player = state.current_player
        state.apply(heuristic.act({"observation": env.observer.observe(state, player),
                                   "action_mask": state.legal_action_mask()}, state, player))
        steps += 1
    return (env, state, state.current_player, dealt) if keep_deal else (env, state, state.current_player)


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_the_search_rolls_out_only_worlds_sampled_from_what_it_knows(ruleset, monkeypatch):
    """Every world the search plays is ``sample_world`` of the real state for the
    searcher's seat, and shows the searcher exactly its own observation; the real state is
    never copied or changed."""
    env, state, seat = _decision(ruleset, 3)
    real_class = type(state)
    sampled = []
    original_sample = real_class.sample_world
    original_clone = real_class.clone

    def sample_world(self, observer, rng):
        assert self is state and observer == seat
        world = original_sample(self, observer, rng)
        sampled.append(world)
        return world

    def clone(self):
        assert self is not state, "the search copied the real state"
        assert any(self is world for world in sampled)
        return original_clone(self)

    monkeypatch.setattr(real_class, "sample_world", sample_world)
    monkeypatch.setattr(real_class, "clone", clone)
    before = env.observer.encode_state(state)
    observation = {"observation": env.observer.observe(state, seat), "action_mask": state.legal_action_mask()}
    agent = _search(ruleset, "heuristic", 0, worlds=4)
    assert observation["action_mask"][agent.act(observation, state, seat)]
    assert len(sampled) == 4
    for world in sampled:
        np.testing.assert_array_equal(env.observer.observe(world, seat), observation["observation"])
    np.testing.assert_array_equal(env.observer.encode_state(state), before)


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_batched_rollouts_are_the_rollouts_played_one_by_one(ruleset):
    """A plain policy blueprint plays its rollouts in lockstep (one forward pass per step for
    all); the rewards are those of playing each world alone with the same policy."""
    _, state, seat = _decision(ruleset, 6)
    agent = _search(ruleset, "ppo:pretrained", 0)
    assert agent.actor is not None  # the shipped policies batch
    rng = np.random.default_rng(2)
    worlds = [state.sample_world(seat, rng) for _ in range(6)]
    batched = agent._play_out([w.clone() for w in worlds], [0] * 6, state.round_index, seat)
    agent.actor = None
    one_by_one = agent._play_out([w.clone() for w in worlds], [0] * 6, state.round_index, seat)
    assert batched == pytest.approx(one_by_one)
    assert len(set(batched)) > 1  # the worlds differ, and so do their rollouts


def test_the_reward_is_the_round_relative_to_the_others_plus_the_win_at_the_end():
    env, state, seat = _decision("onefifty_v0", 2)
    round_index = state.round_index
    heuristic = make_agent("heuristic", ruleset_info("onefifty_v0"), np.random.default_rng(0))
    while state.round_index == round_index and not state.is_terminal:
        player = state.current_player
        state.apply(heuristic.act({"observation": env.observer.observe(state, player),
                                   "action_mask": state.legal_action_mask()}, state, player))
    added = state.round_results[round_index].points_added
    expected = -(added[seat] - (sum(added) - added[seat]) / 3) / 40
    if state.is_terminal:
        expected += 2.0 * ((1 / len(state.winners()) if seat in state.winners() else 0.0) - 0.25)
    assert round_reward(state, round_index, seat) == pytest.approx(expected)


@pytest.mark.parametrize("spec, message", [
    ("search", "the search needs a blueprint agent after '@', as in 'search@ppo:pretrained'"),
    ("search:4", "the search needs a blueprint agent after '@'"),
    ("search:x@heuristic", "the search's worlds per decision must be an integer of at least 0, got 'x'"),
    ("search@ismcts:10", "the search's blueprint must be an agent that does not search"),
    ("search@search@heuristic", "the search's blueprint must be an agent that does not search"),
    ("search@nothing", "unknown agent 'nothing'"),
])
def test_bad_search_specs_are_one_line(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")) as error:
        parse_spec(spec)
    assert "\n" not in str(error.value)


def test_search_specs_parse_with_the_default_budget_and_the_blueprints_file():
    assert parse_spec("search@heuristic") == ("search", "@heuristic")
    assert parse_spec("search:16@heuristic") == ("search", "16@heuristic")
    name, argument = parse_spec("search@ppo:pretrained")
    assert (name, argument) == ("search", "@ppo:pretrained")
    agent = make_agent("search:3@ppo:pretrained", ruleset_info("cut_v0"), np.random.default_rng(0))
    assert agent.worlds == 3 and agent.name == "search@ppo"
    with pytest.raises(ValueError, match="worlds per decision is an integer of at least 0, got -1"):
        _search("cut_v0", "heuristic", 0, worlds=-1)
    with pytest.raises(ValueError, match="the search's reward must be one of relative, points, got 'wins'"):
        _search("cut_v0", "heuristic", 0, reward="wins")


def test_the_points_reward_scores_the_searchers_own_points():
    env, state, seat = _decision("cut_v0", 4)
    round_index = state.round_index
    while state.round_index == round_index and not state.is_terminal:
        state.apply(state.legal_actions()[0])
    added = state.round_results[round_index].points_added
    relative = round_reward(state, round_index, seat)
    own = round_reward(state, round_index, seat, "points")
    assert relative - own == pytest.approx((sum(added) - added[seat]) / 3 / 40)


@pytest.mark.parametrize("ruleset", ruleset_names())
@pytest.mark.parametrize("blueprint", BLUEPRINTS)
def test_the_real_world_explains_the_round_and_weighted_worlds_show_the_searcher_what_it_saw(ruleset, blueprint):
    """Replayed from the round's deal (the searcher's anchor) with the real cards, the others'
    actions all stay legal (the real world is always possible); worlds weighted by the
    blueprint (a policy's probabilities, a heuristic's own move) show the searcher its own
    observation, and the same seed draws the same."""
    env, state, seat, dealt = _decision(ruleset, 3, keep_deal=True)
    assert state.round_actions and dealt.round_index == state.round_index
    agent = _search(ruleset, blueprint, 0, belief="blueprint")
    agent._anchor = (dealt, 0, state)  # as if it had seen the round from its deal
    rng = np.random.default_rng(1)
    sampled = [state.sample_world(seat, rng) for _ in range(5)]
    log_likelihoods = agent._log_likelihoods(state, seat, [state.clone(), *sampled])
    assert np.isfinite(log_likelihoods[0]) and log_likelihoods[0] < 0
    assert len(set(log_likelihoods.tolist())) > 1  # the worlds explain the others' moves unequally
    weighing = _search(ruleset, blueprint, 0, belief="blueprint")
    weighing._anchor = (dealt, 0, state)
    worlds = weighing._sample_worlds(state, seat, 6)
    assert len(worlds) == 6 and weighing.weighted == 1
    observation = env.observer.observe(state, seat)
    for world in worlds:
        np.testing.assert_array_equal(env.observer.observe(world, seat), observation)
    again_agent = _search(ruleset, blueprint, 0, belief="blueprint")
    again_agent._anchor = (dealt, 0, state)
    again = again_agent._sample_worlds(state, seat, 6)
    for a, b in zip(worlds, again):
        np.testing.assert_array_equal(a.table.card_types, b.table.card_types)


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_the_belief_replays_a_round_from_its_deal_once_the_state_keeps_the_deals(ruleset):
    """At its first decision the search replays the round from where it first saw it and asks
    the state to keep each round's deal; in the next round it replays from that deal."""
    env, state, seat = _decision(ruleset, 3)
    agent = _search(ruleset, "heuristic", 0, worlds=0, belief="blueprint")

    def decide():
        agent.act({"observation": env.observer.observe(state, seat), "action_mask": state.legal_action_mask()},
                  state, seat)

    decide()
    anchor, done, of = agent._anchor
    assert of is state and done == len(state.round_actions) > 0 and anchor.round_index == state.round_index
    index, rng = state.round_index, np.random.default_rng(5)
    while state.round_index == index or state.current_player != seat:
        assert not state.is_terminal
        state.apply(int(rng.choice(state.legal_actions())))
    decide()
    anchor, done, of = agent._anchor
    assert anchor is state.round_start and done == 0 and anchor.round_index == state.round_index
    assert anchor.round_actions == [] and anchor.current_player is not None


def test_a_bad_belief_is_one_line():
    with pytest.raises(ValueError, match="the search's belief must be one of uniform, blueprint, got 'exact'"):
        _search("onefifty_v0", "ppo:pretrained", 0, belief="exact")


def test_tempered_weights_keep_the_effective_size_and_drop_impossible_worlds():
    """Weights ∝ likelihood^β with β ≤ 1 as large as keeps (Σw)²/Σw² ≥ the size asked;
    an impossible world weighs nothing."""
    log_likelihoods = np.array([0.0, -1.0, -30.0, -np.inf, -60.0, -2.0])
    weights = tempered_weights(log_likelihoods, 3.0)
    assert weights.sum() == pytest.approx(1.0) and weights[3] == 0.0
    assert 1.0 / np.square(weights).sum() >= 3.0 - 1e-9
    assert weights[0] > weights[1] > weights[5] > weights[2] > weights[4]  # the order is kept
    diverse = tempered_weights(np.array([0.0, -0.1, -0.2]), 2.0)  # diverse enough: β = 1
    np.testing.assert_allclose(diverse, np.exp([0.0, -0.1, -0.2]) / np.exp([0.0, -0.1, -0.2]).sum())


def test_a_weighted_search_plays_a_whole_game_the_same_way_for_the_same_seed():
    """``belief="blueprint"`` with a tiny budget plays a legal game, the same for the same seed."""
    first = _search("onefifty_v0", "ppo:pretrained", 8, worlds=2, belief="blueprint")
    moves = _actions("onefifty_v0", first, 8)
    assert first.weighted > 0
    assert _actions("onefifty_v0", _search("onefifty_v0", "ppo:pretrained", 8, worlds=2,
                                           belief="blueprint"), 8) == moves


def test_a_confirmed_search_deviates_only_after_a_second_look():
    """``confirm=True`` judges a deviation again on fresh worlds: it deviates at most as often
    as it looked again, plays a legal game the same way for the same seed, and a confirm
    that is not a bool is one line."""
    first = _search("onefifty_v0", "heuristic", 8, worlds=2, z=0.0, confirm=True)
    moves = _actions("onefifty_v0", first, 6)
    assert first.confirmations > 0 and first.deviations <= first.confirmations
    assert _actions("onefifty_v0", _search("onefifty_v0", "heuristic", 8, worlds=2, z=0.0, confirm=True), 6) == moves
    with pytest.raises(ValueError, match="the search's confirm is True or False, got 'yes'"):
        _search("onefifty_v0", "heuristic", 0, confirm="yes")
