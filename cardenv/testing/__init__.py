"""Checks every ruleset's tests share: invariants after each step, masks that are
exact, and observations that leak nothing (information-set resampling, and pairs of
games that differ only in what a seat cannot know, judged by a rules-text oracle).

They work on any rules engine built on :class:`cardenv.engine.slots.SlotGameState` and
any observer with ``observe(state, seat, out=None)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from cardenv.core.cards import RANK_OF, card_name, parse_card
from cardenv.core.table import EMPTY
from cardenv.engine.slots import SlotGameState


def check_invariants(state: SlotGameState) -> None:
    """Every card lies in exactly one place, and the player to act has a legal action."""
    state.table.check_every_card_once()
    if state.is_terminal:
        assert state.current_player is None, "a finished game has no player to act"
        assert not state.legal_action_mask().any(), "a finished game has no legal action"
    else:
        assert state.legal_action_mask().any(), f"player_{state.current_player} has no legal action"


def check_legal_actions_apply(state: SlotGameState) -> None:
    """Every masked-in action applies without error (each on its own copy)."""
    for action in state.legal_actions():
        state.clone().apply(action)


def check_no_leak(
    state: SlotGameState,
    observe: Callable[[SlotGameState, int], np.ndarray],
    seat: int,
    rng: np.random.Generator,
    samples: int = 3,
) -> None:
    """Resampling what ``seat`` cannot know changes neither its observation nor (when
    it is to act) its action mask."""
    expected_obs = observe(state, seat).copy()
    expected_mask = state.legal_action_mask().copy() if state.current_player == seat else None
    for _ in range(samples):
        world = state.sample_world(seat, rng)
        obs = observe(world, seat)
        if not np.array_equal(obs, expected_obs):
            changed = np.flatnonzero(obs != expected_obs)
            raise AssertionError(f"observation of seat {seat} changed under resampling at indices {changed[:20]}")
        if expected_mask is not None and not np.array_equal(world.legal_action_mask(), expected_mask):
            raise AssertionError(f"action mask of seat {seat} changed under resampling")


def play_random(
    state: SlotGameState,
    rng: np.random.Generator,
    on_step: Callable[[SlotGameState], None] | None = None,
    choose: Callable[[SlotGameState, np.random.Generator], int] | None = None,
    max_steps: int = 1_000_000,
) -> int:
    """Play ``state`` to the end with uniformly random legal actions (or ``choose``);
    call ``on_step(state)`` before the first and after every action. Returns the steps."""
    if on_step:
        on_step(state)
    steps = 0
    while not state.is_terminal and steps < max_steps:
        if choose is None:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
        else:
            action = choose(state, rng)
        state.apply(action)
        steps += 1
        if on_step:
            on_step(state)
    return steps


# --- leak pairs: a leak check that does not trust the engine's knowledge table -----------
#
# ``check_no_leak`` resamples hidden cards with the engine's own knowledge table, so a
# wrong entry in that table (a card marked as seen that nobody saw) is invisible to it.
# The check below decides what a seat may know from the rules text and the cards'
# places alone (a per-ruleset :class:`VisibilityOracle`), builds two games that differ
# only in what the seat cannot know, plays the same actions in both and requires the
# seat's observations and action masks to stay equal.


class VisibilityOracle:
    """Which physical cards a seat may know, written from a ruleset's rules text.

    An oracle may read places (piles, hands, held cards), phases, the action table's
    specs and the structure of a reaction window, but never ``table.knowledge``: it is
    the independent witness the engine's knowledge table is checked against.

    Over-approximating what a seat may know is safe (a comparison only ends earlier);
    under-approximating raises false alarms. The round's end (every hand shown) is not
    the oracle's business: :func:`check_leak_pairs` stops comparing there.

    The base class states what every slot-and-pile game shares: the discard pile is face
    up and a card the seat holds (a drawn card) is seen by it. A ruleset fills in
    :meth:`dealt_visible` (what a seat sees when the round is dealt) and :meth:`looks`
    (what an action lets the seat see beyond that).
    """

    def initially_visible(self, state: SlotGameState, seat: int) -> set[int]:
        """Physical cards ``seat`` may know in a freshly laid-out round."""
        table = state.table
        return set(table.discard_pile) | set(table.held[seat]) | self.dealt_visible(state, seat)

    def newly_visible(self, before: SlotGameState, action: int, after: SlotGameState, seat: int) -> set[int]:
        """Physical cards ``seat`` may know once ``action`` (by ``before.current_player``)
        has turned ``before`` (an untouched copy) into ``after``."""
        table = after.table
        return set(table.discard_pile) | set(table.held[seat]) | self.looks(before, action, after, seat)

    def dealt_visible(self, state: SlotGameState, seat: int) -> set[int]:
        """The ruleset's own look at the deal (e.g. the seat's bottom row)."""
        raise NotImplementedError

    def looks(self, before: SlotGameState, action: int, after: SlotGameState, seat: int) -> set[int]:
        """The ruleset's own reveals: peeks, cards shown to all, cards received in view."""
        raise NotImplementedError

    def pass_action(self, state: SlotGameState) -> int | None:
        """The legal "no attempt" decision in the open reaction window, if there is one.

        Decision pairs contrast passing with attempting, the difference a leak of pending
        decisions most often shows; by default the action of kind ``"pass"``."""
        for action in state.legal_actions():
            if state.action_table.specs[action].kind == "pass":
                return action
        return None


