"""The rules of 150 compiled, for the single-seat view against random seats.

:class:`cardenv.games.onefifty.rules.OneFiftyState` is the rules engine; this module is
its twin in numba, move for move, for the loop training runs most: a learner's move, then
the other seats' moves until it is the learner's turn again, where the other seats are
``random`` or ``random_no_call`` (a uniform choice from the mask). In Python that loop is
about five moves of rules, logging and bookkeeping per learner step, each a few
microseconds; compiled, the whole loop is one call (see
:mod:`cardenv.train.compiled_seats`, which drives it, and docs/performance.md).

The twin keeps what the observation and the rewards read — the table (hands as slot rows,
piles, held cards), who knows what (``known``, ``learned_at``, ``decided_at``), the public
event records (the same integer records :func:`cardenv.core.events.append_event_record`
writes), scores, phase and turn bookkeeping, and every action applied — and nothing else
(no event texts, no round results beyond their points): the Python state is rebuilt from
the actions where someone reads it. Every random outcome is the one numpy would draw from
the same generators: the shuffles as ``Generator.shuffle`` on a list, a seat as
``Generator.integers``, a random seat's choice as :func:`cardenv.agents.base.uniform_choice`
— each from a buffer of the generator's next 32-bit outputs (``next_uint32``, filled by
the driver), so the games are those of the Python engine, draw for draw.
``tests/test_compiled_seats.py`` plays the two side by side.

Rule ids are those of docs/onefifty.md.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import JACK, KING, QUEEN
from cardenv.games.observation_kernels import compiled

# --- the state's scalars: entries of ``scalars`` -----------------------------------------
(CLOCK, DRAW_LEN, DISCARD_LEN, PHASE, CURRENT, CALLER, FINAL_TURNS_LEFT, TURNS, SELECTED_LEN, JACK_SLOT,
 STARTER, ROUND_INDEX, TERMINAL, TRUNCATED, ROUNDS_PLAYED, EVENTS_LEN, ACTIONS_LEN, ROUNDS_ENDED,
 LEARNER_ROUNDS_ENDED, STATUS, NUM_SCALARS) = range(21)
NONE = -1  # no current player, caller, held card; an empty slot (cardenv.core.table.EMPTY)

# --- the configuration: entries of ``setup`` -----------------------------------------------
(NUM_PLAYERS, MAX_SLOTS, NUM_CARDS, TARGET_SCORE, MAX_TURNS, SINGLE_ROUND, MAX_ROUNDS, INITIAL_SLOTS,
 FIRST_STARTER, FIRST_MATCH_SELECT, MATCH_CONFIRM, DRAW, FIRST_TAKE, CALL, PASS, FIRST_SWAP, DISCARD,
 FIRST_JACK_OWN, FIRST_JACK_TARGET, FIRST_QUEEN_PEEK, EVENT_CALL, EVENT_PENALTY, EVENT_SWAP, EVENT_DISCARD,
 EVENT_ROUND_END, EVENT_TAKE, EVENT_MATCH, EVENT_FAILED_MATCH, EVENT_JACK, EVENT_QUEEN, NUM_SETUP) = range(31)

# Action kinds (``kind_of`` per action id), in the order of the action table.
(MATCH_SELECT_KIND, MATCH_CONFIRM_KIND, DRAW_KIND, TAKE_KIND, CALL_KIND, PASS_KIND, SWAP_KIND, DISCARD_KIND,
 JACK_OWN_KIND, JACK_TARGET_KIND, QUEEN_PEEK_KIND) = range(11)
KIND_NAMES = ("match_select", "match_confirm", "draw", "take", "call", "pass", "swap", "discard", "jack_own",
              "jack_target", "queen_peek")

# Phases (cardenv.games.onefifty.rules.Phase).
MAIN, MATCH_SELECT, DRAWN, JACK_OWN, JACK_TARGET, QUEEN_PEEK, AFTER_ACTION, GAME_OVER = range(8)

# Who plays a seat (``seat_kinds``).
LEARNER, RANDOM, RANDOM_NO_CALL = range(3)

# What :func:`play` stopped for: done; room running short (a generator's buffered draws,
# the event records, the actions or the rounds' points) before a seat's move (the
# learner's move made, if any); or before the learner's move (nothing done).
DONE, NEEDS_ROOM, NEEDS_ROOM_FIRST = range(3)
# The fewest buffered draws a move may start with: a move shuffles at most twice (a
# reshuffle of the discards and the next round's deal), and a shuffle of n cards takes
# about 1.4 draws a card, rarely more than 2.
DRAWS_PER_MOVE = 512
# The fewest free event record entries a move may start with: a move logs at most three
# records, the largest the round's end (every card in the hands: 6 + 64 × 6 entries).
EVENTS_PER_MOVE = 1024
GAME_DRAWS = 0  # row of the game's generator in ``draws``; a seat draws from its agent's row (``seat_rows``)


# --- random outcomes, as numpy draws them ----------------------------------------------------
@compiled(inline=True)
def next_uint32(draws: np.ndarray, drawn: np.ndarray, row: int) -> int:
    position = drawn[row]
    drawn[row] = position + 1
    return np.int64(draws[row, position])


@compiled
def random_interval(draws: np.ndarray, drawn: np.ndarray, row: int, high: int) -> int:
    """numpy's ``random_interval(bitgen, high)`` for high < 2**32: a value in [0, high] by
    rejection under the smallest all-ones mask (what ``Generator.shuffle`` draws)."""
    if high == 0:
        return 0
    mask = high
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    while True:
        value = next_uint32(draws, drawn, row) & mask
        if value <= high:
            return value


@compiled
def bounded(draws: np.ndarray, drawn: np.ndarray, row: int, n: int) -> int:
    """``Generator.integers(n)`` for 1 <= n < 2**31 (cardenv.core.chance.draw_index)."""
    if n == 1:
        return 0
    scaled = next_uint32(draws, drawn, row) * n
    leftover = scaled & 0xFFFFFFFF
    if leftover < n:
        threshold = (0x100000000 - n) % n
        while leftover < threshold:
            scaled = next_uint32(draws, drawn, row) * n
            leftover = scaled & 0xFFFFFFFF
    return scaled >> 32


@compiled
def shuffle(cards: np.ndarray, count: int, draws: np.ndarray, drawn: np.ndarray) -> None:
    """``Generator.shuffle`` of the list ``cards[:count]``, from the game's generator."""
    for i in range(count - 1, 0, -1):
        j = random_interval(draws, drawn, GAME_DRAWS, i)
        cards[i], cards[j] = cards[j], cards[i]


