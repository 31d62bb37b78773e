"""carte_v0: family rummy with "carte" as a PettingZoo AEC environment (docs/carte.md)."""

from __future__ import annotations

from cardenv.envs.base import CardGameEnv, make_env_constructor, make_parallel_env_constructor
from cardenv.games.carte import CarteConfig, CarteObserver, CarteState


class raw_env(CardGameEnv):
    """carte for 2–6 players: rummy on a 108-card double deck with jokers, melds on the
    table, "carte" said before the last card, catches, eliminations.

    Ruleset options: ``num_players`` (2–6, default 4), ``starting_score`` (100: every
    player starts on it and subtracts what is left in hand each round; at 0 or below a
    player is out, R-16/R-17), ``max_turns_per_round`` (200 goes: a safety cap that ends
    a round as if the stock had run out again, R-15), ``single_round`` (False),
    ``memory`` (``"perfect"`` or ``"none"``), ``max_rounds`` (100: the episode is
    truncated after this many rounds; None for no limit), ``recent_events`` (16 rows of
    the public-events piece).

    Rewards: ``reward_mode="points"`` (default) pays every agent ``-reward_scale`` × the
    points it lost at each round's end; ``"relative"`` pays ``reward_scale`` × (the mean of
    the points the round's players lost − its own); ``"outcome"`` pays +1 to the winners (R-18) and
    -1 to everyone else at the game's end.
    """

    metadata = {**CardGameEnv.metadata, "name": "carte_v0"}
    config_class = CarteConfig
    state_class = CarteState
    observer_class = CarteObserver


env = make_env_constructor(raw_env)
parallel_env = make_parallel_env_constructor(raw_env)