def occupied_cards(state: SlotGameState, player: int, slots) -> set[int]:
    """The cards in ``player``'s ``slots`` that exist and are occupied (for oracles)."""
    hand = state.table.hands[player]
    return {hand[s] for s in slots if 0 <= s < len(hand) and hand[s] != EMPTY}


@dataclass
class LeakPairStats:
    """How much :func:`check_leak_pairs` actually compared (a check that compared
    nothing cannot fail, so tests assert on these)."""

    identity_pairs: int = 0  # pairs of games differing in hidden identities
    decision_pairs: int = 0  # pairs of games differing in a pending window decision
    compared_steps: int = 0  # states at which the seat's two observations were compared
    compared_masks: int = 0  # of those, states at which the seat was to act (masks compared)
    window_steps: int = 0  # compared states inside an open, undecided reaction window
    ended: Counter = field(default_factory=Counter)  # why each pair's comparison ended

    def __iadd__(self, other: LeakPairStats) -> LeakPairStats:
        for name in ("identity_pairs", "decision_pairs", "compared_steps", "compared_masks", "window_steps"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.ended.update(other.ended)
        return self


# A place of a laid-out round: ("hand", player, slot), ("draw", position from the top,
# 0) or ("discard", position from the bottom, 0), i.e. the scenario options' own indexing.
Place = tuple[str, int, int]

# The ways an identity pair exchanges hidden cards, used in turn.
EXCHANGE_KINDS = ("one exchange", "draw-pile top", "face-up rank", "permutation")


def check_leak_pairs(
    new_state: Callable[[dict, int], SlotGameState],
    observer,
    oracle: VisibilityOracle,
    seat: int,
    rng: np.random.Generator,
    pairs: int = 24,
    decision_pairs: int = 12,
    max_steps: int = 150,
    choose: Callable[[SlotGameState, np.random.Generator], int] | None = None,
) -> LeakPairStats:
    """Pairs of games that differ only in what ``seat`` cannot know must look the same
    to ``seat``: equal observations at every step and equal action masks whenever it is
    to act. Raises AssertionError naming the pair, step, actions and differing entries.

    ``new_state(options, seed)`` builds a fresh engine from scenario options (``hands``,
    ``draw_pile`` top first, ``discard_pile``, ``starter``) and an engine seed; both games
    of a pair get the same seed, so shuffles and random resolution orders agree.
    ``observer.observe(state, seat)`` is the observation under test (``observer.layout``,
    when present, names the differing entries). ``choose(state, rng)`` picks game A's
    actions (default: uniformly among the legal ones).

    *Identity pairs* (``pairs`` of them): a random deck is laid out in full; game B
    exchanges the identities of cards in places ``seat`` cannot see at the start (by
    ``oracle.initially_visible``), in turn: one exchange of two cards of different ranks,
    exchanges involving the top few draw-pile cards (drawn and penalty cards), an
    exchange of a card of a rank face up or about to be (the top discard, the next
    draws) with a card in a hand, often the seat's own, and a permutation of many
    hidden cards. The actions chosen in A are played in both games; the comparison
    ends when the oracle says ``seat`` may know one of the exchanged cards, when the
    round ends, after ``max_steps`` actions, or when A's action is not legal in B
    (another seat knew something ``seat`` does not; when ``seat`` itself is to act, its
    masks were compared first, so a difference there is reported as a leak).

    *Decision pairs* (``decision_pairs`` of them, for rulesets with reaction windows): at
    a random point where another seat decides in an open window, B takes a different
    legal decision (often pass against an attempt); the same actions follow, and the
    comparison ends as soon as the window is complete or closed (its resolution is
    public). Rulesets without windows yield none.

    Not covered: differences a seat may legitimately infer from how others play (both
    games use the same actions), leaks through other channels than ``observe`` and the
    mask (rewards, infos, rendering), later rounds, and anything the oracle wrongly
    declares visible.
    """
    stats = LeakPairStats()
    choose = choose or _random_legal
    probe = new_state({}, 0)
    deck_names = [card_name(int(t)) for t in probe.table.card_types]
    # Slot rulesets bound their hands; a rummy hand has no slots to bound.
    num_players, max_slots = probe.num_players, getattr(probe.config, "max_hand_slots", None)
    # The grid a round deals (a mini variant's is smaller); a rummy hand has none: 4 cards.
    initial_slots = getattr(probe.config, "initial_slots", 4)
    for index in range(pairs):
        kind = EXCHANGE_KINDS[index % len(EXCHANGE_KINDS)]
        options = _random_scenario(deck_names, num_players, max_slots, rng, initial_slots)
        seed = int(rng.integers(2**63))
        game_a = new_state(options, seed)
        _check_laid_out(game_a, options)
        visible = oracle.initially_visible(game_a, seat)
        hidden = [place for place in _places(options) if _card_at(game_a, place) not in visible]
        changes = _exchange(kind, options, hidden, seat, rng)
        # Only places whose card really changes differ (a deck may hold duplicates).
        changed = [place for place, name in changes.items() if name != _name_at(options, place)]
        options_b = _apply_exchange(options, changes)
        game_b = new_state(options_b, seed)
        _check_laid_out(game_b, options_b)
        label = (f"identity pair {index} ({kind}) for seat {seat}: scenario {options}, engine seed {seed}; "
                 "game B has "
                 + ", ".join(f"{_place_name(p)} {_name_at(options, p)}->{_name_at(options_b, p)}" for p in changed))
        differing_a = {_card_at(game_a, place) for place in changed}
        differing_b = {_card_at(game_b, place) for place in changed}
        stats.identity_pairs += 1
        stats += _compare_identity_pair(game_a, game_b, differing_a, differing_b, observer, oracle, seat, rng,
                                        max_steps, label, choose)
    for index in range(decision_pairs):
        stats += _decision_pair(new_state, deck_names, num_players, max_slots, observer, oracle, seat, rng,
                                max_steps, index, choose, initial_slots=initial_slots)
    return stats


# --- building the pairs ------------------------------------------------------------------
def _random_scenario(deck_names: list[str], num_players: int, max_slots: int | None,
                     rng: np.random.Generator, initial_slots: int = 4) -> dict:
    """The whole deck laid out at random: hands of mostly ``initial_slots`` slots
    (sometimes more, so slots nobody peeked at beyond the dealt ones are covered), 0–2
    face-up discards, the rest as the draw pile (top first), a random starter. Naming
    every card leaves no card to the engine's own shuffle, so two scenarios differ
    exactly where intended."""
    names = [deck_names[i] for i in rng.permutation(len(deck_names))]
    base = initial_slots
    sizes = [int(rng.choice([base, base, base, base + 1, base + 2])) for _ in range(num_players)]
    if max_slots is not None:
        sizes = [min(size, max_slots - 1) for size in sizes]
    # A small deck (a mini variant's) must still leave a card to draw: the largest hands
    # shrink (a slot grid's dealt cards always fit; a rummy hand of four may not).
    while sum(sizes) > len(deck_names) - 1 and max(sizes) > 1:
        sizes[sizes.index(max(sizes))] -= 1
    hands = []
    for size in sizes:
        hands.append(names[:size])
        names = names[size:]
    num_discards = min(int(rng.choice([0, 1, 1, 2])), len(names) - 1)  # a card to draw stays
    return {"hands": hands, "discard_pile": names[:num_discards], "draw_pile": names[num_discards:],
            "starter": int(rng.integers(num_players))}


def _places(options: dict) -> list[Place]:
    places = [("hand", p, s) for p, hand in enumerate(options["hands"]) for s in range(len(hand))]
    places += [("draw", i, 0) for i in range(len(options["draw_pile"]))]
    places += [("discard", i, 0) for i in range(len(options["discard_pile"]))]
    return places


def _name_at(options: dict, place: Place) -> str:
    zone, a, b = place
    if zone == "hand":
        return options["hands"][a][b]
    return options["draw_pile" if zone == "draw" else "discard_pile"][a]


def _place_name(place: Place) -> str:
    zone, a, b = place
    if zone == "hand":
        return f"player_{a} slot {b}"
    return f"draw pile #{a} from the top" if zone == "draw" else f"discard pile #{a} from the bottom"


def _card_at(state: SlotGameState, place: Place) -> int:
    """The physical card lying at a scenario place of a freshly laid-out round."""
    zone, a, b = place
    table = state.table
    if zone == "hand":
        return table.hands[a][b]
    if zone == "draw":
        return table.draw_pile[-1 - a]
    return table.discard_pile[a]


def _check_laid_out(state: SlotGameState, options: dict) -> None:
    for place in _places(options):
        shown = state.card_name(_card_at(state, place))
        if shown != _name_at(options, place):
            raise AssertionError(f"the engine did not lay out the scenario: {_place_name(place)} holds {shown}, "
                                 f"expected {_name_at(options, place)}")


def _rank(name: str) -> int:
    return int(RANK_OF[parse_card(name)])


def _exchange(kind: str, options: dict, hidden: list[Place], seat: int,
              rng: np.random.Generator) -> dict[Place, str]:
    """Game B's card name at each place whose card it changes, all among the seat's
    ``hidden`` places; the cards only trade places, so the multiset of hidden cards (all
    the seat could count on) is the same in both games."""

    def pick(candidates: list[Place]) -> Place:
        return candidates[int(rng.integers(len(candidates)))]

    def partner(place: Place, candidates: list[Place]) -> Place:
        """A place among ``candidates`` holding a card of another rank (any if none)."""
        others = [c for c in candidates if c != place]
        other_rank = [c for c in others if _rank(_name_at(options, c)) != _rank(_name_at(options, place))]
        return pick(other_rank or others)

    def swapped(pairs: list[tuple[Place, Place]]) -> dict[Place, str]:
        changes = {}
        for first, second in pairs:
            changes[first], changes[second] = _name_at(options, second), _name_at(options, first)
        return changes

    if kind == "draw-pile top":
        # The next draws and penalty cards: each of the top 1–3 hidden draw-pile cards
        # trades places with another hidden card.
        top = [p for p in hidden if p[0] == "draw" and p[1] < 3]
        used: set[Place] = set()
        pairs = []
        # A small deck may have no hidden card there: then the exchange falls back below.
        for place in top[: int(rng.integers(1, len(top) + 1))] if top else ():
            if place in used:
                continue
            other = partner(place, [p for p in hidden if p not in used])
            used |= {place, other}
            pairs.append((place, other))
        if pairs:
            return swapped(pairs)
    soon_face_up = options["discard_pile"][-1:] + options["draw_pile"][:2]
    if kind == "face-up rank" and soon_face_up:  # a small deck's piles may both be empty
        # Matching, and masks that wrongly know, hinge on the rank of a card face up or
        # about to be (the top discard, the next draws): a hidden card of that rank
        # trades places with a hidden card of another rank in a hand, half of the time
        # one of the seat's own hidden slots.
        rank = _rank(soon_face_up[int(rng.integers(len(soon_face_up)))])
        same = [p for p in hidden if _rank(_name_at(options, p)) == rank]
        in_hands = [p for p in hidden if p[0] == "hand" and _rank(_name_at(options, p)) != rank]
        own = [p for p in in_hands if p[1] == seat]
        if own and rng.random() < 0.5:
            in_hands = own
        if same and in_hands:
            return swapped([(pick(same), pick(in_hands))])
    if kind == "permutation" and len(hidden) >= 3:  # a cycle needs three (a small deck may not have them)
        # Many hidden cards rotate one place along a random cycle.
        size = int(rng.integers(3, len(hidden) + 1))
        cycle = [hidden[i] for i in rng.choice(len(hidden), size=size, replace=False)]
        return {place: _name_at(options, nxt) for place, nxt in zip(cycle, cycle[1:] + cycle[:1])}
    first = pick(hidden)
    return swapped([(first, partner(first, hidden))])


def _apply_exchange(options: dict, changes: dict[Place, str]) -> dict:
    """The options of game B: ``options`` with the card names ``changes`` gives."""
    new = {**options, "hands": [list(h) for h in options["hands"]], "draw_pile": list(options["draw_pile"]),
           "discard_pile": list(options["discard_pile"])}
    for (zone, a, b), name in changes.items():
        if zone == "hand":
            new["hands"][a][b] = name
        else:
            new["draw_pile" if zone == "draw" else "discard_pile"][a] = name
    return new


# --- comparing the two games of a pair ---------------------------------------------------
def _random_legal(state: SlotGameState, rng: np.random.Generator) -> int:
    legal = state.legal_actions()
    return legal[int(rng.integers(len(legal)))]


def _round_over(before: SlotGameState, after: SlotGameState) -> bool:
    return after.is_terminal or after.round_index != before.round_index


def _open_undecided_window(state: SlotGameState):
    """The open reaction window still collecting decisions, or None."""
    window = state.reaction_window
    return window if window is not None and not window.is_complete else None


def _compare_views(game_a: SlotGameState, game_b: SlotGameState, observer, seat: int, stats: LeakPairStats,
                   label: str, history: list[str]) -> None:
    """Raise AssertionError unless ``seat``'s observations (and, when it is to act in
    either game, its masks) are equal in both games."""
    obs_a, obs_b = observer.observe(game_a, seat), observer.observe(game_b, seat)
    where = f"{label}\nafter {len(history)} action(s): {history}"
    if not np.array_equal(obs_a, obs_b):
        raise AssertionError(f"LEAK: the observation of seat {seat} differs between the two games of a pair "
                             f"({where})\n{_describe_entries(observer, obs_a, obs_b)}")
    stats.compared_steps += 1
    if _open_undecided_window(game_a) is not None:
        stats.window_steps += 1
    if seat in (game_a.current_player, game_b.current_player):
        mask_a, mask_b = game_a.legal_action_mask().copy(), game_b.legal_action_mask()
        if not np.array_equal(mask_a, mask_b):
            differing = np.flatnonzero(mask_a != mask_b)
            names = ", ".join(f"{a} ({game_a.action_name(int(a))}: A {mask_a[a]}, B {mask_b[a]})" for a in differing)
            raise AssertionError(f"LEAK: the action mask of seat {seat} differs between the two games of a pair "
                                 f"({where})\nactions {names}")
        stats.compared_masks += 1


def _describe_entries(observer, obs_a: np.ndarray, obs_b: np.ndarray, limit: int = 12) -> str:
    """The differing entries by index, named by the observer's layout when it has one."""
    differing = np.flatnonzero(obs_a != obs_b)
    pieces = list(getattr(getattr(observer, "layout", None), "pieces", {}).values())
    lines = []
    for i in differing[:limit]:
        name = ""
        for piece in pieces:
            if piece.start <= i < piece.stop:
                position = ", ".join(str(int(k)) for k in np.unravel_index(i - piece.start, piece.shape))
                name = f" {piece.name}[{position}]"
        lines.append(f"  index {i}{name}: A {obs_a[i]:g}, B {obs_b[i]:g}")
    more = f"\n  … and {len(differing) - limit} more" if len(differing) > limit else ""
    return f"{len(differing)} differing entries:\n" + "\n".join(lines) + more


def _compare_identity_pair(game_a, game_b, differing_a: set[int], differing_b: set[int], observer,
                           oracle: VisibilityOracle, seat: int, rng: np.random.Generator, max_steps: int,
                           label: str, choose) -> LeakPairStats:
    stats = LeakPairStats()
    history: list[str] = []
    seen_a = oracle.initially_visible(game_a, seat)
    seen_b = oracle.initially_visible(game_b, seat)
    if seen_a & differing_a or seen_b & differing_b:  # the builder only exchanges hidden cards
        raise AssertionError(f"the pair builder exchanged a card the seat sees at the start ({label})")
    _compare_views(game_a, game_b, observer, seat, stats, label, history)
    for _ in range(max_steps):
        action = choose(game_a, rng)
        if not game_b.is_legal(action):
            # Only the actor's mask tells the games apart, and the actor is not ``seat``
            # (its masks were equal): the actor may know what ``seat`` does not.
            stats.ended["action not legal in both"] += 1
            return stats
        before_a, before_b = game_a.clone(), game_b.clone()
        history.append(f"player_{game_a.current_player}: {game_a.action_name(action)}")
        game_a.apply(action)
        game_b.apply(action)
        if _round_over(before_a, game_a) or _round_over(before_b, game_b):
            stats.ended["round over"] += 1
            return stats
        seen_a |= oracle.newly_visible(before_a, action, game_a, seat)
        seen_b |= oracle.newly_visible(before_b, action, game_b, seat)
        if seen_a & differing_a or seen_b & differing_b:
            stats.ended["seat may know a differing card"] += 1
            return stats
        _compare_views(game_a, game_b, observer, seat, stats, label, history)
    stats.ended["max_steps"] += 1
    return stats


def _decision_pair(new_state, deck_names: list[str], num_players: int, max_slots: int, observer,
                   oracle: VisibilityOracle, seat: int, rng: np.random.Generator, max_steps: int,
                   index: int, choose, tries: int = 4, initial_slots: int = 4) -> LeakPairStats:
    """Find a window in which another seat decides before someone else still has to, let
    B decide differently there, and compare ``seat``'s views until the window is done."""
    stats = LeakPairStats()
    for _ in range(tries):
        options = _random_scenario(deck_names, num_players, max_slots, rng, initial_slots)
        seed = int(rng.integers(2**63))
        game_a = new_state(options, seed)
        history: list[str] = []
        for _ in range(max_steps):
            window = _open_undecided_window(game_a)
            branch_here = (window is not None and window.current_player != seat
                           and window.players.index(window.current_player) < len(window.players) - 1
                           and rng.random() < 0.5)
            if branch_here:
                label = f"decision pair {index} for seat {seat}: scenario {options}, engine seed {seed}"
                stats.decision_pairs += 1
                stats += _compare_decision_pair(game_a, observer, oracle, seat, rng, max_steps, label, history,
                                                choose)
                return stats
            action = choose(game_a, rng)
            history.append(f"player_{game_a.current_player}: {game_a.action_name(action)}")
            game_a.apply(action)
            if game_a.is_terminal or game_a.round_index > 0:  # the layout was for the first round only
                break
    stats.ended["no window to branch in"] += 1
    return stats


def _compare_decision_pair(game_a, observer, oracle: VisibilityOracle, seat: int, rng: np.random.Generator,
                           max_steps: int, label: str, history: list[str], choose) -> LeakPairStats:
    stats = LeakPairStats()
    window = game_a.reaction_window
    players, position = list(window.players), window.players.index(window.current_player)
    legal = game_a.legal_actions()
    if len(legal) < 2:
        stats.ended["a single legal decision"] += 1
        return stats
    passing = oracle.pass_action(game_a)
    attempts = [a for a in legal if a != passing]
    if passing is not None and attempts and rng.random() < 0.5:
        # Pass against an attempt: the difference a leaked decision most often shows.
        decisions = [passing, attempts[int(rng.integers(len(attempts)))]]
    else:
        decisions = [legal[i] for i in rng.choice(len(legal), size=2, replace=False)]
    decision_a, decision_b = decisions if rng.random() < 0.5 else decisions[::-1]
    game_b = game_a.clone()
    actor = game_a.current_player
    label += (f"; at player_{actor}'s decision A plays {game_a.action_name(decision_a)}, "
              f"B plays {game_b.action_name(decision_b)}")
    history = history + [f"player_{actor}: A {game_a.action_name(decision_a)} / B {game_b.action_name(decision_b)}"]
    game_a.apply(decision_a)
    game_b.apply(decision_b)
    # A decision of several steps (select slots, then confirm) is completed in each game
    # by the same decider before anything is compared.
    for game, steps in ((game_a, "A"), (game_b, "B")):
        finishing = _finish_decision(game, actor, position, rng, choose, max_steps)
        if finishing:
            history.append(f"player_{actor} in {steps}: " + ", ".join(finishing))
    for _ in range(max_steps):
        still_open = [_open_undecided_window(game) for game in (game_a, game_b)]
        if not all(w is not None and w.players == players and w.players.index(w.current_player) > position
                   for w in still_open):
            stats.ended["window complete"] += 1  # its resolution is public
            return stats
        _compare_views(game_a, game_b, observer, seat, stats, label, history)
        action = choose(game_a, rng)
        if not game_b.is_legal(action):
            stats.ended["action not legal in both"] += 1
            return stats
        history.append(f"player_{game_a.current_player}: {game_a.action_name(action)}")
        game_a.apply(action)
        game_b.apply(action)
    stats.ended["max_steps"] += 1
    return stats


def _finish_decision(game, actor: int, position: int, rng: np.random.Generator, choose, max_steps: int) -> list[str]:
    """Play ``actor``'s remaining steps of its window decision at ``position`` (none for
    a one-step decision); returns their names."""
    names = []
    for _ in range(max_steps):
        window = _open_undecided_window(game)
        if window is None or window.current_player != actor or window.players.index(actor) != position:
            break
        action = choose(game, rng)
        names.append(game.action_name(action))
        game.apply(action)
    return names
