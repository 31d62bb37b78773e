"""The pure rules engine of carte: no PettingZoo here."""

from cardenv.games.carte.observation import CarteObserver, build_layout
from cardenv.games.carte.rules import (
    MAX_MELDS,
    MELD_POINTS,
    POINTS,
    CarteConfig,
    CarteState,
    Phase,
    build_action_table,
)

__all__ = ["MAX_MELDS", "MELD_POINTS", "POINTS", "CarteConfig", "CarteObserver", "CarteState", "Phase",
           "build_action_table", "build_layout"]
