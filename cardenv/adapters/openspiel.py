"""Every cardenv ruleset as an OpenSpiel game (the ``openspiel`` extra).

Importing this module registers, with ``pyspiel``::

    import cardenv.adapters.openspiel  # noqa: F401  (registers the games)
    game = pyspiel.load_game("cardenv_<game>_v0(players=3)")
    mini = pyspiel.load_game("cardenv_<game>_mini")

``cardenv_<ruleset>`` for every registered ruleset (:mod:`cardenv.rulesets`) and
``cardenv_<game>_mini`` for its mini variant (:data:`MINI_VARIANTS`, small enough to
solve exactly). Game parameters are the env's options: ``players``
(``num_players``) and every option of the ruleset's config, with the env's defaults
(the mini variants' defaults are their option set); ``max_rounds`` must be a number
here, since an OpenSpiel game has a bounded length.

The game is the env's game, played by the same rules engine:

- **Chance is explicit.** The engine takes its random outcomes from an
  :class:`~cardenv.core.chance.ExternalChance`: every random event is a chance node
  (each card taken from a shuffled pile, the outcome being its card type with the
  probability of its share of the pile, which is the same game as a shuffle; a random
  first starter or dealer, one outcome per seat; the order in which a reaction window's
  attempts resolve, picked one attempt at a time). When the engine needs an outcome
  it stops; the step is replayed from the position before it once the outcome is
  chosen, so no rule is written twice.
- **Observations** (``observation_tensor``) are the env's observation vector, written by
  the ruleset's observer with the game's ``memory`` and ``recent_events``.
- **Information states** have perfect recall: per player, a digest chained over that
  player's ``memory="perfect"`` observation after every step and their own actions
  (``information_state_string`` is ``p<seat>:<digest>``; the tensor holds the same
  digest as 256 bits). They identify information sets (for CFR, best responses and
  ISMCTS); they are no features to learn from.
- **Returns** are zero-sum points: at the end, each player gets the table's mean of
  the points added over the game minus their own. The env's default rewards are
  ``-reward_scale * points added`` at each round end; their sum is this return (divided
  by ``reward_scale``) minus the table's mean. Rewards come only at the end.
"""

from __future__ import annotations

import dataclasses
import hashlib
from functools import lru_cache
from typing import Any

import numpy as np
import pyspiel

from cardenv.core.cards import card_name
from cardenv.core.chance import CARD, NEXT, SEAT, ChanceNeeded, ExternalChance
from cardenv.core.scoring import points_relative_to_table
from cardenv.envs.info import ruleset_info
from cardenv.rulesets import mini_variants, ruleset_names

MINI_VARIANTS = mini_variants()

DIGEST_SIZE = 32  # bytes of an information state's digest

# Config options that are not game parameters under their own name.
_RENAMED = {"num_players": "players"}


def game_name(ruleset: str, mini: bool = False) -> str:
    """``cardenv_<game>_v0``, or ``cardenv_<game>_mini`` for the mini variant."""
    return f"cardenv_{ruleset.removesuffix('_v0')}_mini" if mini else f"cardenv_{ruleset}"


def _parameter_defaults(ruleset: str, mini: bool) -> dict[str, Any]:
    info = ruleset_info(ruleset, **(MINI_VARIANTS[ruleset] if mini else {}))
    defaults = {}
    for option in dataclasses.fields(info.config):
        value = getattr(info.config, option.name)
        if value is None:
            continue  # only max_rounds may be None: here it must be a number (the default below)
        defaults[_RENAMED.get(option.name, option.name)] = value
    defaults.setdefault("max_rounds", 100)
    return defaults


def env_options(ruleset: str, params: dict[str, Any]) -> dict[str, Any]:
    """The env options (``cardenv.<ruleset>.env(**options)``) of a game's parameters."""
    back = {v: k for k, v in _RENAMED.items()}
    return {back.get(name, name): value for name, value in params.items()}


