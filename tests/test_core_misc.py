"""Core: action tables, observation layouts, events, ranking helpers, and the shared
checks of cardenv.testing (which must be able to fail)."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.core.actions import ActionTable
from cardenv.core.cards import RANK_OF, card_name
from cardenv.core.events import Event
from cardenv.core.observation import ObservationLayout
from cardenv.core.scoring import first_clockwise_after, lowest, shared_ranks
from cardenv.core.table import EMPTY
from cardenv.games.onefifty import OneFiftyObserver, OneFiftyState
from cardenv.testing import check_invariants, check_legal_actions_apply, check_no_leak, play_random
from tests.conftest import new_state


# --- action tables -----------------------------------------------------------------------------
def _table():
    t = ActionTable()
    t.add("draw", "draw", "draw a card")
    t.add_slots("swap", "swap slot {slot}", 3, "swap into a slot")
    t.add_seat_slots("steal", "steal +{offset} slot {slot}", range(1, 4), 2, "steal")
    t.add("pass", "pass")
    return t


def test_action_ids_names_round_trip():
    t = _table()
    assert len(t) == 1 + 3 + 3 * 2 + 1
    for spec in t.specs:
        assert t.from_name(spec.name) == spec.id
        assert t.name(spec.id) == spec.name
    assert t.id("draw") == 0 and t.first("swap") == 1
    assert t.id("swap", 2) == 3 and t.specs[3].slot == 2
    assert t.id("steal", 0, 1) == 4 and t.id("steal", 1, 3) == 9
    spec = t.specs[t.id("steal", 1, 2)]
    assert (spec.kind, spec.slot, spec.offset, spec.name) == ("steal", 1, 2, "steal +2 slot 1")
    assert list(t.span("steal")) == list(range(4, 10))
    assert list(t.span("pass")) == [10]
    assert dict(t.seat_firsts("steal")) == {1: 4, 2: 6, 3: 8}


@pytest.mark.parametrize("ruleset", ["onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0"])
def test_seat_firsts_are_the_ids_of_slot_zero(ruleset):
    """The masks read ``seat_firsts``; it must give ``id(kind, 0, offset)`` for every
    seat kind of every ruleset."""
    import cardenv

    raw = getattr(cardenv, ruleset).raw_env()
    raw.reset(seed=0)
    table = raw.game.action_table
    for kind in sorted({spec.kind for spec in table.specs if spec.offset is not None}):
        offsets = sorted({spec.offset for spec in table.specs if spec.kind == kind})
        assert dict(table.seat_firsts(kind)) == {offset: table.id(kind, 0, offset) for offset in offsets}


def test_action_table_errors():
    t = _table()
    with pytest.raises(ValueError, match="no action named"):
        t.from_name("fly")
    with pytest.raises(ValueError, match="duplicate"):
        t.add("again", "draw")
    with pytest.raises(ValueError, match="consecutive"):
        ActionTable().add_seat_slots("x", "x {offset} {slot}", [1, 3], 2)


def test_action_table_markdown():
    md = _table().markdown().splitlines()
    assert md[0].startswith("| ids | kind |")
    assert "| 0 | draw | `draw` | draw a card |" in md
    assert "| 1–3 | swap | `swap slot 0` … `swap slot 2` | swap into a slot |" in md
    assert "| 4–9 | steal | `steal +1 slot 0` … `steal +3 slot 1` | steal |" in md
    assert len(md) == 2 + 4


# --- observation layouts ----------------------------------------------------------------------
def test_observation_layout_slices_views_and_markdown():
    layout = ObservationLayout()
    a = layout.add("a", 3, "first")
    b = layout.add("b", (2, 4), "second", high=5.0)
    c = layout.add("c", 1, "third")
    assert (a.start, a.stop, b.start, b.stop, c.start, c.stop) == (0, 3, 3, 11, 11, 12)
    assert layout.size == 12
    vec = np.zeros(layout.size, dtype=np.float32)
    layout.view(vec, "b")[1, 2] = 4.0
    assert vec[3 + 4 + 2] == 4.0, "views write through"
    views = layout.views(vec)
    assert set(views) == {"a", "b", "c"} and views["b"].shape == (2, 4)
    high = layout.high()
    assert high[:3].tolist() == [1, 1, 1] and (high[3:11] == 5).all() and high[11] == 1
    md = layout.markdown().splitlines()
    assert "| `b` | 3–10 | 2 × 4 | 0–5 | second |" in md
    assert md[-1] == "| **total** | 12 entries | | | |"
    with pytest.raises(ValueError, match="duplicate"):
        layout.add("a", 1, "again")


# --- events ----------------------------------------------------------------------------------
def test_event_visibility_and_description():
    private = Event(3, 0, "draw", 1, (5,), (1,), "draws {cards}")
    nobody = Event(3, 0, "penalty", 2, (7,), (), "takes a penalty card {cards}")
    public = Event(3, 0, "discard", 0, (5, 6), None, "discards")
    assert private.is_visible_to(1) and not private.is_visible_to(0) and private.is_visible_to(None)
    assert not nobody.is_visible_to(2) and nobody.is_visible_to(None)
    assert public.is_visible_to(3)
    assert private.describe(card_name, 1) == f"player_1 draws {card_name(5)}"
    assert private.describe(card_name, 0) == "player_1 draws ??"
    assert nobody.describe(card_name, 2) == "player_2 takes a penalty card ??"
    assert public.describe(card_name, 2) == f"player_0 discards {card_name(5)} {card_name(6)}"
    assert Event(0, 0, "round end", -1, text="round over").describe(card_name, 0) == "round over"


def test_event_text_places_single_cards_by_index():
    grouped = Event(3, 0, "round end", -1, (5, 6, 7), None, "ends: player_0 {0} {1}; player_1 {2}")
    assert grouped.describe(card_name, 1) == f"ends: player_0 {card_name(5)} {card_name(6)}; player_1 {card_name(7)}"
    hidden = Event(3, 0, "swap", 2, (5, 6), (2,), "swaps {1} for {0}")
    assert hidden.describe(card_name, 0) == "player_2 swaps ?? for ??"


def test_action_names_for_a_seat_name_the_player_an_offset_points_at():
    table = ActionTable()
    table.add("draw", "draw")
    table.add_seat_slots("look", "look at opponent +{offset} slot {slot}", [1, 2, 3], 2)
    table.add_seat_slots("swap", "swap with player +{offset} slot {slot}", [1, 2, 3], 2)
    assert table.name_for_seat(table.id("look", 1, 1), 3, 4) == "look at player_0 (+1) slot 1"
    assert table.name_for_seat(table.id("swap", 0, 3), 2, 4) == "swap with player_1 (+3) slot 0"
    assert table.name_for_seat(table.id("draw"), 2, 4) == "draw"
    assert table.name(table.id("swap", 0, 3)) == "swap with player +3 slot 0"  # the identity is unchanged


# --- ranking helpers -------------------------------------------------------------------------
def test_shared_ranks_and_lowest():
    assert shared_ranks([10, 20, 10, 30]) == [1, 3, 1, 4]
    assert shared_ranks([5, 5, 5]) == [1, 1, 1]
    assert shared_ranks([3, 2, 1]) == [3, 2, 1]
    assert lowest([10, 20, 10, 30]) == [0, 2]
    assert lowest([7]) == [0]


def test_first_clockwise_after():
    assert first_clockwise_after([0, 2], after=0, num_players=4) == 2
    assert first_clockwise_after([0, 2], after=2, num_players=4) == 0
    assert first_clockwise_after([1, 3], after=3, num_players=4) == 1
    assert first_clockwise_after([1], after=1, num_players=4) == 1, "the previous one comes last"
    assert first_clockwise_after([0, 1, 2, 3], after=1, num_players=4) == 2
    with pytest.raises(ValueError):
        first_clockwise_after([], after=0, num_players=4)


# --- the shared checks themselves ---------------------------------------------------------------
def test_check_invariants_catches_a_lost_card():
    state = new_state(seed=1)
    check_invariants(state)
    state.table.draw_pile.pop()
    with pytest.raises(AssertionError, match="missing"):
        check_invariants(state)


def test_check_legal_actions_apply_does_not_touch_the_state():
    state = new_state(seed=2)
    before = (state.table.hands[0].copy(), state.table.draw_pile.copy(), state.table.knowledge.clock)
    check_legal_actions_apply(state)
    assert (state.table.hands[0], state.table.draw_pile, state.table.knowledge.clock) == before


def test_play_random_reaches_the_end_and_calls_on_step():
    seen = []
    state = new_state(seed=3)
    steps = play_random(state, np.random.default_rng(3), on_step=lambda s: seen.append(s.table.knowledge.clock))
    assert state.is_terminal and len(seen) == steps + 1


def test_check_no_leak_catches_a_leaky_observation():
    state = new_state(seed=4)
    observer = OneFiftyObserver(state.config)

    def leaky(s, seat):
        obs = observer.observe(s, seat).copy()
        obs[0] = s.table.card_types[s.table.hands[(seat + 1) % s.num_players][0]]  # an opponent's hidden card
        return obs

    check_no_leak(state, observer.observe, 0, np.random.default_rng(0))
    with pytest.raises(AssertionError, match="observation"):
        check_no_leak(state, leaky, 0, np.random.default_rng(0), samples=10)


class _LeakyMaskState(OneFiftyState):
    """Allows a match only with cards that would match: a mask that leaks the cards."""

    def _fill_legal_mask(self, mask):
        super()._fill_legal_mask(mask)
        if self.phase == 0 and self.table.discard_pile:  # Phase.MAIN
            top_rank = RANK_OF[self.table.card_types[self.table.top_discard]]
            for s, card in enumerate(self.table.hands[self.current_player]):
                if card != EMPTY and RANK_OF[self.table.card_types[card]] != top_rank:
                    mask[self.action_table.id("match_select", s)] = 0


def test_check_no_leak_catches_a_leaky_mask():
    from cardenv.games.onefifty import OneFiftyConfig

    options = {"hands": [["5S", "9D", "KH", "2C"], [], [], []], "discard_pile": ["5H"], "starter": 0}
    options["hands"][1:] = [["AS", "AH", "AD", "AC"], ["2S", "2H", "2D", "3C"], ["3S", "3H", "3D", "4C"]]
    state = _LeakyMaskState(OneFiftyConfig(), np.random.default_rng(0), options)
    observer = OneFiftyObserver(state.config)
    assert state.legal_action_mask()[state.action_from_name("match select slot 1")] == 0  # 9D never matches 5H
    with pytest.raises(AssertionError, match="mask"):
        check_no_leak(state, observer.observe, 0, np.random.default_rng(0), samples=20)
    # the honest engine passes the same check
    honest = new_state(options=options)
    check_no_leak(honest, observer.observe, 0, np.random.default_rng(0), samples=20)


# --- the compiled observation loops ----------------------------------------------------------
def test_numba_is_loaded_by_the_first_observer_not_by_import():
    """``import cardenv`` (the CLI's start-up, spawned workers) must not pay for numba;
    building an env's observer loads it."""
    import subprocess
    import sys

    code = ("import sys, cardenv; before = 'numba' in sys.modules; cardenv.onefifty_v0.env(); "
            "print(before, 'numba' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "True"]


def event_tables(k) -> tuple[np.ndarray, np.ndarray]:
    """``write_recent_events``'s tables and weights for a toy layout: kinds 0-1, actors
    2-3, places 4-7 (2 seats × 2 slots), face columns 8-9; row i, column c lands at
    2c + i; event_new at 20, two rows; face sums [0, 0.5, 1] and [0, 1, 0]."""
    settings = k.in_order(k.Setting, observer=0, only_new=False, identity_width=0, face_sums_at=0, face_sums_width=3,
                          actor_column=2, places_column=4, slots_per_seat=2, face_low=8, faces_per_type=1,
                          new_start=20, capacity=2)
    tables = k.pack_tables(k.in_order(k.Table, settings=settings, slot_destinations=[], piece_starts=[], copies=[],
                                      turn_divisors=[], kind_columns=[0, 1], face_columns=[[8], [8], [9]],
                                      column_base=2 * np.arange(10), column_step=np.ones(10)))
    return tables, np.array([0, 0.5, 1, 0, 1, 0], dtype=np.float32)


def test_kernels_compile_where_numba_cannot_cache():
    """Without a writable cache location (here: source with no file, which numba cannot
    locate) the kernels still compile, uncached, and write the same rows."""
    import inspect

    from cardenv.engine import encoders as observation_kernels

    namespace: dict = {}
    exec(compile(inspect.getsource(observation_kernels), "<no file>", "exec"), namespace)
    from numba.core.caching import NullCache

    assert isinstance(namespace["write_recent_events"]._cache, NullCache)  # compiled, not cached on disk
    from cardenv.core.events import append_event_record, new_event_records

    records = new_event_records()
    append_event_record(records, 1, 0, 1, ((0, 1),), (2,))  # clock 1: kind 0 by seat 1 at (0, 1), type 2 face up
    append_event_record(records, 2, 1, -1, (), ())  # clock 2: kind 1, nobody, nothing shown
    arguments = (*event_tables(observation_kernels), 2)  # since clock 2
    expected = np.zeros(23, dtype=np.float32)
    observation_kernels.write_recent_events(expected, records, *arguments)
    target = np.zeros(23, dtype=np.float32)
    namespace["write_recent_events"](target, records, *arguments)
    # newest first: row 0 kind 1; row 1 kind 0, actor 1, place (0, 1), type 2 face up;
    # only the newest (clock 2) is new
    assert target.tolist() == expected.tolist()
    assert np.flatnonzero(target).tolist() == [1, 2, 7, 11, 19, 20] and target[19] == 1




@pytest.mark.parametrize("ruleset", ["onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0"])
def test_the_event_log_is_the_same_whenever_it_is_read(ruleset):
    """``log`` keeps events as tuples until ``events`` is read: a log read after every
    step, one read only at the end and a clone's are the same Events."""
    import cardenv
    from cardenv.core.events import Event

    raw = getattr(cardenv, ruleset).raw_env()
    eager, lazy = (raw.state_class(raw.config, np.random.default_rng(5)) for _ in range(2))
    rng = np.random.default_rng(6)
    clone = None
    for step in range(400):
        if eager.is_terminal:
            break
        legal = eager.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        eager.apply(action)
        lazy.apply(action)
        eager.events  # read every step
        if step == 30:
            clone = lazy.clone()
            clone_log = list(lazy.events)
    assert clone is not None and clone.events == clone_log
    assert lazy.events == eager.events and all(type(event) is Event for event in lazy.events)

def test_fixed_type_entry_writes_what_the_dispatcher_writes():
    """The entry point a kernel is called through after its first call writes what
    numba's dispatcher writes; something without one (a plain function) is called as is."""
    from cardenv.core.events import append_event_record, new_event_records
    from cardenv.engine import encoders as k

    calls = []
    assert k.fixed_type_entry(lambda *args: calls.append(args), (1, 2)) is not None and calls == [(1, 2)]
    records = new_event_records()
    append_event_record(records, 1, 0, 1, ((0, 1),), (2,))
    arguments = (np.zeros(23, dtype=np.float32), records, *event_tables(k), 0)
    entry = k.fixed_type_entry(k.write_recent_events, arguments)
    assert entry is not k.write_recent_events
    expected = arguments[0].copy()
    arguments[0][:] = 0
    entry(*arguments)
    assert arguments[0].tolist() == expected.tolist() and expected.any()


@pytest.mark.parametrize("ruleset", ["onefifty_v0", "carte_v0"])
@pytest.mark.parametrize("bad", [np.zeros(10, dtype=np.float32), np.zeros((2, 10_000), dtype=np.float32)[0, ::2]])
def test_write_checks_a_buffer_it_has_not_seen(bad, ruleset):
    """The unchecked ``write`` still checks each new buffer once: the compiled call takes
    every buffer as it took the first (fixed_type_entry)."""
    import cardenv

    raw = getattr(cardenv, ruleset).raw_env()
    raw.reset(seed=0)
    raw.observer.write(raw.game, 0, raw.observer.new_buffer())
    with pytest.raises(ValueError, match="out must be a writeable, contiguous float32"):
        raw.observer.write(raw.game, 0, bad)

def test_mark_occupied_slots_marks_exactly_the_occupied_slots():
    """The slice-assignment path (a full hand) and the loop (a hand with holes) against
    the plain loop over the slots."""
    from cardenv.core.table import EMPTY
    from cardenv.engine.slots import mark_occupied_slots

    rng = np.random.default_rng(0)
    for _ in range(300):
        hand = rng.integers(-1, 52, size=int(rng.integers(0, 9))).tolist()
        if rng.random() < 0.5:
            hand = [card if card != EMPTY else 0 for card in hand]  # a full hand
        first = int(rng.integers(0, 20))
        mask = np.zeros(40, dtype=np.int8)
        mask[first - 1] = 7  # entries around the hand's run stay as they were
        expected = mask.copy()
        for s, card in enumerate(hand):
            if card != EMPTY:
                expected[first + s] = 1
        mark_occupied_slots(memoryview(mask), first, hand)
        assert mask.tolist() == expected.tolist()
