"""A ruleset added the way docs/adding-a-ruleset.md describes: a few lines of rules on the
shared engine, one record, one registration, and every shared part takes it by name: the
AEC, parallel and single-seat envs, PettingZoo's own checks, the shared invariants and
leak checks, agents, tournaments, copies.

"swap_v0": 2-4 players, a grid of two slots each (the lower one seen at the deal). On a
turn: draw and then swap the drawn card into a slot (the card there is discarded) or
discard it; or call, after which every other player has one more turn. The lowest total
adds nothing; everyone else adds their total.
"""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test

from cardenv.core.actions import ActionTable
from cardenv.core.agent import Agent
from cardenv.core.cards import points_table, standard_deck
from cardenv.core.events import PUBLIC
from cardenv.engine.observation import TableObserver
from cardenv.engine.options import SlotGameConfig
from cardenv.engine.rounds import RoundResult
from cardenv.engine.slots import SlotGameState, mark_occupied_slots
from cardenv.rulesets import Ruleset, register_ruleset, ruleset_names, unregister_ruleset
from cardenv.testing import check_invariants, check_legal_actions_apply, check_no_leak, play_random

POINTS = points_table(lambda card_type: (card_type >> 2) + 1)  # A = 1 … K = 13


class Phase(IntEnum):
    TURN = 0
    DRAWN = 1
    GAME_OVER = 2


@dataclass(frozen=True)
class SwapConfig(SlotGameConfig):
    max_players: ClassVar[int] = 4
    initial_slots: int = 2
    target_score: int = 50


class SwapState(SlotGameState):
    points = POINTS
    game_name = "swap_v0"

    def __init__(self, config: SwapConfig, rng, options=None):
        self.action_table = ActionTable()
        self.action_table.add("draw", "draw", "draw a card")
        self.action_table.add("call", "call", "call the round's end")
        self.action_table.add_slots("swap", "swap into slot {slot}", config.max_hand_slots, "swap the drawn card in")
        self.action_table.add("discard", "discard drawn", "discard the drawn card")
        super().__init__(config, standard_deck(), rng)
        self.phase = Phase.TURN
        self._start_round(self._scenario(options))

    def _start_round(self, layout):
        self._deal_round(layout)
        self.current_player = layout["starter"] if layout and "starter" in layout else self._first_starter()
        self.phase = Phase.TURN
        self.log("start", self.current_player, text=f"starts round {self.round_index + 1}")

    def _fill_legal_mask(self, mask):
        ids = self.action_table.first_ids
        if self.phase == Phase.DRAWN:
            mark_occupied_slots(mask, ids.swap, self.table.hands[self.current_player])
            mask[ids.discard] = 1
        else:
            mask[ids.draw] = 1
            if self.caller is None:
                mask[ids.call] = 1

    def _apply(self, action):
        spec, p = self.action_table.specs[action], self.current_player
        if spec.kind == "draw":
            if self._draw_to_hold(p):
                self.phase = Phase.DRAWN
            return
        if spec.kind == "call":
            self._call(p, "call")
        elif spec.kind == "swap":
            self._swap_held_into_slot(p, spec.slot)
        else:
            card = self.table.held[p].pop()
            self.table.discard_face_up(card)
            self.log("discard", p, (card,), PUBLIC, "discards the drawn {cards}")
        self.phase = Phase.TURN
        if self._count_turn_and_continue(p):
            self.current_player = (p + 1) % self.num_players

    def _score_round(self, reason):
        totals = [self._hand_total(p) for p in range(self.num_players)]
        added = [0 if t == min(totals) else t for t in totals]
        return RoundResult(tuple(totals), tuple(added), self.caller, reason)

    def _end_round(self, reason):
        self.phase = Phase.TURN
        super()._end_round(reason)
        if self.is_terminal:
            self.phase = Phase.GAME_OVER


class SwapObserver(TableObserver):
    points, phases, state_class, deck, call_name = POINTS, Phase, SwapState, standard_deck(), "call"


class SwapHeuristic(Agent):
    """Keeps a drawn card lower than 5 in the first slot; never calls."""

    def choose(self, observation, state, seat):
        mask, at = observation["action_mask"], self.info.action_table
        if mask[at.id("draw")]:
            return at.id("draw")
        v = self.info.layout.views(observation["observation"])
        if v["drawn_card_points"][0] * 13 < 5 and mask[at.id("swap", 0)]:
            return at.id("swap", 0)
        return at.id("discard")


SWAP = Ruleset(name="swap_v0", title="Swap", config=SwapConfig, state=SwapState, observer=SwapObserver,
               heuristic=SwapHeuristic, call_kinds=("call",),
               mini_variant={"num_players": 2, "single_round": True, "max_turns_per_round": 2})


@pytest.fixture(scope="module")
def swap():
    register_ruleset(SWAP)
    from cardenv.envs.base import ruleset_env_api

    yield ruleset_env_api("swap_v0")
    unregister_ruleset("swap_v0")


def test_a_registered_ruleset_is_one_of_the_rulesets_and_passes_pettingzoos_checks(swap):
    raw_env, env, parallel_env = swap
    assert "swap_v0" in ruleset_names() and raw_env.metadata["name"] == "swap_v0"
    api_test(env(), num_cycles=200)
    seed_test(lambda: env(num_players=3), num_cycles=200)
    parallel_api_test(parallel_env(), num_cycles=200)


def test_the_shared_checks_run_on_it(swap):
    raw_env, _, _ = swap
    raw = raw_env(num_players=3)
    rng = np.random.default_rng(0)

    def checks(state):
        check_invariants(state)
        check_legal_actions_apply(state)
        for seat in range(state.num_players):
            check_no_leak(state, raw.observer.observe, seat, rng)

    for seed in range(5):
        raw.reset(seed=seed)
        assert play_random(raw.game, rng, on_step=checks) > 0


def test_agents_tournaments_and_copies_take_it_by_name(swap):
    from cardenv.eval.tournament import run_tournament

    raw_env, _, _ = swap
    result = run_tournament("swap_v0", "heuristic", ["random_no_call"], 8, seed=1)
    assert result.games == 8 and 0 <= result.win_share <= 1
    raw = raw_env()
    raw.reset(seed=3)
    for other in (copy.deepcopy(raw), pickle.loads(pickle.dumps(raw))):
        assert np.array_equal(other.observe("player_0")["observation"], raw.observe("player_0")["observation"])
    mini = raw_env(**SWAP.mini_variant)
    mini.reset(seed=0)
    assert mini.config.num_players == 2


def test_its_make_ids_and_single_seat_view(swap):
    import gymnasium

    import cardenv

    cardenv.register_envs()
    view = gymnasium.make("cardenv/swap-single-seat-v0", opponents="heuristic")
    observation, info = view.reset(seed=0)
    assert observation.shape == view.observation_space.shape
    assert view.unwrapped.action_masks().any()
    import pettingzoo

    if hasattr(pettingzoo, "make"):  # PettingZoo >= 1.27
        env = pettingzoo.make("aec", "cardenv/swap-v0")
        env.reset(seed=0)
        assert env.unwrapped.metadata["name"] == "swap_v0"


def test_a_name_taken_or_not_registered_is_refused(swap):
    with pytest.raises(ValueError, match="already registered"):
        register_ruleset(Ruleset(name="swap_v0", title="x", config=SwapConfig, state=SwapState,
                                 observer=SwapObserver, heuristic=SwapHeuristic, call_kinds=()))
    with pytest.raises(ValueError, match="built-in ruleset"):
        unregister_ruleset(ruleset_names()[0])
