"""The pure rules engine of "150": no PettingZoo here."""

from cardenv.games.onefifty.observation import OneFiftyObserver, build_layout
from cardenv.games.onefifty.rules import POINTS, OneFiftyConfig, OneFiftyState, Phase, build_action_table

__all__ = ["POINTS", "OneFiftyConfig", "OneFiftyObserver", "OneFiftyState", "Phase", "build_action_table", "build_layout"]
