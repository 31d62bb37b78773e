"""The matching hints of the slot rulesets (onefifty_v0's and cut_v0's ``match_hints``,
kaboom_v0's ``snap_hints``): at every step of heuristic games, for every observer, the
appended piece is 1 exactly where the rules say a match (or snap) of a card the observer
is shown would be right, read from the engine; and the piece is what the ruleset's
``*_hints_of`` works out from the observation without it (what a policy trained with the
hints appends in an env without them). The scenarios are in each ruleset's env tests."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.agents.specs import make_agent
from cardenv.envs.info import make_raw_env, ruleset_info
from cardenv.games.kaboom.rules import snaps_onto


def same_rank(card_type: int, top_type: int) -> bool:
    return card_type >> 2 == top_type >> 2  # O-03, C-08: by rank only


# ruleset -> (option, piece, rows of seats it covers (1: own slots only), the rule)
HINTS = {
    "onefifty_v0": ("match_hints", "match_hint", 1, same_rank),  # O-07: own slots only
    "cut_v0": ("match_hints", "match_hint", None, same_rank),  # C-08: own match or call-out
    "kaboom_v0": ("snap_hints", "snap_hint", 1, snaps_onto),  # K-11: own cards, opposite colour
}


@pytest.mark.parametrize("ruleset", sorted(HINTS))
def test_matching_hints_agree_with_the_rules_and_with_the_observation_without_them(ruleset):
    option, piece, rows, rule = HINTS[ruleset]
    env, plain = make_raw_env(ruleset, **{option: True}), make_raw_env(ruleset)
    derive = env.observer_class.derived_pieces[option]
    info = ruleset_info(ruleset)
    n = info.num_players
    rows = rows or n
    agents = [make_agent("heuristic", info, np.random.default_rng(seat)) for seat in range(n)]
    hints_seen = 0
    env.reset(seed=1)
    plain.reset(seed=1)
    state = env.game
    while not state.is_terminal and state.round_index < 2:
        table = state.table
        top = table.discard_pile[-1] if table.discard_pile else None
        for observer, agent in enumerate(env.possible_agents):
            vector, plain_vector = env.observe(agent)["observation"], plain.observe(agent)["observation"]
            assert list(env.layout.pieces)[-1] == piece
            assert np.array_equal(vector[: plain.layout.size], plain_vector)
            assert np.array_equal(vector[plain.layout.size:], derive(plain.layout, plain_vector))
            hints = vector[plain.layout.size:].reshape(rows, -1)
            shown = env.observation_pieces(vector)["slot_known"]
            for row in range(rows):
                for slot, card in enumerate(table.hands[(observer + row) % n]):
                    right = (card >= 0 and top is not None and shown[row, slot] == 1
                             and rule(int(table.card_types[card]), int(table.card_types[top])))
                    assert hints[row, slot] == right
            hints_seen += int(hints.sum())
        seat = state.current_player
        action = agents[seat].act(plain.observe(plain.possible_agents[seat]), plain.game, seat)
        env.step(action)
        plain.step(action)
    assert hints_seen > 10
