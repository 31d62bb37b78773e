"""Tournaments between agents, and two agents head to head, with confidence intervals (numpy only)."""

from cardenv.eval.compare import ComparisonResult, compare
from cardenv.eval.intervals import wilson_interval
from cardenv.eval.tournament import GameOutcome, TournamentResult, format_table, run_tournament, seating

__all__ = ["ComparisonResult", "GameOutcome", "TournamentResult", "compare", "format_table", "run_tournament",
           "seating", "wilson_interval"]
