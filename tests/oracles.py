"""Visibility oracles for :func:`cardenv.testing.check_leak_pairs`, one per ruleset.

Each oracle says which physical cards a seat may know, written from the ruleset's rules
text (``docs/<ruleset>.md``, rule ids in the comments) and the cards' places only. It
never reads ``table.knowledge``: it is the independent witness against which the
engine's knowledge table, observations and masks are checked. When in doubt an oracle
says "visible" (a comparison then ends earlier); saying "hidden" for a card the seat
legitimately saw would be a false alarm.

They live in the package, in :mod:`cardenv.testing`, so that every ruleset's tests
(and a new ruleset's, which adds its oracle here) import them the same way. They import
no engine: they use action kinds, slots and offsets from the action table, places and a
few public fields of the state (the slots selected for a match, the pending attempts).
"""

from __future__ import annotations

from cardenv.core.table import EMPTY
from cardenv.engine.slots import SlotGameState
from cardenv.testing import VisibilityOracle, occupied_cards


def _actor_and_spec(before: SlotGameState, action: int):
    return before.current_player, before.action_table.specs[action]


def _target(before: SlotGameState, actor: int, offset: int) -> int:
    """The seat ``offset`` seats clockwise from ``actor`` (action tables name opponents so)."""
    return (actor + offset) % before.num_players


class OneFiftyOracle(VisibilityOracle):
    """What a seat of "150" may know (docs/onefifty.md)."""

    def dealt_visible(self, state: SlotGameState, seat: int) -> set[int]:
        # O-05: own bottom row, slots 2 and 3 (slot 1 of a two-slot grid)
        return occupied_cards(state, seat, state.config.peeked_slots)

    def looks(self, before: SlotGameState, action: int, after: SlotGameState, seat: int) -> set[int]:
        actor, spec = _actor_and_spec(before, action)
        if spec.kind == "match_confirm":
            # O-07: the selected cards go face up on a match and are shown to everyone on
            # a failed one; the penalty card is seen by nobody.
            return occupied_cards(before, actor, before.selected)
        if actor != seat:
            return set()  # others' draws, peeks and trades show the seat no identity
        if spec.kind == "queen_peek":  # O-12
            return occupied_cards(before, seat, [spec.slot])
        if spec.kind == "jack_target":  # O-11: the trader sees the card received
            return occupied_cards(before, _target(before, seat, spec.offset), [spec.slot])
        # A drawn card (held, O-08/O-13) and the discard pile are the base class's; a
        # swap puts a card the seat held (seen) into its slot; a take, a face-up one.
        return set()


class CarteOracle(VisibilityOracle):
    """What a seat of carte may know (docs/carte.md): its own hand (R-03, R-05: dealt,
    drawn and caught cards are seen by their taker), every card face up on the pile
    (seen while it lay there, so also once taken back or turned over, R-15) and every
    card in a meld on the table (R-06, R-11). Nothing else: others' stock draws and
    catch cards are hidden, and so is the stock's order until it was the pile."""

    def dealt_visible(self, state: SlotGameState, seat: int) -> set[int]:
        return set(state.table.hands[seat])

    def looks(self, before: SlotGameState, action: int, after: SlotGameState, seat: int) -> set[int]:
        table = after.table
        return set(table.hands[seat]).union(*table.melds)


