"""The rule-based player every slot-and-pile ruleset's heuristic builds on, from the
observation alone.

What it knows is exactly what the observation shows, plus its own memory of what it was
shown earlier this round (which matters under ``memory="none"``; under ``"perfect"`` the
observation already shows everything and the memory adds nothing). A remembered card
is dropped as soon as the public knowledge table says the card in that slot may have
changed (the slot emptied, or the set of players who know it changed), so memory is
never more than the observation allowed.

Unknown cards are estimated from the unseen multiset: every card type the observation
(and memory) cannot account for is equally likely to be in any unknown place. Whether a
call pays is a Monte Carlo estimate over sampled deals of the unknown cards, scored by
the ruleset's call rule (:data:`cardenv.engine.call_odds.SCORING_BY_RULE`).

A ruleset's heuristic subclasses :class:`SlotHeuristic`, sets ``type_points`` and
``points_scale`` and the call settings, and writes ``choose``.
"""

from __future__ import annotations

import math

import numpy as np

from cardenv.core.agent import Agent, RulesetInfo
from cardenv.core.cards import NUM_STANDARD_TYPES, RANK_OF

# Compiled parts, imported once a slot heuristic is built (not by ``import cardenv``, which
# must not load numba): cardenv.engine.slot_memory and cardenv.engine.call_odds.
slot_memory = None
call_odds = None


