"""The pure rules engine of "KABOOM": no PettingZoo here."""

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

__all__ = ["POINTS", "KaboomConfig", "KaboomObserver", "KaboomRoundResult", "KaboomState", "Phase",
           "build_action_table", "build_layout", "snaps_onto"]
