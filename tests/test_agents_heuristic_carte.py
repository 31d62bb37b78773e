"""The carte heuristic: it beats random players, always catches (R-14), says carte when
it may (R-13), and every generic agent (random_no_call, ismcts) plays carte."""

from __future__ import annotations

import numpy as np

from cardenv.agents.specs import make_agent
from cardenv.envs.info import ruleset_info
from cardenv.eval import run_tournament
from cardenv.games.carte import CarteConfig, CarteObserver, CarteState


def test_heuristic_beats_three_random_players():
    result = run_tournament("carte_v0", "heuristic", ["random"], games=24, seed=3)
    assert result.win_share_ci95[0] >= 0.8, result


def heuristic_choice(state: CarteState, seat: int) -> str:
    info = ruleset_info("carte_v0", num_players=state.num_players)
    agent = make_agent("heuristic", info, np.random.default_rng(0))
    observation = {"observation": CarteObserver(state.config).observe(state, seat),
                   "action_mask": state.legal_action_mask().copy()}
    return state.action_name(agent.act(observation, state, seat))


def test_heuristic_melds_says_carte_and_catches():
    state = CarteState(CarteConfig(num_players=3), np.random.default_rng(0),
                       {"hands": [["5H", "6H", "7H", "KC"], ["8S", "JS"], ["3D", "10S"]],
                        "draw_pile": ["2C", "9S", "10C", "AD"], "discard_pile": ["4D"], "starter": 0})
    names = []
    while state.current_player == 0:
        names.append(heuristic_choice(state, 0))
        state.apply(state.action_from_name(names[-1]))
    # 4D helps no meld: draw from the stock; put the run down; say carte with two cards
    # (KC 2C); discard the higher card nobody can use.
    assert names == ["draw stock", "select 5H", "select 6H", "select 7H", "put down", "say carte", "discard KC"]
    state = CarteState(CarteConfig(num_players=3), np.random.default_rng(0),
                       {"hands": [["5H", "6H", "7H", "2C"], ["8S", "JS"], ["3D", "10S"]],
                        "draw_pile": ["3S", "9S", "10C", "AD"], "starter": 0})
    for name in ("draw stock", "select 5H", "select 6H", "select 7H", "put down", "discard 2C"):
        state.apply(state.action_from_name(name))
    assert heuristic_choice(state, 1) == "catch"


def test_random_no_call_never_says_carte_and_ismcts_plays():
    for agent in ("random_no_call", "ismcts:4"):
        result = run_tournament("carte_v0", agent, ["random"], games=2, seed=1,
                                env_kwargs={"num_players": 2, "single_round": True})
        assert result.games == 2
    info = ruleset_info("carte_v0")
    assert [info.action_table.name(a) for a in info.call_action_ids()] == ["say carte"]


def test_meld_hints_spell_out_the_hand_and_leave_the_heuristic_unchanged():
    """carte_v0's ``meld_hints=True``: the three pieces it adds at the end, on a stacked
    hand, and the heuristic (which computes the same itself) deciding alike with them."""
    config = CarteConfig(num_players=3, meld_hints=True)
    # 5S 5H 5D: a set; 7H 8H: a near run that 9H, the pile's top, completes; KC, 2D alone.
    state = CarteState(config, np.random.default_rng(0),
                       {"hands": [["5S", "5H", "5D", "7H", "8H", "KC", "2D"], ["8S", "JS"], ["3D", "10S"]],
                        "draw_pile": ["2C", "9S", "10C", "AD"], "discard_pile": ["9H"], "starter": 0})
    observer = CarteObserver(config)
    plain = CarteObserver(CarteConfig(num_players=3))
    vector = observer.observe(state, 0)
    assert plain.layout.size == observer.layout.size - 2 * 53 - 1
    assert np.array_equal(vector[: plain.layout.size], plain.observe(state, 0))
    views = observer.layout.views(vector)
    names = ruleset_info("carte_v0").action_table
    type_names = [names.name(a).removeprefix("discard ") for a in names.span("discard")]

    def named(piece):
        return sorted(type_names[t] for t in np.flatnonzero(views[piece]))

    assert named("hand_in_meld") == sorted(["5S", "5H", "5D"])
    assert named("hand_near_meld") == sorted(["5S", "5H", "5D", "7H", "8H"])
    assert views["pile_top_in_meld"][0] == 1
    info = ruleset_info("carte_v0", num_players=3, meld_hints=True)
    agent = make_agent("heuristic", info, np.random.default_rng(0))
    plain_agent = make_agent("heuristic", ruleset_info("carte_v0", num_players=3), np.random.default_rng(0))
    mask = state.legal_action_mask().copy()
    choices = [state.action_name(a.act({"observation": v, "action_mask": mask}, state, 0))
               for a, v in ((agent, vector), (plain_agent, plain.observe(state, 0)))]
    assert choices == ["draw pile", "draw pile"]
    result = run_tournament("carte_v0", "heuristic", ["heuristic"], games=4, seed=5,
                            env_kwargs={"num_players": 3, "meld_hints": True})
    plain_result = run_tournament("carte_v0", "heuristic", ["heuristic"], games=4, seed=5,
                                  env_kwargs={"num_players": 3})
    assert result.outcomes == plain_result.outcomes and result.mean_steps_per_game == plain_result.mean_steps_per_game
