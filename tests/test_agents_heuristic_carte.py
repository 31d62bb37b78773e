"""The carte heuristic: it beats random players, always catches (R-14), says carte when
it may (R-13), and every generic agent (random_no_call, ismcts) plays carte."""

from __future__ import annotations

import numpy as np

from cardenv.agents.registry import make_agent, ruleset_info
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