# --- the event records ------------------------------------------------------------------
@compiled(inline=True)
def push(events: np.ndarray, scalars: np.ndarray, value: int) -> None:
    events[scalars[EVENTS_LEN]] = value
    scalars[EVENTS_LEN] += 1


@compiled
def log_event(events, scalars, kind, player, seat_a, slot_a, seat_b, slot_b, face_card, card_types) -> None:
    """One record: up to two places (``seat_b`` NONE for one, ``seat_a`` NONE for none) and
    at most one card face up (``face_card`` NONE for none)."""
    start = scalars[EVENTS_LEN]
    push(events, scalars, scalars[CLOCK])
    push(events, scalars, kind)
    push(events, scalars, player)
    places = 0 if seat_a == NONE else (1 if seat_b == NONE else 2)
    push(events, scalars, places)
    if places >= 1:
        push(events, scalars, seat_a)
        push(events, scalars, slot_a)
    if places == 2:
        push(events, scalars, seat_b)
        push(events, scalars, slot_b)
    if face_card == NONE:
        push(events, scalars, 0)
    else:
        push(events, scalars, 1)
        push(events, scalars, card_types[face_card])
    push(events, scalars, scalars[EVENTS_LEN] - start + 1)


@compiled
def log_slots_face_up(events, scalars, kind, player, slots, count, cards, card_types) -> None:
    """A match or failed match: the places (player, slot) and the cards face up."""
    start = scalars[EVENTS_LEN]
    push(events, scalars, scalars[CLOCK])
    push(events, scalars, kind)
    push(events, scalars, player)
    push(events, scalars, count)
    for i in range(count):
        push(events, scalars, player)
        push(events, scalars, slots[i])
    push(events, scalars, count)
    for i in range(count):
        push(events, scalars, card_types[cards[i]])
    push(events, scalars, scalars[EVENTS_LEN] - start + 1)


