"""carte_v0's observer against a reference written from the layout's descriptions.

The observer is built for speed (one compiled call per observation, fed the state's facts
packed into bytes and the scores, seat flags and melds kept until they change). The
reference below is the slow, obvious reading of docs/carte.md's observation table: one
plain loop per piece over the state (hands, knowledge table, melds, piles, event log),
nothing cached. Every observation of every seat along random games (2, 4 and 6 players,
both memory models, sampled worlds and copies observed in between, so the observer's
kept facts see other states) and the global state must equal the reference exactly,
float32 for float32.

The default run compares over 10,000 states; ``pytest -m slow`` over 40,000."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.core.melds import JOKER, NUM_MELD_TYPES, position_of_rank
from cardenv.games.carte import CarteConfig, CarteObserver, CarteState, observation

COPIES = [2] * JOKER + [4]  # two packs, four jokers
DECK = 108
MAX_SET, MAX_RUN = 4, 13


def meld_type(state: CarteState, card: int) -> int:
    return min(int(state.table.card_types[card]), JOKER)


def known_to_everyone(state: CarteState, card: int) -> bool:
    return all(state.table.knowledge.known[q, card] for q in range(state.num_players))


def shown_to(state: CarteState, observer: int, card: int, memory: str) -> bool:
    """What the observer's observation shows: every card it knows (perfect memory), or
    only those it learned since its previous decision (no memory)."""
    knowledge = state.table.knowledge
    if not knowledge.known[observer, card]:
        return False
    return memory == "perfect" or knowledge.learned_at[observer, card] >= knowledge.decided_at[observer]


def takes(state: CarteState, m: int, t: int) -> bool:
    """R-12: a set takes a card of its rank or a joker below four cards; a run takes a
    joker, or a card of its suit right below or above it, below thirteen cards."""
    meld, size = state.melds[m], len(state.table.melds[m])
    if not meld.is_run:
        return size < MAX_SET and (t == JOKER or t >> 2 == meld.key)
    if size >= MAX_RUN:
        return False
    return t == JOKER or (t & 3 == meld.key and position_of_rank(t >> 2) in (meld.low - 1, meld.high + 1))


def meld_accepts(state: CarteState) -> list[bool]:
    """Per meld type: whether some meld on the table takes it (the same for every seat)."""
    return [any(takes(state, m, t) for m in range(len(state.melds))) for t in range(NUM_MELD_TYPES)]


def reference(state: CarteState, observer: int | None, observer_object: CarteObserver,
              accepts: list[bool]) -> dict[str, np.ndarray]:
    """Every piece of ``observer``'s observation (``None``: the global state);
    ``accepts`` is ``meld_accepts(state)``."""
    config = state.config
    n, memory = config.num_players, config.memory
    layout = observer_object.state_layout if observer is None else observer_object.layout
    pieces = {name: np.zeros(piece.shape, dtype=np.float64) for name, piece in layout.pieces.items()}
    table = state.table

    def row(seat: int) -> int:
        return seat if observer is None else (seat - observer) % n

    def seats():
        return range(n) if observer is None else [(observer + r) % n for r in range(n)]

    def shown(card: int) -> bool:
        return True if observer is None else shown_to(state, observer, card, memory)

    pieces["phase"][int(state.phase)] = 1
    if state.current_player is not None:  # the game is on
        pieces["current_player"][row(state.current_player)] = 1
        pieces["turn_player"][row(state.turn_player)] = 1
        if observer is None or observer == state.current_player:  # a selection is private
            for t in range(NUM_MELD_TYPES):
                pieces["selection"][t] = state.selection[t] / COPIES[t]
        pile_card = state.pile_card
        if pile_card is not None and pile_card in table.hands[state.turn_player]:
            pieces["pile_card"][meld_type(state, pile_card)] = 1
    for seat in seats():
        r = row(seat)
        for card in table.hands[seat]:
            t = meld_type(state, card)
            if observer is None:
                pieces["hands"][r, t] += 1 / COPIES[t]
                if known_to_everyone(state, card):
                    pieces["known_to_all"][r, t] += 1 / COPIES[t]
            elif r == 0:
                pieces["hand"][t] += 1 / COPIES[t]
                if known_to_everyone(state, card):
                    pieces["known_cards"][0, t] += 1 / COPIES[t]
            elif shown(card):
                pieces["known_cards"][r, t] += 1 / COPIES[t]
        pieces["in_game"][r] = not state.eliminated[seat]
        pieces["scores"][r] = max(state.scores[seat], 0) / config.starting_score
        pieces["hand_size"][r] = len(table.hands[seat]) / DECK
        pieces["started"][r] = state.started[seat]
        pieces["said_carte"][r] = state.said_carte[seat]
    pieces["turns_in_round"][0] = state.turns_completed / config.max_turns_per_round
    window = state.window
    if window is not None:
        pieces["catch_window"][0] = 1
        pieces["offender"][row(state.offender)] = 1
        decided = window.players[: len(window.decisions)]
        if observer is None:
            for seat, decision in zip(decided, window.decisions):
                pieces["window_decided"][seat] = 1
                pieces["window_catches"][seat] = decision is not None
        else:
            pieces["window_decided"][0] = observer in decided

    for m, meld in enumerate(state.melds):
        pieces["meld_present"][m] = 1
        pieces["meld_is_run"][m] = meld.is_run
        pieces["meld_owner"][m, row(meld.owner)] = 1
        cards = table.melds[m]
        if meld.is_run:
            pieces["meld_run_suit"][m, meld.key] = 1
            for card, position in zip(cards, meld.positions):
                which = "meld_run_joker" if meld_type(state, card) == JOKER else "meld_run_real"
                pieces[which][m, position] = 1
        else:
            pieces["meld_set_rank"][m, meld.key] = 1
            for card in cards:
                t = meld_type(state, card)
                if t == JOKER:
                    pieces["meld_set_jokers"][m] += 1 / 3
                else:
                    pieces["meld_set_suits"][m, t & 3] += 1 / 2
    pieces["meld_accepts"][:] = accepts

    pile, stock = table.discard_pile, table.draw_pile
    for i, card in enumerate(pile):  # bottom first; the top card lies face up
        if shown(card) or i == len(pile) - 1:
            t = meld_type(state, card)
            pieces["pile_counts"][t] += 1 / COPIES[t]
            pieces["pile_order"][i] = (t + 1) / NUM_MELD_TYPES
    if pile:
        pieces["top_of_pile"][meld_type(state, pile[-1])] = 1
    for i, card in enumerate(reversed(stock)):  # top first
        if shown(card):
            pieces["stock_order"][i] = (meld_type(state, card) + 1) / NUM_MELD_TYPES
    pieces["stock_size"][0] = len(stock) / DECK
    pieces["pile_size"][0] = len(pile) / DECK
    pieces["turned_over"][0] = state.turnovers > 0

    if observer is not None:
        capacity = config.recent_events
        kinds = observer_object.shown_event_kinds
        decided_at = table.knowledge.decided_at[observer]
        listed, new = [], []  # newest first
        for event in reversed(state.events):
            if event.clock < decided_at and len(listed) >= capacity:
                break  # older than every row and not new
            if event.kind in kinds:
                listed.append(event)
                if event.clock >= decided_at:
                    new.append(event)
        rows = new if memory == "none" else listed
        for r, event in enumerate(rows[:capacity]):
            pieces["event_kind"][r, kinds.index(event.kind)] = 1
            if event.player >= 0:
                pieces["event_actor"][r, row(event.player)] = 1
            for card_type in event.face_up_types:
                t = min(card_type, JOKER)
                pieces["event_cards"][r, t] += 1 / COPIES[t]
            if event.kind in ("put down", "add"):
                pieces["event_meld"][r, event.places[0][1]] = 1
            pieces["event_new"][r] = event.clock >= decided_at
        pieces["events_dropped"][0] = len(new) > capacity
    return pieces


def assert_matches(state: CarteState, observer: int | None, observer_object: CarteObserver, vector: np.ndarray,
                   accepts: list[bool]) -> None:
    layout = observer_object.state_layout if observer is None else observer_object.layout
    pieces = reference(state, observer, observer_object, accepts)
    expected_vector = np.zeros(layout.size, dtype=np.float32)
    for name, view in layout.views(expected_vector).items():
        view[...] = pieces[name]
    if np.array_equal(vector, expected_vector):
        return
    fast = layout.views(vector)
    for name, expected in layout.views(expected_vector).items():
        if not np.array_equal(fast[name], expected):
            where = np.argwhere(fast[name] != expected)[:3].tolist()
            raise AssertionError(f"{name} differs for {'the global state' if observer is None else f'seat {observer}'}"
                                 f" at {where}: fast {fast[name][tuple(np.array(where).T)]} "
                                 f"reference {expected[tuple(np.array(where).T)]}")


CONFIGS = [{"num_players": n, "memory": memory} for n in (2, 4, 6) for memory in ("perfect", "none")]


def compare_along_random_games(config_options: dict, states: int, seed: int) -> int:
    """Play random games and compare observations at every step: the seat to act (as an
    RL loop does), then each other seat with probability 0.3, in random order (so a
    seat's cached tail is sometimes many events behind), each through its own buffer;
    the global state at a quarter of the steps; now and then a sampled world and a copy
    through the same observer. Every other game has a low starting score (eliminations, game
    ends); the event rows cycle through 16, none and 3 (dropped events). Returns the states
    compared."""
    rng = np.random.default_rng(seed)
    compared = game = 0
    while compared < states:
        small = game % 2 == 1
        config = CarteConfig(**config_options, starting_score=25 if small else 100,
                             recent_events=(16, 0, 3)[game % 3], max_rounds=4)
        observer_object = CarteObserver(config)
        buffers = [observer_object.new_buffer() for _ in range(config.num_players)]
        state = CarteState(config, np.random.default_rng(seed * 1000 + game))
        game += 1
        while compared < states:
            accepts = meld_accepts(state)
            others = [p for p in range(config.num_players) if p != state.current_player and rng.random() < 0.3]
            rng.shuffle(others)
            for seat in ([] if state.current_player is None else [state.current_player]) + others:
                assert_matches(state, seat, observer_object, observer_object.observe(state, seat, buffers[seat]), accepts)
            if rng.random() < 0.25 or state.is_terminal:
                assert_matches(state, None, observer_object, observer_object.encode_state(state), accepts)
            compared += 1
            if state.is_terminal:
                break
            if rng.random() < 0.02:
                for other in (state.sample_world(state.current_player, rng), state.clone()):
                    seat = int(rng.integers(config.num_players))
                    assert_matches(other, seat, observer_object, observer_object.observe(other, seat), accepts)
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
    return compared


@pytest.mark.parametrize("config_options", CONFIGS, ids=lambda c: f"{c['num_players']}p-{c['memory']}")
def test_observations_equal_the_reference(config_options):
    assert compare_along_random_games(config_options, 1_700, seed=config_options["num_players"]) == 1_700


@pytest.mark.slow
@pytest.mark.parametrize("config_options", CONFIGS, ids=lambda c: f"{c['num_players']}p-{c['memory']}")
def test_observations_equal_the_reference_long(config_options):
    compare_along_random_games(config_options, 7_000, seed=100 + config_options["num_players"])


def test_the_reference_catches_a_wrong_fast_path(monkeypatch):
    """The comparison can fail: event rows that forget who acted (the compiled call told
    to write each event's actor over its cards)."""
    original = CarteObserver._pack_tables

    def without_actor(self, layout, observer):
        tables = original(self, layout, observer)
        kernels = observation.encoder
        starts = tables[tables[kernels.Table.STARTS]: tables[kernels.Table.STARTS + 1]]  # a view
        if observer >= 0:
            starts[kernels.Piece.EVENT_ACTOR] = starts[kernels.Piece.EVENT_CARDS]
        return tables

    monkeypatch.setattr(CarteObserver, "_pack_tables", without_actor)
    with pytest.raises(AssertionError, match="event_actor"):
        compare_along_random_games({"num_players": 3, "memory": "perfect"}, 300, seed=0)
