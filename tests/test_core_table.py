"""Core: the card table (piles, hands, slots), the knowledge table with its memory
models, and information-set sampling."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardenv.core.cards import double_deck_with_jokers, parse_card, parse_cards, standard_deck
from cardenv.core.knowledge import Knowledge
from cardenv.core.table import EMPTY, CardTable


def fresh_table(num_players=3, seed=0, deck=None):
    table = CardTable(standard_deck() if deck is None else deck, num_players)
    table.gather_and_shuffle(np.random.default_rng(seed))
    return table


def names(table, cards):
    from cardenv.core.cards import card_name

    return [card_name(table.type_of(c)) for c in cards]


# --- drawing, dealing, the discard pile ---------------------------------------------------
def test_new_table_has_every_card_in_the_draw_pile():
    table = CardTable(standard_deck(), 4)
    assert sorted(table.draw_pile) == list(range(52))
    table.check_every_card_once()
    assert not table.knowledge.known.any()


def test_shuffle_depends_on_seed_only():
    a, b, c = fresh_table(seed=1), fresh_table(seed=1), fresh_table(seed=2)
    assert a.draw_pile == b.draw_pile
    assert a.draw_pile != c.draw_pile
    assert sorted(a.draw_pile) == list(range(52))


def test_deal_and_draw():
    table = fresh_table(num_players=3)
    order = list(reversed(table.draw_pile))  # the order cards come off the top
    table.deal(2)
    # one at a time, clockwise from player 0
    assert table.hands == [[order[0], order[3]], [order[1], order[4]], [order[2], order[5]]]
    card = table.draw(np.random.default_rng(0))
    assert card == order[6]
    table.held[0].append(card)
    table.check_every_card_once()
    assert len(table.draw_pile) == 52 - 7


def test_discard_face_up_reveals_to_all():
    table = fresh_table()
    card = table.draw(np.random.default_rng(0))
    table.discard_face_up(card)
    assert table.top_discard == card
    assert table.knowledge.known[:, card].all()


def test_reshuffle_keeps_top_and_makes_everyone_forget():
    rng = np.random.default_rng(5)
    table = fresh_table(num_players=3)
    table.deal(4)
    for _ in range(len(table.draw_pile)):
        table.discard_face_up(table.draw_pile.pop())
    top = table.top_discard
    below = table.discard_pile[:-1]
    # player 1 also peeked at a hand card; that knowledge must survive
    hand_card = table.hands[1][0]
    table.knowledge.reveal(1, hand_card)
    assert table.draw_pile == [] and table.knowledge.known[:, below].all()

    card = table.draw(rng)
    assert table.discard_pile == [top]
    assert table.knowledge.known[:, top].all()
    assert sorted(table.draw_pile + [card]) == sorted(below)
    assert not table.knowledge.known[:, below].any(), "reshuffled cards are forgotten by all"
    assert (table.knowledge.learned_at[:, below] == -1).all()
    assert table.knowledge.known[1, hand_card]
    table.held[0].append(card)
    table.check_every_card_once()


def test_reshuffle_order_is_seeded():
    def reshuffled(seed):
        table = fresh_table(seed=0)
        while table.draw_pile:
            table.discard_face_up(table.draw_pile.pop())
        table.reshuffle_discards(np.random.default_rng(seed))
        return table.draw_pile

    assert reshuffled(3) == reshuffled(3)
    assert reshuffled(3) != reshuffled(4)


def test_nothing_to_draw():
    table = fresh_table(num_players=3)
    table.deal(17)  # 51 cards in hands
    table.discard_face_up(table.draw_pile.pop())
    assert table.draw_pile == [] and len(table.discard_pile) == 1
    assert not table.can_draw()
    assert table.draw(np.random.default_rng(0)) is None
    assert len(table.discard_pile) == 1
    table.check_every_card_once()


def test_can_draw():
    table = fresh_table(num_players=3)
    assert table.can_draw()
    table.deal(16)  # 48 in hands, 4 left
    for _ in range(3):
        table.discard_face_up(table.draw_pile.pop())
    assert table.can_draw()  # one in the draw pile
    table.discard_face_up(table.draw_pile.pop())
    assert table.can_draw()  # four discards: three can be reshuffled


# --- slots ---------------------------------------------------------------------------------
def test_slots_empty_in_place_and_grow():
    table = fresh_table(num_players=3)
    table.deal(4)
    c1 = table.take_from_slot(0, 1)
    assert table.hands[0][1] == EMPTY
    assert len(table.hands[0]) == 4 and table.num_occupied(0) == 3
    assert table.occupied_slots(0) == [0, 2, 3]
    assert not table.is_occupied(0, 1) and table.is_occupied(0, 2)
    assert not table.is_occupied(0, 4) and not table.is_occupied(0, -1)
    with pytest.raises(ValueError, match="empty"):
        table.take_from_slot(0, 1)
    table.discard_face_up(c1)
    new = table.draw_pile.pop()
    assert table.append_slot(0, new) == 4
    assert table.hands[0][4] == new and table.num_occupied(0) == 4
    assert table.cards_in_hand(0) == [c for c in table.hands[0] if c != EMPTY]
    table.check_every_card_once()


def test_first_empty_or_new_slot():
    table = fresh_table(num_players=3)
    table.deal(4)
    a = table.take_from_slot(1, 2)
    b = table.take_from_slot(1, 0)
    assert table.first_empty_or_new_slot(1, a) == 0
    assert table.first_empty_or_new_slot(1, b) == 2
    c = table.draw_pile.pop()
    assert table.first_empty_or_new_slot(1, c) == 4  # no empty slot left: a new one
    assert table.hands[1][0] == a and table.hands[1][2] == b and table.hands[1][4] == c
    table.check_every_card_once()


def test_put_and_replace():
    table = fresh_table(num_players=3)
    table.deal(4)
    card = table.draw_pile.pop()
    with pytest.raises(ValueError, match="occupied"):
        table.put_in_slot(0, 0, card)
    old = table.replace_in_slot(0, 0, card)
    assert table.hands[0][0] == card
    table.discard_face_up(old)
    table.check_every_card_once()
    emptied = table.take_from_slot(2, 3)
    table.put_in_slot(2, 3, emptied)
    assert table.hands[2][3] == emptied


def test_swap_slots_moves_cards_and_knowledge_follows_the_card():
    table = fresh_table(num_players=3)
    table.deal(4)
    a, b = table.hands[0][1], table.hands[2][3]
    table.knowledge.reveal(0, a)
    table.swap_slots(0, 1, 2, 3)
    assert table.hands[0][1] == b and table.hands[2][3] == a
    assert table.knowledge.knows(0, a) and not table.knowledge.knows(0, b)
    table.swap_slots(1, 0, 1, 2)  # within one hand
    table.check_every_card_once()


def test_close_gaps_moves_the_later_cards_up_in_order_and_keeps_other_gaps():
    table = fresh_table(num_players=2)
    table.deal(6)
    hand = table.hands[0]
    a, b, c = hand[1], hand[3], hand[5]
    for slot in (0, 2, 4):
        table.discard_face_up(table.take_from_slot(0, slot))
    # Close the gaps at 2 and 4; the one at 0 stays where it is.
    assert table.close_gaps(0, [4, 2]) == [(3, 2), (5, 3)]
    assert table.hands[0] == [EMPTY, a, b, c, EMPTY, EMPTY]
    with pytest.raises(ValueError, match="not all empty"):
        table.close_gaps(0, [1])
    table.check_every_card_once()


def test_arrange_lays_out_a_scenario():
    table = CardTable(standard_deck(), 3)
    rng = np.random.default_rng(0)
    table.arrange(rng, [parse_cards("AS 2S"), parse_cards("10H"), []], parse_cards("KD QD"), parse_cards("3C 4C"))
    assert names(table, table.hands[0]) == ["AS", "2S"]
    assert names(table, table.hands[1]) == ["10H"] and table.hands[2] == []
    assert names(table, table.discard_pile) == ["3C", "4C"]
    assert names(table, table.draw_pile[-2:]) == ["QD", "KD"]  # top last: KD on top
    assert len(table.draw_pile) == 52 - 5  # 3 in hands, 2 discarded
    known = table.knowledge.known
    assert known[:, table.discard_pile].all()
    assert known.sum() == 3 * 2, "only the face-up discards are known"
    table.check_every_card_once()


def test_arrange_with_two_decks_places_both_copies():
    table = CardTable(double_deck_with_jokers(), 3)
    table.arrange(np.random.default_rng(0), [parse_cards("AS AS RJ"), parse_cards("RJ"), []])
    assert names(table, table.hands[0]) == ["AS", "AS", "RJ"]
    assert table.hands[0][0] != table.hands[0][1]
    with pytest.raises(ValueError, match="no copy"):
        table.arrange(np.random.default_rng(0), [parse_cards("AS AS AS"), [], []])
    table.check_every_card_once()


def test_arrange_rejects_wrong_number_of_hands_and_duplicates():
    table = CardTable(standard_deck(), 3)
    with pytest.raises(ValueError, match="expected 3 hands"):
        table.arrange(np.random.default_rng(0), [[0], [1]])
    with pytest.raises(ValueError, match="no copy"):
        table.arrange(np.random.default_rng(0), [[0], [0], []])


def test_check_every_card_once_catches_duplicates_and_missing():
    table = fresh_table(num_players=3)
    table.deal(4)
    table.check_every_card_once()

    dup = table.clone()
    dup.hands[0][0] = dup.hands[1][0]  # card of slot 0 gone, card of player 1 twice
    with pytest.raises(AssertionError) as err:
        dup.check_every_card_once()
    assert str(table.hands[0][0]) in str(err.value) and str(table.hands[1][0]) in str(err.value)

    missing = table.clone()
    lost = missing.draw_pile.pop()
    with pytest.raises(AssertionError, match=rf"missing: \[{lost}\]"):
        missing.check_every_card_once()

    held_too = table.clone()
    held_too.held[2].append(held_too.hands[2][0])
    with pytest.raises(AssertionError, match="several places"):
        held_too.check_every_card_once()

    in_pile_twice = table.clone()
    in_pile_twice.discard_pile.append(in_pile_twice.draw_pile[0])
    with pytest.raises(AssertionError):
        in_pile_twice.check_every_card_once()


def test_clone_is_deep():
    table = fresh_table(num_players=3)
    table.deal(4)
    other = table.clone()
    other.hands[0][0] = EMPTY
    other.draw_pile.pop()
    other.knowledge.reveal(1, 0)
    other.card_types[0] = 7
    assert table.hands[0][0] != EMPTY and len(table.draw_pile) == 40
    assert not table.knowledge.known[1, 0] and table.card_types[0] == 0


def test_locations_lists_every_zone():
    table = fresh_table(num_players=3)
    table.deal(1)
    table.discard_face_up(table.draw_pile.pop())
    table.held[1].append(table.draw_pile.pop())
    zones = Counter(zone for zone, *_ in table.locations())
    assert zones == {"draw": 47, "discard": 1, "hand": 3, "held": 1}


# --- knowledge and memory models -------------------------------------------------------------
def test_reveal_forget_and_reveal_to_all():
    k = Knowledge(3, 10)
    k.reveal(1, 4)
    k.reveal(1, [5, 6])
    assert k.knows(1, 4) and k.knows(1, 6) and not k.knows(0, 4)
    k.reveal_to_all([7])
    assert k.known[:, 7].all()
    k.forget([4, 7])
    assert not k.known[:, 4].any() and not k.known[:, 7].any()
    assert k.knows(1, 5)
    assert (k.learned_at[:, 4] == -1).all()


def test_memory_perfect_shows_everything_known():
    k = Knowledge(2, 5)
    k.reveal(0, 1)
    for _ in range(5):
        k.tick(0)
        k.tick(1)
    assert k.shown_to(0, "perfect").tolist() == [False, True, False, False, False]
    assert not k.shown_to(1, "perfect").any()


def test_memory_none_shows_only_what_was_revealed_since_the_last_decision():
    k = Knowledge(2, 6)
    k.reveal(0, 0)  # before player 0 ever decided: shown at its first decision
    assert k.shown_to(0, "none")[0]
    k.tick(0)  # player 0 decides (clock 1)...
    k.reveal(0, 1)  # ... and sees card 1 as a result of that decision
    none = k.shown_to(0, "none")
    assert not none[0] and none[1], "card 0 is older than player 0's last decision"
    k.tick(1)  # player 1 decides (clock 2); player 0 is shown a card as a result
    k.reveal_to_all(2)
    none = k.shown_to(0, "none")
    assert none[1] and none[2], "both came after player 0's last decision"
    assert k.shown_to(1, "none")[2] and not k.shown_to(1, "none")[1]
    k.tick(0)  # player 0's next decision: everything older is gone from the view
    assert not k.shown_to(0, "none").any()
    assert k.shown_to(0, "perfect")[[0, 1, 2]].all(), "perfect memory still shows them"
    # revealing again refreshes the clock
    k.reveal(0, 0)
    assert k.shown_to(0, "none").tolist() == [True] + [False] * 5
    assert k.clock == 3 and k.decided_at.tolist() == [3, 2]


def test_unknown_memory_model():
    k = Knowledge(2, 2)
    with pytest.raises(ValueError, match="memory model"):
        k.shown_to(0, "goldfish")


def test_knowledge_clone_is_independent():
    k = Knowledge(2, 3)
    k.tick(0)
    other = k.clone()
    other.reveal(1, 2)
    other.tick(1)
    assert not k.known[1, 2] and k.clock == 1 and k.decided_at[1] == -1


# --- information-set sampling -----------------------------------------------------------------
def _sampling_table(seed=0):
    table = fresh_table(num_players=3, seed=seed)
    table.deal(4)
    for _ in range(5):
        table.discard_face_up(table.draw_pile.pop())
    table.knowledge.reveal(0, table.hands[0][2:])  # own bottom row
    table.knowledge.reveal(0, table.hands[1][0])  # a card of player 1, e.g. via a trade
    table.knowledge.reveal(1, table.hands[1][2:])
    table.held[2].append(table.draw_pile.pop())
    table.knowledge.reveal(2, table.held[2][0])
    return table


def test_sample_world_keeps_known_cards_and_all_locations():
    table = _sampling_table()
    rng = np.random.default_rng(1)
    known = table.knowledge.known[0]
    changed = False
    for _ in range(20):
        world = table.sample_world(0, rng)
        # locations (physical ids per place) and knowledge are untouched
        assert list(world.locations()) == list(table.locations())
        assert np.array_equal(world.knowledge.known, table.knowledge.known)
        # known identities are kept
        assert np.array_equal(world.card_types[known], table.card_types[known])
        # the multiset of types is preserved, so is the multiset of unknown types
        assert sorted(world.card_types.tolist()) == sorted(table.card_types.tolist())
        assert sorted(world.card_types[~known].tolist()) == sorted(table.card_types[~known].tolist())
        world.check_every_card_once()
        changed |= not np.array_equal(world.card_types, table.card_types)
    assert changed, "unknown identities must actually be resampled"
    # the original is untouched
    assert np.array_equal(table.card_types, standard_deck())


def test_sample_world_permutes_every_unknown_identity_somewhere():
    table = _sampling_table()
    unknown = np.flatnonzero(~table.knowledge.known[0])
    rng = np.random.default_rng(2)
    moved = np.zeros(len(unknown), dtype=bool)
    for _ in range(30):
        world = table.sample_world(0, rng)
        moved |= world.card_types[unknown] != table.card_types[unknown]
    assert moved.all(), "every unknown card can get another identity"


def test_sample_world_of_a_player_who_knows_everything_is_the_same_world():
    table = _sampling_table()
    table.knowledge.reveal(1, range(52))
    world = table.sample_world(1, np.random.default_rng(0))
    assert np.array_equal(world.card_types, table.card_types)


def test_sample_world_with_two_decks_preserves_copies():
    table = CardTable(double_deck_with_jokers(), 4)
    table.gather_and_shuffle(np.random.default_rng(0))
    table.deal(4)
    table.knowledge.reveal(3, table.hands[3])
    world = table.sample_world(3, np.random.default_rng(1))
    assert Counter(world.card_types.tolist()) == Counter(table.card_types.tolist())
    assert [world.type_of(c) for c in table.hands[3]] == [table.type_of(c) for c in table.hands[3]]


def test_parse_card_used_with_tables():
    table = CardTable(standard_deck(), 3)
    assert table.type_of(parse_card("QS")) == parse_card("QS")