# --- knowledge ---------------------------------------------------------------------------
@compiled(inline=True)
def reveal(known, learned_at, scalars, player, card) -> None:
    known[player, card] = True
    learned_at[player, card] = scalars[CLOCK]


@compiled(inline=True)
def reveal_to_all(known, learned_at, scalars, card) -> None:
    for p in range(known.shape[0]):
        known[p, card] = True
        learned_at[p, card] = scalars[CLOCK]


@compiled(inline=True)
def forget(known, learned_at, card) -> None:
    for p in range(known.shape[0]):
        known[p, card] = False
        learned_at[p, card] = -1


# --- the game ----------------------------------------------------------------------------
@compiled(inline=True)
def discard_face_up(discard_pile, scalars, known, learned_at, card) -> None:
    discard_pile[scalars[DISCARD_LEN]] = card
    scalars[DISCARD_LEN] += 1
    reveal_to_all(known, learned_at, scalars, card)


@compiled
def num_occupied(hands, hand_len, player) -> int:
    count = 0
    for s in range(hand_len[player]):
        if hands[player, s] != NONE:
            count += 1
    return count


@compiled
def draw_card(setup, scalars, draw_pile, discard_pile, known, learned_at, draws, drawn) -> int:
    """The top card of the draw pile, the discards (all but the top one) reshuffled into it
    when it is empty (O-17 reads NONE: nothing can be drawn)."""
    if scalars[DRAW_LEN] == 0:
        count = scalars[DISCARD_LEN] - 1
        if count >= 1:
            top = discard_pile[count]
            for i in range(count):
                draw_pile[i] = discard_pile[i]
            discard_pile[0] = top
            scalars[DISCARD_LEN] = 1
            shuffle(draw_pile, count, draws, drawn)
            for i in range(count):
                forget(known, learned_at, draw_pile[i])
            scalars[DRAW_LEN] = count
        if scalars[DRAW_LEN] == 0:
            return NONE
    scalars[DRAW_LEN] -= 1
    return draw_pile[scalars[DRAW_LEN]]


