"""onefifty_v0: "150" as a PettingZoo AEC environment (docs/onefifty.md)."""

from __future__ import annotations

from cardenv.envs.base import CardGameEnv, make_env_constructor, make_parallel_env_constructor
from cardenv.games.onefifty import OneFiftyConfig, OneFiftyObserver, OneFiftyState


class raw_env(CardGameEnv):
    """150 for 3–6 players.

    Ruleset options: ``num_players`` (3–6, default 4), ``target_score`` (150),
    ``max_turns_per_round`` (200), ``single_round`` (False), ``memory``
    (``"perfect"`` or ``"none"``), ``max_hand_slots`` (12: a Match may start only while
    the hand has fewer slots, so a penalty slot always fits), ``max_rounds`` (100: the
    episode is truncated after this many rounds; None for no limit).
    """

    metadata = {**CardGameEnv.metadata, "name": "onefifty_v0"}
    config_class = OneFiftyConfig
    state_class = OneFiftyState
    observer_class = OneFiftyObserver


env = make_env_constructor(raw_env)
parallel_env = make_parallel_env_constructor(raw_env)