class _Spec:
    """What every state of one game shares: the engine's class and config, the
    observers. Shared, never copied, and pickled as its game's name and parameters."""

    def __init__(self, ruleset: str, options: dict[str, Any]):
        self.ruleset = ruleset
        self.options = options
        info = ruleset_info(ruleset, **options)
        self.config = info.config
        self.state_class = info.state_class
        self.observer = info.observer_class(info.config)
        perfect = dataclasses.replace(info.config, memory="perfect")
        self.recall_observer = self.observer if info.config.memory == "perfect" else info.observer_class(perfect)
        self.num_players = info.config.num_players
        self.action_table = info.action_table

    def __reduce__(self):
        return (_spec, (self.ruleset, tuple(sorted(self.options.items()))))

    def __deepcopy__(self, memo):
        return self


@lru_cache(maxsize=64)
def _spec(ruleset: str, frozen_options: tuple) -> _Spec:
    return _Spec(ruleset, dict(frozen_options))


class _Position:
    """One state's progress, held in a single attribute: OpenSpiel's ``clone()`` deep-copies
    a state's attributes, and an engine copies itself far faster than deepcopy does.

    ``engine`` is the game after the last completed step (None before the deal);
    ``pending`` the step being completed (``_START`` for the deal); ``outcomes`` the
    chance outcomes chosen for it; ``needed`` the outcome asked for now."""

    __slots__ = ("spec", "engine", "pending", "outcomes", "needed", "digests", "observations")

    def __deepcopy__(self, memo):
        other = _Position.__new__(_Position)
        other.spec = self.spec
        other.engine = self.engine  # replaced, never changed in place: see _complete_step
        other.pending = self.pending
        other.outcomes = self.outcomes.copy()
        other.needed = self.needed
        other.digests = self.digests.copy()
        other.observations = self.observations
        return other

    def __getstate__(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state):
        for name, value in state.items():
            setattr(self, name, value)


_START = -1


class CardenvGame(pyspiel.Game):
    """One ruleset (or its mini variant) as an OpenSpiel game; see the module docstring."""

    ruleset: str
    mini: bool

    def __init__(self, params=None):
        params = {**_parameter_defaults(self.ruleset, self.mini), **(params or {})}
        self.spec = _spec(self.ruleset, tuple(sorted(env_options(self.ruleset, params).items())))
        spec = self.spec
        config, n = spec.config, spec.num_players
        probe = spec.state_class(config, np.random.default_rng(0))
        num_types = int(probe.table.card_types.max()) + 1
        deck_size = probe.table.num_cards
        rounds = 1 if config.single_round else config.max_rounds
        bound = float(2 * rounds * _round_points_bound(spec, probe))
        # Bounds for OpenSpiel's sizes: per turn twice the deck's cards in decisions plus a
        # window decision per player for each card (selections, powers and windows are all
        # about cards), per round the turn cap. A chain of reaction windows is not capped
        # by the rules (with two cards of a rank, penalties and reshuffles can feed it), so
        # a game could in principle outgrow them; the mini variants' decks cannot chain.
        turns = config.max_turns_per_round
        decisions = rounds * turns * (2 * deck_size + n * deck_size)
        self._max_chance = rounds * (turns + 1) * (deck_size + n)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(spec.action_table),
            max_chance_outcomes=max(num_types, n),
            num_players=n,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=decisions,
        )
        super().__init__(self.game_type, info, params)

    def new_initial_state(self):
        return CardenvState(self)

    def max_chance_nodes_in_history(self):
        return self._max_chance

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"{self.game_type.short_name} observers take no parameters, got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        if iig_obs_type is not None and (not iig_obs_type.public_info
                                         or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            # Only a player's own view is offered (no factored public/private parts):
            # None is OpenSpiel's answer for an observation type a game does not support.
            return None
        return InformationStateObserver() if perfect_recall else ObservationObserver(self.spec)


