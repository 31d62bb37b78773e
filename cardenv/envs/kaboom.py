"""kaboom_v0: "KABOOM" as a PettingZoo AEC environment (docs/kaboom.md)."""

from __future__ import annotations

from cardenv.envs.base import CardGameEnv, make_env_constructor, make_parallel_env_constructor
from cardenv.games.kaboom import KaboomConfig, KaboomObserver, KaboomState


class raw_env(CardGameEnv):
    """KABOOM for 2–8 players.

    Ruleset options: ``num_players`` (2–8, default 4), ``target_score`` (100),
    ``max_turns_per_round`` (200), ``single_round`` (False), ``memory``
    (``"perfect"`` or ``"none"``), ``elimination`` (False: the game ends when a total
    reaches the target; True: a player who reaches it leaves the game, K-19, while
    the others play on; what becomes of its agent is ``eliminated_agents``, see
    :class:`~cardenv.envs.base.CardGameEnv`), ``max_hand_slots`` (8: a snap
    attempt is legal only while two penalty cards fit after the hand's last card, K-13),
    ``max_rounds`` (100: the episode is truncated after this many rounds; None for no
    limit), ``recent_events`` (8).
    """

    metadata = {**CardGameEnv.metadata, "name": "kaboom_v0"}
    config_class = KaboomConfig
    state_class = KaboomState
    observer_class = KaboomObserver


env = make_env_constructor(raw_env)
parallel_env = make_parallel_env_constructor(raw_env)
