"""Nothing public is missing from an observation: pairs of histories that differ only
in a public action (which slots a power looked at or swapped, whether a King swapped or
kept, whether a Queen swapped or was declined) give every seat a different observation
(O-14, C-11), through the recent-public-events piece; and that piece's bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.games.cut import CutConfig, CutObserver, CutState
from cardenv.games.kaboom import KaboomConfig, KaboomObserver, KaboomState
from cardenv.games.onefifty import OneFiftyConfig, OneFiftyObserver, OneFiftyState

CUT_HANDS = [["2S", "3S", "4S", "6S"], ["7H", "8C", "9C", "10C"], ["2D", "3D", "4D", "5D"]]
KABOOM_HANDS = [["2S", "3S", "4S", "6S"], ["7H", "8C", "9C", "10C"], ["2D", "3D", "4D", "5D"]]
ONEFIFTY_HANDS = [["5S", "4H", "3D", "10H"], ["AS", "2H", "6C", "10D"], ["KS", "2S", "2C", "AD"]]


def cut_game(memory: str, power_card: str) -> CutState:
    options = {"hands": CUT_HANDS, "draw_pile": [power_card, "AC", "AD"], "starter": 0}
    return CutState(CutConfig(num_players=3, memory=memory), np.random.default_rng(0), options)


def onefifty_game(memory: str, power_card: str) -> OneFiftyState:
    options = {"hands": ONEFIFTY_HANDS, "draw_pile": [power_card, "9H", "9S"], "starter": 0}
    return OneFiftyState(OneFiftyConfig(num_players=3, memory=memory), np.random.default_rng(0), options)


def kaboom_game(memory: str, power_card: str) -> KaboomState:
    options = {"hands": KABOOM_HANDS, "draw_pile": [power_card, "AC", "AD"], "starter": 0}
    return KaboomState(KaboomConfig(num_players=3, memory=memory), np.random.default_rng(0), options)


GAMES = {"cut": (cut_game, CutObserver), "onefifty": (onefifty_game, OneFiftyObserver),
         "kaboom": (kaboom_game, KaboomObserver)}


def play(state, names) -> None:
    for name in names:
        state.apply(state.action_from_name(name))


# (ruleset, power card, the shared start, branch A, branch B, rule)
PAIRS = [
    ("cut", "KH", ["draw", "discard drawn", "K: own slot 0", "K: look at opponent +1 slot 1"],
     ["K: swap"], ["K: keep"], "C-11 a King that swapped vs one that kept"),
    ("cut", "QH", ["draw", "discard drawn"],
     ["Q: own slot 0", "Q: swap with opponent +1 slot 0"], ["decline power"], "C-11 a Queen swap vs declined"),
    ("cut", "QH", ["draw", "discard drawn"],
     ["Q: own slot 0", "Q: swap with opponent +1 slot 0"], ["Q: own slot 1", "Q: swap with opponent +1 slot 1"],
     "C-11 a Queen swap of slots 0↔0 vs 1↔1"),
    ("cut", "5H", ["draw", "discard drawn"], ["5: look at own slot 2"], ["5: look at own slot 3"],
     "C-11 a 5 peek at a card the peeker already knew"),
    ("cut", "6H", ["draw", "discard drawn"],
     ["6: look at opponent +1 slot 2"], ["6: look at opponent +1 slot 3"], "C-11 a 6 peek, slot 2 vs 3"),
    ("onefifty", "JH", ["draw", "discard drawn", "jack: give own slot 0"],
     ["jack: take opponent +1 slot 0"], ["jack: take opponent +2 slot 0"],
     "O-14 a Jack trade of two cards nobody knew, with either opponent"),
    ("onefifty", "QH", ["draw", "discard drawn"], ["queen: peek own slot 2"], ["queen: peek own slot 3"],
     "O-14 a Queen peek at a card the peeker already knew"),
    ("kaboom", "KS", ["draw", "discard drawn", "black K: look at player +1 slot 1"],
     ["black K: take it, giving own slot 0"], ["black K: leave it"], "K-08 a black King that took vs left"),
    ("kaboom", "KC", ["draw", "discard drawn", "black K: look at player +1 slot 1"],
     ["black K: give it to player +2 slot 0"], ["black K: leave it"], "K-08 a black King that gave vs left"),
    ("kaboom", "6H", ["draw", "discard drawn", "red 6: player +1 slot 0"],
     ["red 6: player +2 slot 0"], ["red 6: player +1 slot 1"], "K-04 a red 6 across two players vs one"),
    ("kaboom", "JS", ["draw", "discard drawn"],
     ["J/Q: own slot 0", "J/Q: exchange with player +1 slot 0"], ["J/Q: own slot 1", "J/Q: exchange with player +1 slot 1"],
     "K-07 a blind exchange of slots 0↔0 vs 1↔1"),
    ("kaboom", "6C", ["draw", "discard drawn"],
     ["black 6: own slot 0", "black 6: own slot 1"], ["black 6: own slot 2", "black 6: own slot 3"],
     "K-03 a black 6 swapping slots 0↔1 vs 2↔3"),
    ("kaboom", "8H", ["draw", "discard drawn"], ["7/8: look at own slot 2"], ["7/8: look at own slot 3"],
     "K-05 a look at a card the looker already knew"),
    ("kaboom", "10H", ["draw", "discard drawn"],
     ["9/10: look at player +2 slot 2"], ["decline power"], "K-06 a look vs declined"),
    ("kaboom", "9H",
     ["draw", "discard drawn", "decline power", "pass", "snap select own slot 2", "snap confirm", "pass"],
     ["close the gap"], ["leave the gap"], "K-13b a snapper that closed the gap vs left it"),
]


def _branches(ruleset, power_card, start, first, second, memory):
    make, observer_class = GAMES[ruleset]
    games = []
    for branch in (first, second):
        state = make(memory, power_card)
        play(state, start)
        play(state, branch)
        games.append(state)
    return games, observer_class(games[0].config)


@pytest.mark.parametrize("memory", ["perfect", "none"])
@pytest.mark.parametrize("ruleset, power_card, start, first, second, rule", PAIRS, ids=[p[-1] for p in PAIRS])
def test_histories_that_differ_in_a_public_action_look_different_to_every_seat(
        ruleset, power_card, start, first, second, rule, memory):
    (a, b), observer = _branches(ruleset, power_card, start, first, second, memory)
    # The same places and the same public knowledge: only the public action differs.
    assert [len(h) for h in a.table.hands] == [len(h) for h in b.table.hands]
    for seat in range(a.num_players):
        seen_a, seen_b = observer.observe(a, seat), observer.observe(b, seat)
        differ = np.flatnonzero(seen_a != seen_b)
        assert len(differ), f"seat {seat} cannot tell the two histories apart ({rule})"
        first_event = observer.layout.pieces["event_kind"].start
        # The events piece itself tells the histories apart (for the King and Queen pairs
        # nothing else does; see the next test).
        assert differ.max() >= first_event, (seat, rule)


# (The black King pairs also differ in slot_known_by: the card the King saw moved.)
ONLY_EVENTS = [0, 1, 2, 5, 9, 10, 11]


@pytest.mark.parametrize("pair", ONLY_EVENTS, ids=[PAIRS[i][-1] for i in ONLY_EVENTS])
def test_for_other_seats_only_the_events_piece_tells_these_pairs_apart(pair):
    """These pairs are real tests of the events piece: every other piece is identical."""
    ruleset, power_card, start, first, second, _ = PAIRS[pair]
    (a, b), observer = _branches(ruleset, power_card, start, first, second, "perfect")
    for seat in (1, 2):
        seen_a, seen_b = observer.observe(a, seat), observer.observe(b, seat)
        differ = np.flatnonzero(seen_a != seen_b)
        names = {name for name, p in observer.layout.pieces.items() if any(p.start <= i < p.stop for i in differ)}
        assert names and all(name.startswith("event") for name in names), names


def test_event_rows_are_seat_relative_and_show_face_up_cards_only():
    state = onefifty_game("perfect", "JH")
    play(state, ["draw", "discard drawn", "jack: give own slot 0", "jack: take opponent +2 slot 1"])
    observer = OneFiftyObserver(state.config)
    kinds_shown = observer.shown_event_kinds
    for seat in range(3):
        v = observer.layout.views(observer.observe(state, seat))
        kinds = [kinds_shown[k] for k in v["event_kind"].argmax(axis=1)[: int(v["event_kind"].sum())]]
        # The round's start, the deal's peeks and the draw are implied: not shown.
        assert kinds == ["jack", "discard"]
        jack_row = 0
        assert v["event_actor"][jack_row].argmax() == (0 - seat) % 3
        places = {(int(r), int(s)) for r, s in zip(*np.nonzero(v["event_places"][jack_row]))}
        assert places == {((0 - seat) % 3, 0), ((2 - seat) % 3, 1)}
        # The traded cards are not face up; the discarded Jack (JH) is.
        assert not v["event_face_up_rank"][jack_row].any() and not v["event_face_up_suit"][jack_row].any()
        assert v["event_face_up_rank"][1].argmax() == 10 and v["event_face_up_rank"][1].sum() == 0.25
        assert v["event_face_up_suit"][1].argmax() == 1 and v["event_face_up_suit"][1].sum() == pytest.approx(1 / 13)
        assert v["events_dropped"][0] == 0


def test_a_failed_match_shows_every_card_it_showed():
    options = {"hands": ONEFIFTY_HANDS, "discard_pile": ["4S"], "draw_pile": ["9C"], "starter": 0}
    state = OneFiftyState(OneFiftyConfig(num_players=3), np.random.default_rng(0), options)
    play(state, ["match select slot 1", "match select slot 2", "match confirm"])  # 4H matches, 3D does not
    observer = OneFiftyObserver(state.config)
    v = observer.layout.views(observer.observe(state, 1))
    kinds = [observer.shown_event_kinds[k] for k in v["event_kind"].argmax(axis=1)[:2]]
    assert kinds == ["penalty", "failed match"]
    assert v["event_face_up_rank"][1, 3] == 0.25 and v["event_face_up_rank"][1, 2] == 0.25  # a 4 and a 3
    assert v["event_face_up_suit"][1, 1] == pytest.approx(1 / 13) and v["event_face_up_suit"][1, 2] == pytest.approx(1 / 13)
    assert {(int(r), int(s)) for r, s in zip(*np.nonzero(v["event_places"][1]))} == {(2, 1), (2, 2)}
    assert not v["event_face_up_rank"][0].any()  # the penalty card: nobody saw it


def test_event_new_marks_what_happened_since_the_observers_previous_decision():
    state = onefifty_game("perfect", "9C")
    play(state, ["draw", "discard drawn", "pass"])  # player 0's turn
    observer = OneFiftyObserver(state.config)
    v1 = observer.layout.views(observer.observe(state, 1))  # player 1 has not decided yet: all new
    assert v1["event_new"].sum() == v1["event_kind"].sum() == 1
    play(state, ["draw", "discard drawn"])  # player 1 decides twice
    v1 = observer.layout.views(observer.observe(state, 1))
    assert v1["event_new"].tolist()[:2] == [1, 0]  # its own discard is new; player 0's is older
    v0 = observer.layout.views(observer.observe(state, 0))
    # Player 0's previous decision was its pass (no event): only player 1's discard is new to it.
    assert v0["event_new"].tolist()[:2] == [1, 0]


def test_memory_none_shows_only_events_since_the_previous_decision():
    state = onefifty_game("none", "9C")
    play(state, ["draw", "discard drawn", "pass", "draw", "discard drawn"])
    observer = OneFiftyObserver(state.config)
    v1 = observer.layout.views(observer.observe(state, 1))
    assert v1["event_kind"].sum() == 1 and v1["event_new"].sum() == 1


def test_events_that_do_not_fit_are_dropped_oldest_first_and_flagged():
    config = OneFiftyConfig(num_players=3, recent_events=3)
    options = {"hands": ONEFIFTY_HANDS, "draw_pile": ["9C", "9H", "9S"], "starter": 0}
    state = OneFiftyState(config, np.random.default_rng(0), options)
    observer = OneFiftyObserver(config)
    play(state, ["draw", "swap drawn into slot 0", "pass", "draw", "swap drawn into slot 1", "pass"])
    v2 = observer.layout.views(observer.observe(state, 2))  # 4 shown events, none seen yet by player 2
    assert v2["event_kind"].sum() == 3 and v2["events_dropped"][0] == 1 and v2["event_new"].sum() == 3
    kinds = [observer.shown_event_kinds[k] for k in v2["event_kind"].argmax(axis=1)]
    assert kinds == ["discard", "swap", "discard"]
    # Seat-relative actors: player 1 is two seats on from player 2, player 0 one.
    assert v2["event_actor"][:, 2].tolist() == [1, 1, 0] and v2["event_actor"][:, 1].tolist() == [0, 0, 1]
    play(state, ["draw"])  # player 2 decides: nothing is new any more
    v2 = observer.layout.views(observer.observe(state, 2))
    assert v2["events_dropped"][0] == 0 and v2["event_new"].tolist() == [0, 0, 0]


def decode_records(records) -> list[tuple]:
    """The records of ``event_records``, oldest first, decoded by reading them forwards
    (the kernel reads them backwards, by each record's trailing length)."""
    decoded, at = [], 0
    while at < len(records):
        clock, kind, player, num_places = records[at: at + 4]
        places = tuple(tuple(records[at + 4 + 2 * k: at + 6 + 2 * k]) for k in range(num_places))
        faces_at = at + 4 + 2 * num_places
        faces = tuple(records[faces_at + 1: faces_at + 1 + records[faces_at]])
        length = 4 + 2 * num_places + 1 + len(faces) + 1
        assert records[at + length - 1] == length
        decoded.append((clock, kind, player, places, faces))
        at += length
    return decoded


@pytest.mark.parametrize("ruleset", ["onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0"])
def test_event_records_hold_every_shown_event_and_copies_keep_their_own(ruleset):
    """``state.event_records`` (what the compiled observers read) holds, for every
    logged event of a kind the observation shows, its clock, kind, actor, places and
    face-up types, in order; implied kinds are left out; a clone's records are its own."""
    import cardenv

    raw = getattr(cardenv, ruleset).raw_env()
    rng = np.random.default_rng(5)
    state = raw.state_class(raw.config, np.random.default_rng(4), None)
    clone = None
    for step in range(400):
        if state.is_terminal:
            break
        state.apply(int(rng.choice(state.legal_actions())))
        if step == 10:
            clone = state.clone()
    kinds = type(state).event_kinds
    implied = type(state).implied_event_kinds
    expected = [(e.clock, kinds.index(e.kind), e.player, tuple(map(tuple, e.places)), tuple(e.face_up_types))
                for e in state.events if e.kind not in implied]
    assert decode_records(state.event_records) == expected
    assert any(e.kind in implied for e in state.events)  # some were left out
    clone_expected = [(e.clock, kinds.index(e.kind), e.player, tuple(map(tuple, e.places)),
                       tuple(e.face_up_types)) for e in clone.events if e.kind not in implied]
    assert decode_records(clone.event_records) == clone_expected and len(clone_expected) < len(expected)


@pytest.mark.parametrize("ruleset", ["onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0"])
def test_observations_into_many_buffers_equal_a_fresh_copy(ruleset):
    """Observers write straight into the buffer given (keeping a view per buffer); any
    buffer, however many were used before, gets what ``out=None`` returns."""
    import cardenv

    raw = getattr(cardenv, ruleset).raw_env()
    observer = raw.observer
    rng = np.random.default_rng(2)
    state = raw.state_class(raw.config, np.random.default_rng(3), None)
    buffers = [np.full(observer.size, 7, dtype=np.float32) for _ in range(70)]  # more than are kept
    for step in range(140):
        if state.is_terminal:
            break
        seat = state.current_player
        out = buffers[step % len(buffers)]
        assert observer.observe(state, seat, out) is out
        np.testing.assert_array_equal(out, observer.observe(state, seat))
        state.apply(int(rng.choice(state.legal_actions())))
