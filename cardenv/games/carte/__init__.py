"""carte: family rummy with "carte": multiset hands, melds with jokers, catch windows, eliminations (docs/carte.md)."""

from cardenv.games.carte.heuristic import CarteHeuristic
from cardenv.games.carte.mini import MINI_VARIANT
from cardenv.games.carte.observation import CarteObserver, build_layout
from cardenv.games.carte.rules import MAX_MELDS, MELD_POINTS, POINTS, CarteConfig, CarteState, Phase, build_action_table
from cardenv.rulesets import Ruleset

RULESET = Ruleset(
    name="carte_v0",
    title="carte",
    config=CarteConfig,
    state=CarteState,
    observer=CarteObserver,
    heuristic=CarteHeuristic,
    call_kinds=('carte',),
    mini_variant=MINI_VARIANT,
    package=__name__,
    docs="docs/carte.md",
    env_doc="""carte for 2–6 players: rummy on a 108-card double deck with jokers, melds on the
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
-1 to everyone else at the game's end.""",
)

__all__ = ['CarteConfig', 'CarteHeuristic', 'CarteObserver', 'CarteState', 'MAX_MELDS', 'MELD_POINTS', 'MINI_VARIANT', 'POINTS', 'Phase', 'RULESET', 'build_action_table', 'build_layout']