@compiled
def start_round(setup, scalars, card_types, points, hands, hand_len, held, draw_pile, discard_pile, known,
                learned_at, scores, draws, drawn) -> None:
    """O-04, O-05: gather, shuffle and deal, each player seeing their bottom row; O-06:
    the starter."""
    n, num_cards = setup[NUM_PLAYERS], setup[NUM_CARDS]
    for i in range(num_cards):
        draw_pile[i] = i
    shuffle(draw_pile, num_cards, draws, drawn)
    scalars[DRAW_LEN] = num_cards
    scalars[DISCARD_LEN] = 0
    hands[:] = NONE
    hand_len[:] = 0
    held[:] = NONE
    known[:] = False
    learned_at[:] = -1
    for _ in range(setup[INITIAL_SLOTS]):
        for p in range(n):
            scalars[DRAW_LEN] -= 1
            hands[p, hand_len[p]] = draw_pile[scalars[DRAW_LEN]]
            hand_len[p] += 1
    for p in range(n):
        for s in range(setup[INITIAL_SLOTS] // 2, setup[INITIAL_SLOTS]):
            if s < hand_len[p] and hands[p, s] != NONE:
                reveal(known, learned_at, scalars, p, hands[p, s])
    scalars[TURNS] = 0
    scalars[CALLER] = NONE
    scalars[FINAL_TURNS_LEFT] = 0
    if scalars[ROUND_INDEX] == 0:
        first = setup[FIRST_STARTER]
        starter = first if first >= 0 else bounded(draws, drawn, GAME_DRAWS, n)
    else:  # the first player clockwise after the last starter among the lowest scores
        best = scores[0]
        for p in range(n):
            best = min(best, scores[p])
        starter = scalars[STARTER]
        for step in range(1, n + 1):
            seat = (scalars[STARTER] + step) % n
            if scores[seat] == best:
                starter = seat
                break
    scalars[STARTER] = starter
    scalars[CURRENT] = starter
    scalars[PHASE] = MAIN
    scalars[SELECTED_LEN] = 0
    scalars[JACK_SLOT] = NONE


@compiled
def new_game(setup, scalars, card_types, points, hands, hand_len, held, draw_pile, discard_pile, known,
             learned_at, decided_at, scores, events, draws, drawn) -> None:
    scalars[:] = 0
    scalars[CURRENT] = NONE
    scalars[CALLER] = NONE
    scalars[JACK_SLOT] = NONE
    decided_at[:] = -1
    scores[:] = 0
    start_round(setup, scalars, card_types, points, hands, hand_len, held, draw_pile, discard_pile, known,
                learned_at, scores, draws, drawn)


@compiled
def end_round(setup, scalars, card_types, points, hands, hand_len, held, draw_pile, discard_pile, known,
              learned_at, scores, events, round_points, draws, drawn) -> None:
    """O-19, O-20: score the round, show every hand, then deal the next round or end the
    game (O-22; ``single_round``, ``max_rounds``)."""
    n = setup[NUM_PLAYERS]
    scalars[PHASE] = MAIN
    scalars[SELECTED_LEN] = 0
    totals = np.zeros(n, dtype=np.int64)
    for p in range(n):
        for s in range(hand_len[p]):
            if hands[p, s] != NONE:
                totals[p] += points[hands[p, s]]
    row = scalars[ROUNDS_ENDED]
    caller = scalars[CALLER]
    if caller != NONE:  # O-19
        caller_total = totals[caller]
        caller_lowest = True
        for p in range(n):
            if p != caller and totals[p] <= caller_total:
                caller_lowest = False
        for p in range(n):
            if caller_lowest:
                round_points[row, p] = 0 if p == caller else totals[p]
            elif p == caller:
                round_points[row, p] = 2 * totals[p]
            else:
                round_points[row, p] = 0 if totals[p] < caller_total else totals[p]
    else:  # O-20
        best = totals[0]
        for p in range(n):
            best = min(best, totals[p])
        for p in range(n):
            round_points[row, p] = 0 if totals[p] == best else totals[p]
    scalars[ROUNDS_ENDED] = row + 1
    highest = 0
    for p in range(n):
        scores[p] += round_points[row, p]
        highest = max(highest, scores[p])
    # Every hand shown, grouped by player: one public record with every card face up.
    start = scalars[EVENTS_LEN]
    push(events, scalars, scalars[CLOCK])
    push(events, scalars, setup[EVENT_ROUND_END])
    push(events, scalars, -1)
    push(events, scalars, 0)
    count_at = scalars[EVENTS_LEN]
    push(events, scalars, 0)
    count = 0
    for p in range(n):
        for s in range(hand_len[p]):
            card = hands[p, s]
            if card != NONE:
                reveal_to_all(known, learned_at, scalars, card)
                push(events, scalars, card_types[card])
                count += 1
    events[count_at] = count
    push(events, scalars, scalars[EVENTS_LEN] - start + 1)
    scalars[ROUNDS_PLAYED] += 1
    if highest >= setup[TARGET_SCORE] or setup[SINGLE_ROUND]:
        scalars[TERMINAL] = 1
    elif setup[MAX_ROUNDS] >= 0 and scalars[ROUNDS_PLAYED] >= setup[MAX_ROUNDS]:
        scalars[TRUNCATED] = 1
        scalars[TERMINAL] = 1
    else:
        scalars[ROUND_INDEX] += 1
        start_round(setup, scalars, card_types, points, hands, hand_len, held, draw_pile, discard_pile, known,
                    learned_at, scores, draws, drawn)
    if scalars[TERMINAL]:
        scalars[CURRENT] = NONE
        scalars[PHASE] = GAME_OVER


@compiled
def fill_legal_mask(setup, scalars, hands, hand_len, selected, mask) -> None:
    mask[:] = 0
    if scalars[TERMINAL]:
        return
    p = scalars[CURRENT]
    n, phase = setup[NUM_PLAYERS], scalars[PHASE]
    if phase == MAIN:
        if scalars[DISCARD_LEN] > 0:
            for s in range(hand_len[p]):
                if hands[p, s] != NONE:
                    if hand_len[p] < setup[MAX_SLOTS]:  # room for a penalty slot
                        mask[setup[FIRST_MATCH_SELECT] + s] = 1
                    mask[setup[FIRST_TAKE] + s] = 1
        mask[setup[DRAW]] = 1
        if scalars[CALLER] == NONE:
            mask[setup[CALL]] = 1
    elif phase == MATCH_SELECT:
        for s in range(hand_len[p]):
            if hands[p, s] != NONE:
                chosen = False
                for i in range(scalars[SELECTED_LEN]):
                    if selected[i] == s:
                        chosen = True
                if not chosen:
                    mask[setup[FIRST_MATCH_SELECT] + s] = 1
        mask[setup[MATCH_CONFIRM]] = 1
    elif phase == DRAWN:
        for s in range(hand_len[p]):
            if hands[p, s] != NONE:
                mask[setup[FIRST_SWAP] + s] = 1
        mask[setup[DISCARD]] = 1
    elif phase == JACK_OWN or phase == QUEEN_PEEK:
        first = setup[FIRST_JACK_OWN] if phase == JACK_OWN else setup[FIRST_QUEEN_PEEK]
        for s in range(hand_len[p]):
            if hands[p, s] != NONE:
                mask[first + s] = 1
    elif phase == JACK_TARGET:
        slots = setup[MAX_SLOTS]
        for offset in range(1, n):
            target = (p + offset) % n
            for s in range(hand_len[target]):
                if hands[target, s] != NONE:
                    mask[setup[FIRST_JACK_TARGET] + (offset - 1) * slots + s] = 1
    elif phase == AFTER_ACTION:
        mask[setup[PASS]] = 1
        if scalars[CALLER] == NONE:
            mask[setup[CALL]] = 1


@compiled
def apply(action, setup, scalars, kind_of, slot_of, offset_of, card_types, ranks, points, hands, hand_len,
          held, draw_pile, discard_pile, known, learned_at, decided_at, scores, selected, events, actions,
          round_points, draws, drawn) -> None:
    """The current player's (legal) ``action``, as ``OneFiftyState.apply`` plays it."""
    n = setup[NUM_PLAYERS]
    p = scalars[CURRENT]
    actions[scalars[ACTIONS_LEN]] = action
    scalars[ACTIONS_LEN] += 1
    scalars[CLOCK] += 1
    decided_at[p] = scalars[CLOCK]
    kind, slot = kind_of[action], slot_of[action]
    main_action_done = False
    turn_over = False
    round_over = False
    if kind == MATCH_SELECT_KIND:  # O-07
        selected[scalars[SELECTED_LEN]] = slot
        scalars[SELECTED_LEN] += 1
        scalars[PHASE] = MATCH_SELECT
    elif kind == MATCH_CONFIRM_KIND:  # O-07
        count = scalars[SELECTED_LEN]
        slots = selected[:count].copy()
        cards = np.empty(count, dtype=np.int64)
        top_rank = ranks[discard_pile[scalars[DISCARD_LEN] - 1]]
        right = True
        for i in range(count):
            cards[i] = hands[p, slots[i]]
            if ranks[cards[i]] != top_rank:
                right = False
        scalars[SELECTED_LEN] = 0
        if right:
            for i in range(count):
                hands[p, slots[i]] = NONE
                discard_face_up(discard_pile, scalars, known, learned_at, cards[i])
            log_slots_face_up(events, scalars, setup[EVENT_MATCH], p, slots, count, cards, card_types)
            if num_occupied(hands, hand_len, p) == 0:  # O-16
                round_over = True
            else:
                main_action_done = True
        else:
            for i in range(count):
                reveal_to_all(known, learned_at, scalars, cards[i])
            log_slots_face_up(events, scalars, setup[EVENT_FAILED_MATCH], p, slots, count, cards, card_types)
            penalty = draw_card(setup, scalars, draw_pile, discard_pile, known, learned_at, draws, drawn)
            if penalty == NONE:  # O-17
                round_over = True
            else:  # a penalty card, face down, in a new slot
                new_slot = hand_len[p]
                hands[p, new_slot] = penalty
                hand_len[p] += 1
                log_event(events, scalars, setup[EVENT_PENALTY], p, p, new_slot, NONE, 0, NONE, card_types)
                main_action_done = True
    elif kind == DRAW_KIND:  # O-08
        card = draw_card(setup, scalars, draw_pile, discard_pile, known, learned_at, draws, drawn)
        if card == NONE:  # O-17
            round_over = True
        else:
            held[p] = card
            reveal(known, learned_at, scalars, p, card)
            scalars[PHASE] = DRAWN
    elif kind == TAKE_KIND:  # O-09
        scalars[DISCARD_LEN] -= 1
        taken = discard_pile[scalars[DISCARD_LEN]]
        replaced = hands[p, slot]
        hands[p, slot] = taken
        discard_face_up(discard_pile, scalars, known, learned_at, replaced)
        log_event(events, scalars, setup[EVENT_TAKE], p, p, slot, NONE, 0, taken, card_types)
        log_event(events, scalars, setup[EVENT_DISCARD], p, p, slot, NONE, 0, replaced, card_types)
        main_action_done = True
    elif kind == CALL_KIND:  # O-10
        scalars[CALLER] = p
        scalars[FINAL_TURNS_LEFT] = n - 1
        log_event(events, scalars, setup[EVENT_CALL], p, NONE, 0, NONE, 0, NONE, card_types)
        turn_over = True
    elif kind == PASS_KIND:  # O-10a
        turn_over = True
    elif kind == SWAP_KIND:  # O-08
        card = held[p]
        held[p] = NONE
        replaced = hands[p, slot]
        hands[p, slot] = card
        discard_face_up(discard_pile, scalars, known, learned_at, replaced)
        log_event(events, scalars, setup[EVENT_SWAP], p, p, slot, NONE, 0, NONE, card_types)
        log_event(events, scalars, setup[EVENT_DISCARD], p, p, slot, NONE, 0, replaced, card_types)
        main_action_done = True
    elif kind == DISCARD_KIND:  # O-08; the powers O-11 … O-13
        card = held[p]
        held[p] = NONE
        discard_face_up(discard_pile, scalars, known, learned_at, card)
        log_event(events, scalars, setup[EVENT_DISCARD], p, NONE, 0, NONE, 0, card, card_types)
        rank = ranks[card]
        has_own = num_occupied(hands, hand_len, p) > 0
        opponent_has_card = False
        for q in range(n):
            if q != p and num_occupied(hands, hand_len, q) > 0:
                opponent_has_card = True
        if rank == JACK and has_own and opponent_has_card:
            scalars[PHASE] = JACK_OWN
        elif rank == QUEEN and has_own:
            scalars[PHASE] = QUEEN_PEEK
        elif rank == KING:  # O-13: draw again, a fresh draw
            card = draw_card(setup, scalars, draw_pile, discard_pile, known, learned_at, draws, drawn)
            if card == NONE:
                round_over = True
            else:
                held[p] = card
                reveal(known, learned_at, scalars, p, card)
                scalars[PHASE] = DRAWN
        else:
            main_action_done = True
    elif kind == JACK_OWN_KIND:  # O-11
        scalars[JACK_SLOT] = slot
        scalars[PHASE] = JACK_TARGET
    elif kind == JACK_TARGET_KIND:  # O-11
        target = (p + offset_of[action]) % n
        own = scalars[JACK_SLOT]
        hands[p, own], hands[target, slot] = hands[target, slot], hands[p, own]
        reveal(known, learned_at, scalars, p, hands[p, own])
        log_event(events, scalars, setup[EVENT_JACK], p, p, own, target, slot, NONE, card_types)
        scalars[JACK_SLOT] = NONE
        main_action_done = True
    elif kind == QUEEN_PEEK_KIND:  # O-12
        reveal(known, learned_at, scalars, p, hands[p, slot])
        log_event(events, scalars, setup[EVENT_QUEEN], p, p, slot, NONE, 0, NONE, card_types)
        main_action_done = True
    if main_action_done:
        # O-10a: with a call in progress, passing is the only choice, so it is not asked.
        if scalars[CALLER] == NONE:
            scalars[PHASE] = AFTER_ACTION
        else:
            turn_over = True
    if turn_over:  # O-15, O-18
        scalars[TURNS] += 1
        caller = scalars[CALLER]
        if caller != NONE and p != caller:
            scalars[FINAL_TURNS_LEFT] -= 1
        if caller != NONE and scalars[FINAL_TURNS_LEFT] == 0:
            round_over = True
        elif scalars[TURNS] >= setup[MAX_TURNS]:
            round_over = True
        else:
            scalars[CURRENT] = (p + 1) % n
            scalars[PHASE] = MAIN
    if round_over:
        end_round(setup, scalars, card_types, points, hands, hand_len, held, draw_pile, discard_pile, known,
                  learned_at, scores, events, round_points, draws, drawn)


@compiled
def choose(seat_kind, mask, call_id, draws, drawn, row) -> int:
    """A random seat's choice: uniform over the legal actions (without the call for
    random_no_call, unless only the call is legal), as ``uniform_choice`` draws it."""
    count = 0
    for a in range(mask.shape[0]):
        if mask[a] and not (seat_kind == RANDOM_NO_CALL and a == call_id):
            count += 1
    use_all = count == 0
    if use_all:
        for a in range(mask.shape[0]):
            if mask[a]:
                count += 1
    index = bounded(draws, drawn, row, count)
    for a in range(mask.shape[0]):
        if mask[a] and (use_all or not (seat_kind == RANDOM_NO_CALL and a == call_id)):
            if index == 0:
                return a
            index -= 1
    return -1


@compiled(inline=True)
def short_of_room(scalars, drawn, row, draws_per_row, events, actions, round_points) -> bool:
    """Whether a move could run out of buffered draws (the game's or ``row``'s), event
    record entries, action entries or rows of round points."""
    return (drawn[GAME_DRAWS] > draws_per_row - DRAWS_PER_MOVE or drawn[row] > draws_per_row - DRAWS_PER_MOVE
            or scalars[EVENTS_LEN] > events.shape[0] - EVENTS_PER_MOVE or scalars[ACTIONS_LEN] >= actions.shape[0]
            or scalars[ROUNDS_ENDED] >= round_points.shape[0])


@compiled
def play(action, learner, seat_kinds, seat_rows, setup, scalars, kind_of, slot_of, offset_of, card_types, ranks, points,
         hands, hand_len, held, draw_pile, discard_pile, known, learned_at, decided_at, scores, selected, events,
         actions, round_points, draws, drawn, mask, hands_flat) -> int:
    """Apply ``learner``'s ``action`` (none when negative), then the other seats' moves
    until the learner is to act or the game is over; leave the learner's legal mask in
    ``mask`` and every hand in ``hands_flat`` (each hand's length, then its cards, seat
    after seat: what the observation kernel reads). Returns DONE, or NEEDS_ROOM(_FIRST)
    before a move that could run out of room (the driver makes more and calls again, with
    no action unless the learner's was not made); the status is also left in
    ``scalars[STATUS]``."""
    draws_per_row = draws.shape[1]
    if action >= 0:
        if short_of_room(scalars, drawn, GAME_DRAWS, draws_per_row, events, actions, round_points):
            scalars[STATUS] = NEEDS_ROOM_FIRST
            return NEEDS_ROOM_FIRST
        apply(action, setup, scalars, kind_of, slot_of, offset_of, card_types, ranks, points, hands, hand_len,
              held, draw_pile, discard_pile, known, learned_at, decided_at, scores, selected, events, actions,
              round_points, draws, drawn)
        scalars[LEARNER_ROUNDS_ENDED] = scalars[ROUNDS_ENDED]
    while not scalars[TERMINAL] and scalars[CURRENT] != learner:
        seat = scalars[CURRENT]
        row = seat_rows[seat]
        if short_of_room(scalars, drawn, row, draws_per_row, events, actions, round_points):
            scalars[STATUS] = NEEDS_ROOM
            return NEEDS_ROOM
        fill_legal_mask(setup, scalars, hands, hand_len, selected, mask)
        choice = choose(seat_kinds[seat], mask, setup[CALL], draws, drawn, row)
        apply(choice, setup, scalars, kind_of, slot_of, offset_of, card_types, ranks, points, hands, hand_len,
              held, draw_pile, discard_pile, known, learned_at, decided_at, scores, selected, events, actions,
              round_points, draws, drawn)
    fill_legal_mask(setup, scalars, hands, hand_len, selected, mask)
    i = 0
    for p in range(setup[NUM_PLAYERS]):
        hands_flat[i] = hand_len[p]
        i += 1
        for s in range(hand_len[p]):
            hands_flat[i] = hands[p, s]
            i += 1
    scalars[STATUS] = DONE
    return DONE
