"""Where every physical card lies: draw pile, discard pile, hands made of slots, and
cards held while a player resolves them. Also the knowledge table, because moving a
card through a shuffle is what makes players forget it.

Piles are lists of physical ids with the top card last. A hand is a list of slots; a
slot holds a physical id or ``EMPTY``. Hands keep their slot positions (an emptied slot
stays in place, so "slot 2" keeps meaning the same spot on the table) and can grow past
four by appending slots.

The bottom ``shuffled`` cards of the draw pile came out of a shuffle: their order is
the :class:`~cardenv.core.chance.Chance`'s, fixed at the shuffle by a seeded source or
drawn card by card by an external one (cards laid on top of them by a scenario, or a
pile turned over unshuffled, are taken in their order).

Rummy games also lay cards face up on the table in melds: ``melds`` is a list of
melds, each a list of physical ids (a ruleset decides their order and meaning).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from cardenv.core.cards import RANK_OF, card_name
from cardenv.core.chance import Chance, SeededChance, as_chance
from cardenv.core.knowledge import Knowledge

EMPTY = -1


class CardTable:
    __slots__ = ("card_types", "draw_pile", "discard_pile", "hands", "held", "knowledge", "melds", "shuffled")

    def __init__(self, deck: np.ndarray, num_players: int):
        self.card_types = np.asarray(deck, dtype=np.int64).copy()
        self.draw_pile: list[int] = list(range(len(self.card_types)))
        self.discard_pile: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(num_players)]
        self.held: list[list[int]] = [[] for _ in range(num_players)]
        self.knowledge = Knowledge(num_players, len(self.card_types))
        self.melds: list[list[int]] = []
        self.shuffled = 0

    @property
    def num_players(self) -> int:
        return len(self.hands)

    @property
    def num_cards(self) -> int:
        return len(self.card_types)

    def clone(self) -> CardTable:
        other = CardTable.__new__(CardTable)
        other.card_types = self.card_types.copy()
        other.draw_pile = self.draw_pile.copy()
        other.discard_pile = self.discard_pile.copy()
        other.hands = [hand.copy() for hand in self.hands]
        other.held = [cards.copy() for cards in self.held]
        other.knowledge = self.knowledge.clone()
        other.melds = [meld.copy() for meld in self.melds]
        other.shuffled = self.shuffled
        return other

    # --- identities -------------------------------------------------------------
    # The rules ask these of one card at a time: ``item`` gives a Python int, where
    # numpy's scalar indexing would cost several times more.
    def type_of(self, card: int) -> int:
        return self.card_types.item(card)

    def rank_of(self, card: int) -> int:
        return RANK_OF.item(self.card_types.item(card))

    # --- the deck -----------------------------------------------------------------
    def gather_and_shuffle(self, chance: Chance | np.random.Generator) -> None:
        """Every card back into the draw pile, shuffled, forgotten by everyone."""
        self.draw_pile = list(range(self.num_cards))
        as_chance(chance).shuffle_pile(self.draw_pile)
        self.shuffled = self.num_cards
        self.discard_pile = []
        for p in range(self.num_players):
            self.hands[p] = []
            self.held[p] = []
        self.melds = []
        self.knowledge.forget(slice(None))

    def arrange(
        self,
        chance: Chance | np.random.Generator,
        hands: Sequence[Sequence[int]],
        draw_top: Sequence[int] = (),
        discard: Sequence[int] = (),
    ) -> None:
        """Lay out a scenario by card type: each player's slots, the top of the draw pile
        (top first) and the discard pile (bottom first). Every other card goes, shuffled,
        into the draw pile below ``draw_top``. Knowledge starts empty except that the
        discard pile is face up.
        """
        self.gather_and_shuffle(chance)
        pool = list(reversed(self.draw_pile))

        def take(wanted: int, where: str) -> int:
            """A physical card of type ``wanted`` out of the pool; ``where`` names the
            scenario's place for it (``hands[1][0]``), for the error message."""
            for i, card in enumerate(pool):
                if self.card_types[card] == wanted:
                    return pool.pop(i)
            copies = int(np.count_nonzero(self.card_types == wanted))
            why = ("this deck has none" if copies == 0
                   else f"the deck has {copies} and the scenario names it more often")
            raise ValueError(f"cannot place the scenario's {where} = {card_name(wanted)!r}: "
                             f"no copy of it is left in the deck ({why})")

        if len(hands) != self.num_players:
            raise ValueError(f"expected {self.num_players} hands, got {len(hands)}")
        self.hands = [[take(t, f"hands[{p}][{s}]") for s, t in enumerate(hand)] for p, hand in enumerate(hands)]
        for i, t in enumerate(discard):
            self.discard_face_up(take(t, f"discard_pile[{i}]"))
        top = [take(t, f"draw_pile[{i}]") for i, t in enumerate(draw_top)]
        self.draw_pile = list(reversed(top + pool))
        self.shuffled = len(pool)

    def take_top(self, chance: Chance | np.random.Generator) -> int:
        """Remove and return the top card of the (non-empty) draw pile; ``chance`` says
        which card that is while the pile's order is the shuffle's."""
        if len(self.draw_pile) > self.shuffled:
            return self.draw_pile.pop()
        card = as_chance(chance).take_card(self.draw_pile, self.card_types)
        self.shuffled = len(self.draw_pile)
        return card

    def draw(self, chance: Chance | np.random.Generator) -> int | None:
        """Top card of the draw pile, reshuffling the discard pile (all but its top card)
        into a new draw pile when empty; None if no card can be drawn even then."""
        if not self.draw_pile:
            self.reshuffle_discards(chance)
            if not self.draw_pile:
                return None
        return self.take_top(chance)

    def can_draw(self) -> bool:
        return bool(self.draw_pile) or len(self.discard_pile) > 1

    def reshuffle_discards(self, chance: Chance | np.random.Generator) -> None:
        """All discard-pile cards except the top one become the new, shuffled draw pile
        (below what is left of the draw pile, which is empty whenever :meth:`draw` does it)."""
        if len(self.discard_pile) <= 1:
            return
        cards = self.discard_pile[:-1]
        self.discard_pile = self.discard_pile[-1:]
        as_chance(chance).shuffle_pile(cards)
        self.knowledge.forget(cards)
        shuffled_left = min(self.shuffled, len(self.draw_pile))
        if shuffled_left and not isinstance(as_chance(chance), SeededChance):
            # Two shuffles one above the other are not one pile drawn card by card.
            raise ValueError("an external source reshuffles the discard pile only under an empty or "
                             "unshuffled draw pile")
        self.draw_pile = cards + self.draw_pile
        self.shuffled = len(cards) + shuffled_left

    def turn_over_discards(self) -> None:
        """The discard pile becomes the draw pile, turned over unshuffled: the card first
        discarded is on top and every card keeps who knows it."""
        self.draw_pile = self.discard_pile[::-1]
        self.discard_pile = []
        self.shuffled = 0

    # --- discard pile ---------------------------------------------------------------
    def discard_face_up(self, card: int) -> None:
        self.discard_pile.append(card)
        self.knowledge.reveal_to_all(card)

    @property
    def top_discard(self) -> int | None:
        return self.discard_pile[-1] if self.discard_pile else None

    # --- hands ----------------------------------------------------------------------
    def deal(self, num_slots: int, players: Sequence[int] | None = None,
             chance: Chance | np.random.Generator | None = None) -> None:
        """Deal ``num_slots`` face-down cards to every player (or to ``players``, in seat
        order), one at a time, clockwise from player 0; ``chance`` is the source that
        shuffled the pile (none needed when it shuffled it already, as a seeded one does)."""
        players = range(self.num_players) if players is None else players
        hands, pile = self.hands, self.draw_pile
        if chance is not None:
            chance = as_chance(chance)
            if not chance.order_is_fixed():
                for _ in range(num_slots):
                    for p in players:
                        hands[p].append(self.take_top(chance))
                return
        # The pile's order is fixed (a seeded shuffle): its top cards are dealt as they lie.
        for _ in range(num_slots):
            for p in players:
                hands[p].append(pile.pop())
        self.shuffled = min(self.shuffled, len(pile))

    def occupied_slots(self, player: int) -> list[int]:
        return [s for s, card in enumerate(self.hands[player]) if card != EMPTY]

    def num_occupied(self, player: int) -> int:
        hand = self.hands[player]
        return len(hand) - hand.count(EMPTY)

    def cards_in_hand(self, player: int) -> list[int]:
        return [card for card in self.hands[player] if card != EMPTY]

    def card_at(self, player: int, slot: int) -> int:
        return self.hands[player][slot]

    def is_occupied(self, player: int, slot: int) -> bool:
        hand = self.hands[player]
        return 0 <= slot < len(hand) and hand[slot] != EMPTY

    def take_from_slot(self, player: int, slot: int) -> int:
        """Remove the card from a slot, leaving the slot empty."""
        card = self.hands[player][slot]
        if card == EMPTY:
            raise ValueError(f"player {player} slot {slot} is empty")
        self.hands[player][slot] = EMPTY
        return card

    def put_in_slot(self, player: int, slot: int, card: int) -> None:
        if self.hands[player][slot] != EMPTY:
            raise ValueError(f"player {player} slot {slot} is occupied")
        self.hands[player][slot] = card

    def replace_in_slot(self, player: int, slot: int, card: int) -> int:
        """Put ``card`` into an occupied slot and return the card it replaces."""
        old = self.take_from_slot(player, slot)
        self.hands[player][slot] = card
        return old

    def append_slot(self, player: int, card: int) -> int:
        """Add a new slot at the end of the hand holding ``card``; return its index."""
        self.hands[player].append(card)
        return len(self.hands[player]) - 1

    def first_empty_or_new_slot(self, player: int, card: int) -> int:
        """Put ``card`` into the first empty slot, else a new slot; return the slot."""
        hand = self.hands[player]
        if EMPTY in hand:
            slot = hand.index(EMPTY)
            hand[slot] = card
            return slot
        return self.append_slot(player, card)

    def swap_slots(self, player_a: int, slot_a: int, player_b: int, slot_b: int) -> None:
        hand_a, hand_b = self.hands[player_a], self.hands[player_b]
        hand_a[slot_a], hand_b[slot_b] = hand_b[slot_b], hand_a[slot_a]

    def close_gaps(self, player: int, gaps: Sequence[int]) -> list[tuple[int, int]]:
        """Take the empty slots ``gaps`` out of the hand's row: the slots after them move
        towards the start, in order, and as many empty slots end the hand (its length
        stays). Returns ``(from slot, to slot)`` for every card that moved."""
        hand = self.hands[player]
        closed = set(gaps)
        if any(hand[s] != EMPTY for s in closed):
            raise ValueError(f"player {player}: slots {sorted(closed)} are not all empty")
        kept = [s for s in range(len(hand)) if s not in closed]
        moves = [(old, new) for new, old in enumerate(kept) if old != new and hand[old] != EMPTY]
        hand[:] = [hand[s] for s in kept] + [EMPTY] * len(closed)
        return moves

    # --- bookkeeping ------------------------------------------------------------------
    def locations(self) -> Iterator[tuple[str, int, int, int]]:
        """Every card's place as ``(zone, player, index, card)``; player -1 for piles, the
        meld's index for melds."""
        for i, card in enumerate(self.draw_pile):
            yield ("draw", -1, i, card)
        for i, card in enumerate(self.discard_pile):
            yield ("discard", -1, i, card)
        for p, hand in enumerate(self.hands):
            for s, card in enumerate(hand):
                if card != EMPTY:
                    yield ("hand", p, s, card)
        for p, cards in enumerate(self.held):
            for i, card in enumerate(cards):
                yield ("held", p, i, card)
        for m, cards in enumerate(self.melds):
            for i, card in enumerate(cards):
                yield ("meld", m, i, card)

    def check_every_card_once(self) -> None:
        """Raise AssertionError unless every physical card lies in exactly one place."""
        seen = np.zeros(self.num_cards, dtype=np.int64)
        for _, _, _, card in self.locations():
            seen[card] += 1
        if not np.all(seen == 1):
            missing = np.flatnonzero(seen == 0).tolist()
            doubled = np.flatnonzero(seen > 1).tolist()
            raise AssertionError(f"cards missing: {missing}; cards in several places: {doubled}")

    # --- information-set sampling -----------------------------------------------------
    def sample_world(self, observer: int, rng: np.random.Generator) -> CardTable:
        """A copy of the table in which every card ``observer`` does not know has been
        dealt at random into the places ``observer`` cannot see.

        Locations and the knowledge table are public, so a consistent world keeps both
        and redistributes only the identities of the unknown physical cards.
        """
        world = self.clone()
        unknown = np.flatnonzero(~self.knowledge.known[observer])
        world.card_types[unknown] = self.card_types[rng.permutation(unknown)]
        return world
