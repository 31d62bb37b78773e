"""150: a memory card game of matching, J/Q/K powers and the call END (docs/onefifty.md)."""

from cardenv.games.onefifty.heuristic import OneFiftyHeuristic
from cardenv.games.onefifty.mini import MINI_VARIANT
from cardenv.games.onefifty.observation import OneFiftyObserver, build_layout
from cardenv.games.onefifty.rules import POINTS, OneFiftyConfig, OneFiftyState, Phase, build_action_table
from cardenv.rulesets import Ruleset

RULESET = Ruleset(
    name="onefifty_v0",
    title="150",
    config=OneFiftyConfig,
    state=OneFiftyState,
    observer=OneFiftyObserver,
    heuristic=OneFiftyHeuristic,
    call_kinds=('call',),
    mini_variant=MINI_VARIANT,
    package=__name__,
    docs="docs/onefifty.md",
    env_doc="""150 for 3–6 players.

Ruleset options: ``num_players`` (3–6, default 4), ``target_score`` (150),
``max_turns_per_round`` (200), ``single_round`` (False), ``memory``
(``"perfect"`` or ``"none"``), ``max_hand_slots`` (12: a Match may start only while
the hand has fewer slots, so a penalty slot always fits), ``max_rounds`` (100: the
episode is truncated after this many rounds; None for no limit).""",
)

__all__ = ['MINI_VARIANT', 'OneFiftyConfig', 'OneFiftyHeuristic', 'OneFiftyObserver', 'OneFiftyState', 'POINTS', 'Phase', 'RULESET', 'build_action_table', 'build_layout']