def _round_points_bound(spec: _Spec, probe) -> int:
    """The most one player adds (or, negated, takes off) in a round: the observer's bound
    where it has one, else every card of the deck in one hand."""
    bound = getattr(spec.observer, "max_round_points", None)
    if bound is not None:
        return bound() + 14  # K-16: a round can also subtract the red Kings and a call bonus
    points = probe.points
    return int(sum(abs(int(points[t])) for t in probe.table.card_types))


class CardenvState(pyspiel.State):
    """A position: a chance node while the engine waits for an outcome, else the engine's."""

    def __init__(self, game: CardenvGame):
        super().__init__(game)
        position = _Position.__new__(_Position)
        position.spec = game.spec
        position.engine = None
        position.pending = _START
        position.outcomes = []
        position.needed = None
        position.digests = [hashlib.blake2b(b"p%d" % p, digest_size=DIGEST_SIZE).digest()
                            for p in range(game.spec.num_players)]
        position.observations = None
        self._position = position
        self._complete_step()

    # --- the engine ------------------------------------------------------------------
    @property
    def engine(self):
        """The rules engine after the last completed step (None before the deal ends);
        clones of the state share it, so read it, never change it."""
        return self._position.engine

    def _complete_step(self) -> None:
        """Replay the pending step with the outcomes chosen so far: it completes, or it
        stops at the next chance event."""
        position = self._position
        spec = position.spec
        chance = ExternalChance(position.outcomes)
        try:
            if position.pending == _START:
                engine = spec.state_class(spec.config, chance)
            else:
                engine = position.engine.clone()
                engine.chance = chance
                engine.apply(position.pending)
        except ChanceNeeded as needed:
            position.needed = needed
            return
        engine.chance = ExternalChance()
        acted = position.pending
        actor = None if acted == _START else position.engine.current_player
        position.engine = engine
        position.pending = None
        position.outcomes = []
        position.needed = None
        observations = [_observe(spec.recall_observer, engine, p) for p in range(spec.num_players)]
        position.observations = None if spec.recall_observer is not spec.observer else observations
        for p, observation in enumerate(observations):
            chain = hashlib.blake2b(position.digests[p], digest_size=DIGEST_SIZE)
            chain.update(observation.tobytes())
            if p == actor:
                chain.update(b"A%d" % acted)
            position.digests[p] = chain.digest()

    # --- OpenSpiel's interface -------------------------------------------------------
    def current_player(self):
        position = self._position
        if position.needed is not None:
            return pyspiel.PlayerId.CHANCE
        if position.engine.is_terminal:
            return pyspiel.PlayerId.TERMINAL
        return position.engine.current_player

    def _legal_actions(self, player):
        return self._position.engine.legal_actions()

    def chance_outcomes(self):
        return list(self._position.needed.outcomes)

    def _apply_action(self, action):
        position = self._position
        if position.needed is not None:
            position.outcomes.append(int(action))
        else:
            position.pending = int(action)
        self._complete_step()

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            needed = self._position.needed
            kind = needed.kind if needed is not None else None
            if kind == CARD:
                return f"chance: {card_name(action)}"
            if kind == NEXT:
                return f"chance: player_{action} resolves next"
            if kind == SEAT:
                return f"chance: {needed.what} is player_{action}"
            return f"chance: {action}"
        return self._position.spec.action_table.name(action)

    def is_terminal(self):
        position = self._position
        return position.needed is None and position.engine.is_terminal

    def returns(self):
        position = self._position
        n = position.spec.num_players
        if not self.is_terminal():
            return [0.0] * n
        added = np.zeros(n)
        for result in position.engine.round_results:
            added += result.points_added
        return points_relative_to_table(added.tolist(), range(n))

    def information_state_digest(self, player: int) -> bytes:
        return self._position.digests[player]

    def resample_for(self, player: int, rng: np.random.Generator) -> CardenvState:
        """A copy in which the cards ``player`` does not know are dealt again at random,
        consistently with all ``player`` knows (the engine's ``sample_world``): a
        determinization for search. Its chains are the real ones, so it has the same
        information state for ``player``; feed it to no solver."""
        position = self._position
        if position.needed is not None or position.engine.is_terminal:
            raise ValueError("resample at a decision node: chance nodes and the end have nothing hidden to deal")
        world = self.clone()
        engine = position.engine.sample_world(player, rng)
        engine.chance = ExternalChance()
        world._position.engine = engine
        return world

    def __str__(self):
        position = self._position
        if position.engine is None:
            return f"dealing ({len(position.outcomes)} outcome(s) chosen)"
        text = position.engine.render_text(None, recent_events=0)
        if position.needed is not None:
            text += f"\nchance: {position.needed.what} ({len(position.outcomes)} outcome(s) chosen)"
        return text


