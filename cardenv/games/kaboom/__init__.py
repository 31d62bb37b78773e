"""KABOOM: a memory card game of 54 cards with jokers, snaps by colour, eight powers and several callers (docs/kaboom.md)."""

from cardenv.games.kaboom.heuristic import KaboomHeuristic
from cardenv.games.kaboom.mini import MINI_VARIANT
from cardenv.games.kaboom.observation import KaboomObserver, build_layout
from cardenv.games.kaboom.rules import (
    POINTS,
    KaboomConfig,
    KaboomRoundResult,
    KaboomState,
    Phase,
    build_action_table,
    snaps_onto,
)
from cardenv.rulesets import Ruleset

RULESET = Ruleset(
    name="kaboom_v0",
    title="KABOOM",
    config=KaboomConfig,
    state=KaboomState,
    observer=KaboomObserver,
    heuristic=KaboomHeuristic,
    call_kinds=('kaboom',),
    mini_variant=MINI_VARIANT,
    package=__name__,
    docs="docs/kaboom.md",
    env_doc="""KABOOM for 2–8 players.

Ruleset options: ``num_players`` (2–8, default 4), ``target_score`` (100),
``max_turns_per_round`` (200), ``single_round`` (False), ``memory``
(``"perfect"`` or ``"none"``), ``elimination`` (False: the game ends when a total
reaches the target; True: a player who reaches it leaves the game, K-19, while
the others play on; what becomes of its agent is ``eliminated_agents``, see
:class:`~cardenv.envs.base.CardGameEnv`), ``max_hand_slots`` (8: a snap
attempt is legal only while two penalty cards fit after the hand's last card, K-13),
``max_rounds`` (100: the episode is truncated after this many rounds; None for no
limit), ``recent_events`` (8).""",
)

__all__ = ['KaboomConfig', 'KaboomHeuristic', 'KaboomObserver', 'KaboomRoundResult', 'KaboomState', 'MINI_VARIANT', 'POINTS', 'Phase', 'RULESET', 'build_action_table', 'build_layout', 'snaps_onto']
