"""cut_v0: "Cut!" as a PettingZoo AEC environment (docs/cut.md)."""

from __future__ import annotations

from cardenv.envs.base import CardGameEnv, make_env_constructor, make_parallel_env_constructor
from cardenv.games.cut import CutConfig, CutObserver, CutState


class raw_env(CardGameEnv):
    """Cut! for 2–6 players.

    Ruleset options: ``num_players`` (2–6, default 4), ``target_score`` (100),
    ``max_turns_per_round`` (200), ``single_round`` (False), ``memory``
    (``"perfect"`` or ``"none"``), ``power_on_replace`` (True: a 5, 6, Q or K leaving the
    grid by replacement fires its power, C-07), ``max_hand_slots`` (8: a match attempt is
    legal only while the hand has an empty slot or fewer slots, so a penalty card always
    fits), ``max_rounds`` (100: the episode is truncated after this many rounds; None for
    no limit).
    """

    metadata = {**CardGameEnv.metadata, "name": "cut_v0"}
    config_class = CutConfig
    state_class = CutState
    observer_class = CutObserver


env = make_env_constructor(raw_env)
parallel_env = make_parallel_env_constructor(raw_env)
