"""The ISMCTS agent: legal full games on every ruleset, reproducible with a seed, and a
search that finds the clearly best move even when its heuristic prior points elsewhere."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.agents import make_agent, make_raw_env, ruleset_info, rulesets
from cardenv.agents.ismcts import ISMCTSAgent
from cardenv.eval.tournament import play_game


def _play(ruleset: str, specs: list[str], seed: int, **env_kwargs):
    info = ruleset_info(ruleset, **env_kwargs)
    env = make_raw_env(ruleset, **env_kwargs)
    agents = [make_agent(spec, info, np.random.default_rng(seed + i)) for i, spec in enumerate(specs)]
    play_game(env, agents, seed)  # raw_env raises on an illegal action; Agent.act asserts the mask
    assert env.game.is_terminal
    return env.game


@pytest.mark.parametrize("ruleset", rulesets())
def test_plays_full_games_without_illegal_moves(ruleset):
    n = ruleset_info(ruleset).num_players
    state = _play(ruleset, ["ismcts:4"] + ["heuristic"] * (n - 1), 21)
    assert len(state.round_results) >= 1
    # Other table sizes and the memoryless observation model, against itself.
    _play(ruleset, ["ismcts:3"] * 3, 22, num_players=3, single_round=True)
    _play(ruleset, ["ismcts:3"] + ["random"] * (n - 1), 23, memory="none", single_round=True)


@pytest.mark.parametrize("ruleset", rulesets())
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
    agent.root_heuristic.act = lambda observation, state, seat: bad
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
