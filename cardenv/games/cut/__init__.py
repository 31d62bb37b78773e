"""The pure rules engine of "Cut!": no PettingZoo here."""

from cardenv.games.cut.observation import CutObserver, build_layout
from cardenv.games.cut.rules import POINTS, CutConfig, CutState, Phase, build_action_table

__all__ = ["POINTS", "CutConfig", "CutObserver", "CutState", "Phase", "build_action_table", "build_layout"]