class SlotHeuristic(Agent):
    name = "heuristic"
    needs_recent_events = False  # it keeps its own memory from the slot pieces
    type_points: np.ndarray  # points of each of the 52 card types under the ruleset
    type_rank = RANK_OF[:NUM_STANDARD_TYPES]  # rank of each of those card types
    points_scale: int  # an observation's points piece × this = the points

    # Margins in points. A swap into an unknown slot also turns an unknown card into a
    # known one, so it needs a smaller sure gain than the raw expectation suggests.
    swap_margin_known = 1.0
    swap_margin_unknown = 1.0
    # Call when the expected relative cost of calling (own points added minus the
    # mean the others add, averaged over sampled deals) is at most -call_margin and the
    # chance of being strictly lowest is at least min_call_success.
    call_margin = 4.0
    min_call_success = 0.55
    # The ``heuristic_cautious`` agent: these settings instead of the ones above. The
    # sampled deals treat the opponents' unknown cards as random, but players keep their
    # low cards, so the estimated chance of success is too high: the default calls fail
    # about half the time against its own kind. Calling only when 90% of the deals succeed
    # wins far more often against the default.
    cautious_settings = {"min_call_success": 0.9}
    # What each opponent is expected to shed in their final turn after a call.
    final_turn_gain = 2.0
    # The rule that scores a call (a key of ``call_odds.SCORING_BY_RULE``) and its
    # stake in points where it has one.
    call_scoring: str
    call_stake = 0.0
    samples = 128
    # The rulesets with reaction windows: the action kinds to fall back on, in order, when
    # the decision's choice is not open now (:meth:`_choose_in_turn_or_window`).
    fallback_kinds: tuple[str, ...] = ()

    def __init__(self, info: RulesetInfo, rng: np.random.Generator):
        super().__init__(info, rng)
        n, slots = info.num_players, info.config.max_hand_slots
        self.num_players, self.num_slots = n, slots
        self.table = info.action_table
        self.mem_rank = np.full((n, slots), -1, dtype=np.int64)
        self.mem_points = np.zeros((n, slots), dtype=np.int64)
        self.mem_knowers = np.zeros((n, slots, n), dtype=bool)
        # The observation is copied into a buffer of the agent's own whose named views
        # are made once (making them per decision cost more than the copy).
        self._observation = np.zeros(info.layout.size, dtype=np.float32)
        self._observation_views = info.layout.views(self._observation)
        self._unseen_points = np.empty(len(self.type_points))
        self._known = np.empty((n, slots), dtype=bool)
        self._values = np.empty((n, slots))
        global slot_memory, call_odds
        if slot_memory is None:  # numba is loaded with the first slot heuristic, not by import cardenv
            from cardenv.engine import call_odds, slot_memory
        self._call_scoring = call_odds.SCORING_BY_RULE[self.call_scoring]
        self._all_opponents = np.arange(1, n)
        self._single_deal_of_no_cards = np.empty((1, 0), dtype=np.int64)  # what is sampled when every card is known
        self.reset()

    # A copy (copy.deepcopy, pickle) gets views of its own buffer: numpy copies a view as
    # an array of its own, which the copied buffer would no longer write into.
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["_observation_views"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._observation_views = self.info.layout.views(self._observation)

    def _views(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """The observation's named pieces (views of the agent's copy of ``vector``)."""
        self._observation[:] = vector
        return self._observation_views

    def reset(self) -> None:
        super().reset()
        self._last_scores = None
        self._last_turns = -1.0
        self._rounds_seen = 0

    def _current_round(self, observation, state) -> int:
        """The engine's round index when the state is given; otherwise a new round is
        recognised from the observation (scores changed, or the turn counter went back)."""
        if state is not None:
            return state.round_index
        v = self._views(observation["observation"])
        scores, turns = v["scores"].copy(), float(v["turns_in_round"][0])
        if self._last_scores is not None and (not np.array_equal(scores, self._last_scores) or turns < self._last_turns):
            self._rounds_seen += 1
        self._last_scores, self._last_turns = scores, turns
        return self._rounds_seen

    def start_round(self) -> None:
        self.mem_rank[:] = -1
        self.mem_points[:] = 0
        self.mem_knowers[:] = False

    # --- what the player knows -----------------------------------------------------------
    def _update_memory(self, v: dict[str, np.ndarray]) -> None:
        """Remember every card the observation shows; keep a card remembered but no longer
        shown while it can still be located: same slot, still present, and the same
        players know it (one compiled loop, :mod:`slot_memory`). Most decisions keep
        none such (under memory="perfect" only a card that left the slot can be one)."""
        present = np.empty(self.mem_rank.shape, dtype=bool)
        shown = np.empty(self.mem_rank.shape, dtype=bool)
        still_valid = np.empty(self.mem_rank.shape, dtype=bool)
        kept = slot_memory.update_slot_memory(v["slot_present"], v["slot_known"], v["slot_rank"], v["slot_points"],
                                                v["slot_known_by"], self.points_scale, self.mem_rank, self.mem_points,
                                                self.mem_knowers, present, shown, still_valid)
        # The memory's cards that the observation no longer shows, and how many.
        self._still_valid, self._kept = still_valid, kept
        self._present = present
        self._shown = shown

    def _beliefs(self, v):
        """After the memory update: the points of the card types neither shown nor
        remembered (one entry per copy), their mean, which places hold a known card, and
        every place's value (points, the mean for an unknown card, NaN for an empty slot)
        — one compiled loop, :func:`slot_memory.write_beliefs`. The arrays are the
        agent's own, rewritten at its next decision."""
        self._update_memory(v)
        count, expected = slot_memory.write_beliefs(v["accounted"], self._still_valid, self._kept, self.mem_rank,
                                                      self.mem_points, self.type_rank, self.type_points,
                                                      self._present, self._unseen_points, self._known, self._values)
        return self._unseen_points[:count], expected, self._known, self._values

    def _choose_in_turn_or_window(self, observation, phases, window) -> int:
        """``choose`` for a ruleset with reaction windows: in the ``window`` phase
        ``self._window(v, mask, known)``, which needs only the known cards (the estimates
        of the unknown ones are skipped: pure computations, so no decision changes);
        otherwise ``self._decide(phase, v, mask, unseen, expected, known, values)``. A
        choice that is not open now falls back on the first open ``fallback_kinds``, else
        the first legal action that does not end the round."""
        mask = observation["action_mask"]
        v = self._views(observation["observation"])
        phase = phases(int(v["phase"].argmax()))
        if phase == window:
            self._update_memory(v)
            action = self._window(v, mask, self.mem_rank >= 0)
        else:
            unseen, expected, known, values = self._beliefs(v)
            action = self._decide(phase, v, mask, unseen, expected, known, values)
        if action is not None and mask[action]:
            return int(action)
        at = self.table
        for kind in self.fallback_kinds:
            if mask[at.id(kind)]:
                return at.id(kind)
        legal = [a for a in np.flatnonzero(mask) if at.specs[a].kind not in self.info.call_kinds]
        return int(legal[0] if legal else np.flatnonzero(mask)[0])

    @staticmethod
    def _worst_slot(own_values: np.ndarray, known: np.ndarray) -> int:
        """Own slot with the highest value; among equals, a known card (surely that high)."""
        # A few slots: plain Python over them beats numpy's per-call cost.
        values = [-math.inf if math.isnan(value) else value for value in own_values.tolist()]
        highest = max(values)
        best = [s for s, value in enumerate(values) if value == highest]
        known_own = known[0].tolist()
        known_best = [s for s in best if known_own[s]]
        return known_best[0] if known_best else best[0]

    def _should_call(self, v, unseen: np.ndarray, known: np.ndarray) -> bool:
        return self._call_pays_against(unseen, known, self._all_opponents)

    def _call_pays_against(self, unseen: np.ndarray, known: np.ndarray, opponents: np.ndarray) -> bool:
        """Whether calling pays against the seats ``opponents`` (offsets from this player),
        estimated over sampled deals of the unseen cards to the unknown places (the
        deals, their success and their scoring: :func:`call_odds.call_pays`)."""
        unknown = np.count_nonzero(self._present & ~known)
        if unknown > len(unseen):  # memory and the unseen multiset disagree: do not gamble
            return False
        if unknown:
            lowest_columns = first_in_sorted_order(self.rng.random((self.samples, len(unseen))), unknown)
        else:
            lowest_columns = self._single_deal_of_no_cards
        if not len(opponents):
            return False
        return call_odds.call_pays(lowest_columns, unseen, self._present, known, self.mem_points, opponents,
                                     self._call_scoring, self.call_stake, self.final_turn_gain,
                                     self.min_call_success, self.call_margin)


def first_in_sorted_order(draws: np.ndarray, k: int) -> np.ndarray:
    """``np.argsort(draws, axis=1)[:, :k]`` for uniform draws in [0, 1) (``Generator.random``'s,
    multiples of 2**-53), at half its cost on the rows of 30 to 50 draws a deal samples:
    each draw as an integer with its column in the low bits, so that a plain sort of the
    integers orders the columns. Two equal draws in a row (rarer than one row in 10**12)
    go by column, where argsort may order them either way."""
    columns = draws.shape[1]
    bits = max(1, (columns - 1).bit_length())
    if bits > 63 - 53:  # the column does not fit beside the draw
        return np.argsort(draws, axis=1)[:, :k]
    keys = (draws * 2.0 ** (53 + bits)).astype(np.int64)  # scaling by a power of two: exact
    keys |= np.arange(columns)
    keys.sort(axis=1)
    return keys[:, :k] & ((1 << bits) - 1)
