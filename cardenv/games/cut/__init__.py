"""Cut!: a memory card game of simultaneous match windows, call-outs and 5/6/Q/K powers (docs/cut.md)."""

from cardenv.games.cut.heuristic import CutHeuristic
from cardenv.games.cut.mini import MINI_VARIANT
from cardenv.games.cut.observation import CutObserver, build_layout
from cardenv.games.cut.rules import POINTS, CutConfig, CutState, Phase, build_action_table
from cardenv.rulesets import Ruleset

RULESET = Ruleset(
    name="cut_v0",
    title="Cut!",
    config=CutConfig,
    state=CutState,
    observer=CutObserver,
    heuristic=CutHeuristic,
    call_kinds=('cut',),
    mini_variant=MINI_VARIANT,
    package=__name__,
    docs="docs/cut.md",
    env_doc="""Cut! for 2–6 players.

Ruleset options: ``num_players`` (2–6, default 4), ``target_score`` (100),
``max_turns_per_round`` (200), ``single_round`` (False), ``memory``
(``"perfect"`` or ``"none"``), ``power_on_replace`` (True: a 5, 6, Q or K leaving the
grid by replacement fires its power, C-07), ``max_hand_slots`` (8: a match attempt is
legal only while the hand has an empty slot or fewer slots, so a penalty card always
fits), ``max_rounds`` (100: the episode is truncated after this many rounds; None for
no limit).""",
)

__all__ = ['CutConfig', 'CutHeuristic', 'CutObserver', 'CutState', 'MINI_VARIANT', 'POINTS', 'Phase', 'RULESET', 'build_action_table', 'build_layout']
