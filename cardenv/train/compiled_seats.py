"""The single-seat view's compiled engine: onefifty_v0 against random seats.

Against ``random`` and ``random_no_call`` seats the view's Python loop is the rules engine
itself, move after move (about 70 µs a learner step, docs/performance.md), so
:class:`~cardenv.train.single_seat.SingleSeatEnv` plays those games in
:mod:`cardenv.games.onefifty.kernel`, the rules compiled, where its ``engine`` option
(``"auto"``, the default) allows it. The games are the Python engine's, draw for draw:

- every random outcome comes from the generator that would draw it in Python (the deals
  from the view's own generator, a seat's choices from its agent's), through a buffer of
  that generator's next 32-bit outputs: the generator runs that far ahead of the games
  while the buffer lasts (:meth:`CompiledSeats.sync` puts it back where the games left
  it, and the view does so before anything else draws from it);
- the observation is the observer's own kernel on the twin's arrays
  (:meth:`TableObserver.write_facts`), and the rewards the raw env's reward rules;
- ``env.game``, the Python state, is rebuilt from the actions played where someone reads
  it (:meth:`CompiledSeats.game`: the deal replayed from the generator's position at the
  episode's start, then every action; kept and brought up to date at the next read).
  Read it, do not change it: the compiled twin plays on from its own arrays.

``tests/test_compiled_seats.py`` plays the compiled view and the Python view side by side.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import RANK_OF, standard_deck
from cardenv.core.knowledge import Knowledge
from cardenv.core.scoring import lowest
from cardenv.core.table import EMPTY
from cardenv.games.observation_kernels import fixed_type_entry
from cardenv.games.onefifty import kernel
from cardenv.games.onefifty.rules import POINTS

DRAWS_PER_BUFFER = 4096  # 32-bit outputs buffered per generator
# The first sizes of the arrays that grow (doubled when a move could need more).
EVENT_ENTRIES, ACTION_ENTRIES, ROUND_ROWS = 8192, 4096, 8


def compiled_seat_kinds(view) -> list[int] | None:
    """What plays each of ``view``'s opponents in the compiled engine (``kernel.RANDOM``
    or ``kernel.RANDOM_NO_CALL``), or None when the view's games need the Python engine:
    another ruleset, an opponent that is not exactly ``random`` or ``random_no_call`` as
    the registry builds them, or a guide."""
    from cardenv.agents.base import NoCallAgent
    from cardenv.agents.random import RandomAgent

    if view.ruleset != "onefifty_v0" or view.guide is not None:
        return None
    kinds = []
    for agent in view.opponents:
        if type(agent) is RandomAgent:
            kinds.append(kernel.RANDOM)
        elif type(agent) is NoCallAgent and type(agent.inner) is RandomAgent:
            if list(view.info.call_action_ids()) != [view.info.action_table.first("call")]:
                return None
            kinds.append(kernel.RANDOM_NO_CALL)
        else:
            return None
    return kinds


class _Buffer:
    """A generator's next 32-bit outputs (``next_uint32``'s), and where it was before them."""

    __slots__ = ("rng", "state_before")

    def __init__(self):
        self.rng = None  # the generator buffered (None: nothing buffered)
        self.state_before = None


class CompiledSeats:
    """The compiled twin of one view's games (see the module's docs). ``state``-like
    attributes (``current_player``, ``phase``, ``selected`` …) serve the observer."""

    def __init__(self, view, agent_kinds: list[int]):
        self.view = view
        env = view.env
        config = env.config
        table = env.action_table
        n, slots = config.num_players, config.max_hand_slots
        self.agent_kinds = agent_kinds
        self.setup = np.zeros(kernel.NUM_SETUP, dtype=np.int64)
        setup = self.setup
        setup[kernel.NUM_PLAYERS], setup[kernel.MAX_SLOTS] = n, slots
        setup[kernel.TARGET_SCORE], setup[kernel.MAX_TURNS] = config.target_score, config.max_turns_per_round
        setup[kernel.SINGLE_ROUND] = config.single_round
        setup[kernel.MAX_ROUNDS] = -1 if config.max_rounds is None else config.max_rounds
        setup[kernel.INITIAL_SLOTS], setup[kernel.FIRST_STARTER] = config.initial_slots, config.first_starter
        for entry, kind in ((kernel.FIRST_MATCH_SELECT, "match_select"), (kernel.MATCH_CONFIRM, "match_confirm"),
                            (kernel.DRAW, "draw"), (kernel.FIRST_TAKE, "take"), (kernel.CALL, "call"),
                            (kernel.PASS, "pass"), (kernel.FIRST_SWAP, "swap"), (kernel.DISCARD, "discard"),
                            (kernel.FIRST_JACK_OWN, "jack_own"), (kernel.FIRST_JACK_TARGET, "jack_target"),
                            (kernel.FIRST_QUEEN_PEEK, "queen_peek")):
            setup[entry] = table.first(kind)
        state_class = env.state_class
        for entry, kind in ((kernel.EVENT_CALL, "call"), (kernel.EVENT_PENALTY, "penalty"),
                            (kernel.EVENT_SWAP, "swap"), (kernel.EVENT_DISCARD, "discard"),
                            (kernel.EVENT_ROUND_END, "round end"), (kernel.EVENT_TAKE, "take"),
                            (kernel.EVENT_MATCH, "match"), (kernel.EVENT_FAILED_MATCH, "failed match"),
                            (kernel.EVENT_JACK, "jack"), (kernel.EVENT_QUEEN, "queen")):
            setup[entry] = state_class.event_kind_index[kind]
        self.kind_of = np.array([kernel.KIND_NAMES.index(spec.kind) for spec in table.specs], dtype=np.int64)
        self.slot_of = np.array([spec.slot if spec.slot is not None else 0 for spec in table.specs], dtype=np.int64)
        self.offset_of = np.array([spec.offset if spec.offset is not None else 0 for spec in table.specs],
                                  dtype=np.int64)
        self.card_types = np.asarray(config.deck_types(standard_deck()), dtype=np.int64)  # as OneFiftyState's
        num_cards = len(self.card_types)
        setup[kernel.NUM_CARDS] = num_cards
        self.ranks = RANK_OF[self.card_types]
        self.points = POINTS[self.card_types].astype(np.int64)
        self.scalars = np.zeros(kernel.NUM_SCALARS, dtype=np.int64)
        self.hands = np.full((n, slots), EMPTY, dtype=np.int64)
        self.hand_len = np.zeros(n, dtype=np.int64)
        self.held = np.full(n, EMPTY, dtype=np.int64)
        self.draw_pile = np.zeros(num_cards, dtype=np.int64)
        self.discard_pile = np.zeros(num_cards, dtype=np.int64)
        self.knowledge = Knowledge(n, num_cards)
        self.scores = np.zeros(n, dtype=np.int64)
        self.scores_float = np.zeros(n)
        self.selected_slots = np.zeros(slots, dtype=np.int64)
        self.events = np.zeros(EVENT_ENTRIES, dtype=np.int32)
        self.actions = np.zeros(ACTION_ENTRIES, dtype=np.int64)
        self.round_points = np.zeros((ROUND_ROWS, n), dtype=np.int64)
        self.mask = np.zeros(len(table), dtype=np.int8)
        self.hands_flat = np.zeros(n * (slots + 1), dtype=np.int64)
        # Row 0: the game's generator; row 1 + k: opponent k's.
        self.draws = np.zeros((1 + len(agent_kinds), DRAWS_PER_BUFFER), dtype=np.uint32)
        self.drawn = np.full(1 + len(agent_kinds), DRAWS_PER_BUFFER, dtype=np.int64)
        self.buffers = [_Buffer() for _ in range(1 + len(agent_kinds))]
        self.seat_kinds = np.zeros(n, dtype=np.int64)
        self.seat_rows = np.zeros(n, dtype=np.int64)
        self.learner = 0
        # The episode's start for env.game: the game generator's class, its state before
        # the buffer the deal drew from, how many of the buffer's outputs came before the deal.
        self._episode_start: tuple[type, dict, int] | None = None
        self._game = None  # the Python state rebuilt so far, and how many actions it has
        self._game_actions = 0
        # The seats a relative reward compares (CardGameEnv.seats_in_round): every seat, as
        # 150 has no eliminations.
        self._in_round = list(range(n)) if env.reward_mode == "relative" else ()
        self.eliminated = [False] * n  # 150 has no eliminations
        self._warm_up()

    def _warm_up(self) -> None:
        """Load the compiled code (from numba's cache; compiled there once per machine, about
        ten seconds) with the view, not in its first game: a throwaway game of random seats
        on draws of a generator of its own, then one observation."""
        n = len(self.seat_kinds)
        self.draws[:] = np.random.default_rng(0).integers(0, 2**32, size=self.draws.shape, dtype=np.uint32)
        self.drawn[:] = 0
        self.seat_kinds[:] = kernel.RANDOM
        self.seat_rows[:] = 1
        self._new_game()
        self.learner = 0
        self._call_play(-1)  # the seats before seat 0 play: one call, whatever it stopped for
        self.observe(self.view.env.observer.new_buffer())
        self.drawn[:] = self.draws.shape[1]  # nothing buffered

    # --- generators -------------------------------------------------------------------
    def _fill(self, row: int, rng: np.random.Generator) -> None:
        """Buffer ``rng``'s next outputs in ``row`` (syncing whatever was buffered there)."""
        self._sync_row(row)
        buffer = self.buffers[row]
        buffer.rng, buffer.state_before = rng, rng.bit_generator.state
        self.draws[row] = rng.integers(0, 2**32, size=self.draws.shape[1], dtype=np.uint32)
        self.drawn[row] = 0

    def _sync_row(self, row: int) -> None:
        buffer = self.buffers[row]
        if buffer.rng is None:
            return
        buffer.rng.bit_generator.state = buffer.state_before
        used = int(self.drawn[row])
        if used:
            buffer.rng.integers(0, 2**32, size=used, dtype=np.uint32)
        buffer.rng = None
        self.drawn[row] = self.draws.shape[1]

    def sync(self) -> None:
        """Every generator back where the games left it (nothing buffered)."""
        for row in range(len(self.buffers)):
            self._sync_row(row)

    def _ensure_draws(self) -> None:
        """Every generator of this episode buffered, with room for a move."""
        view = self.view
        for row, buffer in enumerate(self.buffers):
            rng = view.np_random if row == 0 else view.opponents[row - 1].rng
            if buffer.rng is not rng or self.drawn[row] > self.draws.shape[1] - kernel.DRAWS_PER_MOVE:
                self._fill(row, rng)

    def _make_room(self) -> None:
        """Room for the next move (:func:`kernel.short_of_room`): buffered draws, and twice
        the arrays that filled up (the compiled entry takes them as it took the first)."""
        self._ensure_draws()
        scalars = self.scalars
        if scalars[kernel.EVENTS_LEN] > len(self.events) - 2 * kernel.EVENTS_PER_MOVE:
            self.events = np.concatenate([self.events, np.zeros_like(self.events)])
        if scalars[kernel.ACTIONS_LEN] >= len(self.actions) - 1:
            self.actions = np.concatenate([self.actions, np.zeros_like(self.actions)])
        if scalars[kernel.ROUNDS_ENDED] >= len(self.round_points) - 1:
            self.round_points = np.concatenate([self.round_points, np.zeros_like(self.round_points)])

    # --- playing ----------------------------------------------------------------------
    def new_episode(self, learner: int, agents_by_seat: list) -> float:
        """Deal a game from the view's generator and play the other seats up to the
        learner's first decision; returns the learner's rewards from those moves."""
        view = self.view
        self.learner = learner
        for seat, agent in enumerate(agents_by_seat):
            if agent is None:
                self.seat_kinds[seat], self.seat_rows[seat] = kernel.LEARNER, 0
            else:
                k = view.opponents.index(agent)
                self.seat_kinds[seat], self.seat_rows[seat] = self.agent_kinds[k], 1 + k
        self._ensure_draws()
        self._episode_start = (type(view.np_random.bit_generator), self.buffers[0].state_before, int(self.drawn[0]))
        self._game, self._game_actions = None, 0
        self._new_game()
        self.scores_float[:] = 0.0
        return self._play(-1)[1]

    def step(self, action: int) -> tuple[float, float]:
        """The learner's legal ``action``, then the other seats' moves; the learner's rewards
        from its own move and from the others' (the Python view adds them in that order)."""
        return self._play(action)

    def _play(self, action: int) -> tuple[float, float]:
        scalars = self.scalars
        scalars[kernel.ROUNDS_ENDED] = 0
        scalars[kernel.LEARNER_ROUNDS_ENDED] = 0
        while True:
            status = self._call_play(action)
            if status == kernel.DONE:
                break
            self._make_room()
            if status == kernel.NEEDS_ROOM:
                action = -1  # the learner's move is made: go on with the others'
        if scalars[kernel.ROUNDS_ENDED] or scalars[kernel.TERMINAL]:
            return self._rewards()
        return 0.0, 0.0

    def _new_game(self) -> None:
        kernel.new_game(self.setup, self.scalars, self.card_types, self.points, self.hands, self.hand_len, self.held,
                        self.draw_pile, self.discard_pile, self.knowledge.known, self.knowledge.learned_at,
                        self.knowledge.decided_at, self.scores, self.events, self.draws, self.drawn)

    def _call_play(self, action: int) -> int:
        """:func:`kernel.play` on this twin's arrays; its status."""
        self._play_kernel(
            action, self.learner, self.seat_kinds, self.seat_rows, self.setup, self.scalars, self.kind_of,
            self.slot_of, self.offset_of, self.card_types, self.ranks, self.points, self.hands, self.hand_len,
            self.held, self.draw_pile, self.discard_pile, self.knowledge.known, self.knowledge.learned_at,
            self.knowledge.decided_at, self.scores, self.selected_slots, self.events, self.actions,
            self.round_points, self.draws, self.drawn, self.mask, self.hands_flat)
        return self.scalars[kernel.STATUS]

    def _play_kernel(self, *args) -> None:
        """The compiled loop; the first call replaces this attribute by its entry point for
        these argument types (the arrays' types never change), which skips numba's dispatch
        on 29 arguments."""
        self._play_kernel = fixed_type_entry(kernel.play, args)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_play_kernel", None)  # a compiled entry point: made again at the first call
        return state

    def _rewards(self) -> tuple[float, float]:
        """The learner's rewards from its own move and from the others' moves in the last
        call, by the raw env's reward rules: a move ends at most one round, and the others'
        are summed move by move from 0.0, as the Python view sums them."""
        scalars, env = self.scalars, self.view.env
        ended, own = int(scalars[kernel.ROUNDS_ENDED]), int(scalars[kernel.LEARNER_ROUNDS_ENDED])
        if ended:
            self.scores_float[:] = self.scores
        if env.reward_mode == "outcome":
            if not scalars[kernel.TERMINAL]:
                return 0.0, 0.0
            outcome = env.outcome_reward(self.learner in self.winners())
            return (outcome, 0.0) if own == ended and own else (0.0, outcome)
        rewards = [float(env.round_end_rewards(tuple(self.round_points[row].tolist()), self._in_round)[self.learner])
                   for row in range(ended)]
        others = 0.0
        for reward in rewards[own:]:
            others += reward
        return (rewards[0] if own else 0.0), others

    # --- what the view reads ----------------------------------------------------------
    # ``item`` gives a Python int at a fraction of the cost of indexing and converting.
    @property
    def is_terminal(self) -> bool:
        return self.scalars.item(kernel.TERMINAL) != 0

    @property
    def is_truncated(self) -> bool:
        return self.scalars.item(kernel.TRUNCATED) != 0

    @property
    def current_player(self) -> int | None:
        current = self.scalars.item(kernel.CURRENT)
        return None if current == EMPTY else current

    @property
    def phase(self) -> int:
        return self.scalars.item(kernel.PHASE)

    @property
    def final_turns_left(self) -> int:
        return self.scalars.item(kernel.FINAL_TURNS_LEFT)

    @property
    def turns_completed(self) -> int:
        return self.scalars.item(kernel.TURNS)

    @property
    def selected(self) -> list[int]:
        count = self.scalars.item(kernel.SELECTED_LEN)
        return self.selected_slots[:count].tolist() if count else []

    @property
    def jack_slot(self) -> int:
        return self.scalars.item(kernel.JACK_SLOT)

    def winners(self) -> list[int]:
        return lowest(self.scores.tolist())

    def legal_action_mask(self) -> np.ndarray:
        """The learner's mask (int8; all zero while another seat is to act or once over)."""
        return self.mask

    def is_legal(self, action: int) -> bool:
        return 0 <= action < len(self.mask) and self.mask.item(action) != 0

    def observe(self, out: np.ndarray) -> np.ndarray:
        """The learner's observation, written into ``out``."""
        scalars = self.scalars
        me = self.current_player
        discard_len = scalars.item(kernel.DISCARD_LEN)
        return self.view.env.observer.write_facts(
            out, self.learner, self, self.hands_flat, self.knowledge, self.card_types,
            self.discard_pile.item(discard_len - 1) if discard_len else EMPTY,
            EMPTY if me is None else self.held.item(me), scalars.item(kernel.CALLER), scalars.item(kernel.DRAW_LEN),
            discard_len, self.scores_float, self.events[: scalars.item(kernel.EVENTS_LEN)])

    def game(self):
        """The Python state of the game in progress, rebuilt from its actions (kept, and
        brought up to date at the next call)."""
        env = self.view.env
        if self._game is None:
            bit_generator_class, state_before, drawn = self._episode_start
            rng = np.random.Generator(bit_generator_class())
            rng.bit_generator.state = state_before
            if drawn:
                rng.integers(0, 2**32, size=drawn, dtype=np.uint32)
            self._game = env.state_class(env.config, rng, None)
            self._game_actions = 0
        played = int(self.scalars[kernel.ACTIONS_LEN])
        for action in self.actions[self._game_actions: played].tolist():
            self._game.apply(action)
        self._game_actions = played
        return self._game