class CutOracle(VisibilityOracle):
    """What a seat of "Cut!" may know (docs/cut.md)."""

    WINDOW_DECISIONS = ("pass", "match", "call_out")
    CLAIMS = ("match", "call_out")

    def dealt_visible(self, state: SlotGameState, seat: int) -> set[int]:
        # C-03: own bottom row, slots 2 and 3 (slot 1 of a two-slot grid)
        return occupied_cards(state, seat, state.config.peeked_slots)

    def looks(self, before: SlotGameState, action: int, after: SlotGameState, seat: int) -> set[int]:
        actor, spec = _actor_and_spec(before, action)
        seen: set[int] = set()
        if self._resolves_attempts(before, spec.kind):
            # C-09: a successful claim puts the card face up (the base class's discard
            # pile); a failed one shows the claimed card to everyone and leaves it in its
            # slot; a late one (the claimed card has left its slot) shows nothing. So a
            # claim resolved by this action showed its card exactly when that card is
            # still in the claimed slot afterwards. Penalty cards and the card a give
            # moves are seen by nobody.
            for owner, slot, claimed in self._resolved_claims(before, action, after):
                if claimed != EMPTY and after.table.hands[owner][slot] == claimed:
                    seen.add(claimed)
        if actor != seat:
            return seen  # others' draws, looks and swaps show the seat no identity
        if spec.kind == "peek_own":  # C-10: the 5
            seen |= occupied_cards(before, seat, [spec.slot])
        elif spec.kind == "peek_other":  # C-10: the 6
            seen |= occupied_cards(before, _target(before, seat, spec.offset), [spec.slot])
        elif spec.kind == "king_target":  # C-10: the King's looker sees both cards
            seen |= occupied_cards(before, seat, [before.power_own_slot])
            seen |= occupied_cards(before, _target(before, seat, spec.offset), [spec.slot])
        # The Queen's swap is blind; a give moves a card without showing it (C-09).
        return seen

    def _resolves_attempts(self, before: SlotGameState, kind: str) -> bool:
        """Whether the action may resolve attempts: the last decision of a window (C-08),
        or a successful caller's give, after which the pending attempts resolve (C-09)."""
        if kind == "give":
            return True
        window = before.reaction_window
        if kind not in self.WINDOW_DECISIONS or window is None or window.is_complete:
            return False
        return window.players.index(window.current_player) == len(window.players) - 1

    def _resolved_claims(self, before: SlotGameState, action: int,
                         after: SlotGameState) -> list[tuple[int, int, int]]:
        """(owner, slot, card claimed) of every claim this action resolves: on the last
        decision, every attempt of the window; on a give, those pending since the
        resolution paused for it (C-09); less those still pending afterwards."""
        window = before.reaction_window
        if window is not None and not window.is_complete:
            # The decision being made now is not recorded yet: it has no claimed card.
            recorded = window.attempts() + [(before.current_player, (action,))]
        else:
            recorded = list(before.pending_attempts)
        still_pending = {(player, decision[0]) for player, decision in after.pending_attempts}
        claims = []
        for player, decision in recorded:
            claim = decision[0]
            spec = before.action_table.specs[claim]
            if (player, claim) in still_pending or spec.kind not in self.CLAIMS:
                continue
            owner = player if spec.kind == "match" else _target(before, player, spec.offset)
            # The card the claim named, recorded with the decision; nothing moves while
            # decisions are made, so the one being made now names the card in the slot.
            claimed = decision[1] if len(decision) > 1 else before.table.hands[owner][spec.slot]
            claims.append((owner, spec.slot, claimed))
        return claims


class KaboomOracle(VisibilityOracle):
    """What a seat of "KABOOM" may know (docs/kaboom.md)."""

    WINDOW_DECISIONS = ("pass", "snap_confirm")

    def dealt_visible(self, state: SlotGameState, seat: int) -> set[int]:
        # K-09: own bottom row, slots 2 and 3 (slot 1 of a two-slot grid)
        return occupied_cards(state, seat, state.config.peeked_slots)

    def looks(self, before: SlotGameState, action: int, after: SlotGameState, seat: int) -> set[int]:
        actor, spec = _actor_and_spec(before, action)
        seen: set[int] = set()
        if self._completes_window(before, spec.kind):
            # K-12: when the last decision is in, every attempt resolves: a successful
            # one goes face up onto the pile, a wrong or late one is shown to everyone
            # and stays. Penalty cards are seen by nobody (K-13).
            window = before.reaction_window
            for player, attempt in window.attempts():
                seen |= {card for _, card in attempt}
            if spec.kind == "snap_confirm":
                seen |= occupied_cards(before, actor, before.snap_selected)
        if actor != seat:
            return seen  # others' draws, looks and swaps show the seat no identity
        if spec.kind == "look_own":  # K-05
            seen |= occupied_cards(before, seat, [spec.slot])
        elif spec.kind in ("look_other", "king_look"):  # K-06, K-08
            seen |= occupied_cards(before, _target(before, seat, spec.offset), [spec.slot])
        # The 6s and J/Q swap unseen (K-03, K-04, K-07); the black King's take and give
        # move the card it saw and one nobody sees (K-08).
        return seen

    def _completes_window(self, before: SlotGameState, kind: str) -> bool:
        window = before.reaction_window
        if kind not in self.WINDOW_DECISIONS or window is None or window.is_complete:
            return False
        return window.players.index(window.current_player) == len(window.players) - 1