def _observe(observer, engine, player: int) -> np.ndarray:
    buffer = observer.new_buffer()
    observer.write(engine, player, buffer)
    return buffer


class ObservationObserver:
    """A player's observation: the env's vector."""

    def __init__(self, spec: _Spec):
        self.tensor = np.zeros(spec.observer.layout.size, np.float32)
        self.dict = {"observation": self.tensor}
        self._spec = spec

    def set_from(self, state: CardenvState, player: int) -> None:
        position = state._position
        if position.engine is None:
            self.tensor.fill(0)
        elif position.observations is not None:
            self.tensor[:] = position.observations[player]
        else:
            self._spec.observer.write(position.engine, player, self.tensor)

    def string_from(self, state: CardenvState, player: int) -> str:
        position = state._position
        if position.engine is None:
            return f"player_{player}: the deal"
        memory = position.spec.config.memory
        return position.engine.render_text(player, memory=memory, recent_events=0)


class InformationStateObserver:
    """A player's information state: the digest chained over the player's observations
    and actions (perfect recall), as a string and as 256 bits."""

    def __init__(self):
        self.tensor = np.zeros(DIGEST_SIZE * 8, np.float32)
        self.dict = {"digest": self.tensor}

    def set_from(self, state: CardenvState, player: int) -> None:
        bits = np.unpackbits(np.frombuffer(state._position.digests[player], dtype=np.uint8))
        self.tensor[:] = bits

    def string_from(self, state: CardenvState, player: int) -> str:
        return f"p{player}:{state._position.digests[player].hex()}"


def _register(ruleset: str, mini: bool) -> type[CardenvGame]:
    name = game_name(ruleset, mini)
    defaults = _parameter_defaults(ruleset, mini)
    info = ruleset_info(ruleset)
    config_class = type(info.config)
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"cardenv {ruleset}" + (" (mini variant)" if mini else ""),
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=config_class.max_players,
        min_num_players=config_class.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=defaults,
    )
    class_name = "".join(part.capitalize() for part in name.split("_")) + "Game"  # CardenvCutV0Game
    game_class = type(class_name, (CardenvGame,), {"ruleset": ruleset, "mini": mini, "game_type": game_type,
                                                   "__module__": __name__})
    globals()[class_name] = game_class  # pickled by reference, as a module attribute
    pyspiel.register_game(game_type, game_class)
    return game_class


GAME_NAMES: list[str] = []
if not any(t.short_name == game_name(ruleset_names()[0]) for t in pyspiel.registered_games()):
    for _ruleset in ruleset_names():
        for _mini in (False, True)[: 1 + (_ruleset in MINI_VARIANTS)]:
            _register(_ruleset, _mini)
            GAME_NAMES.append(game_name(_ruleset, _mini))
else:  # pragma: no cover - a reimported module (importlib.reload)
    GAME_NAMES = [game_name(r, m) for r in ruleset_names() for m in (False, True)[: 1 + (r in MINI_VARIANTS)]]

__all__ = ["CardenvGame", "CardenvState", "GAME_NAMES", "MINI_VARIANTS", "env_options", "game_name"]
