"""Tournaments between agents, with confidence intervals (numpy only)."""

from cardenv.eval.intervals import wilson_interval
from cardenv.eval.tournament import GameOutcome, TournamentResult, format_table, run_tournament, seating

__all__ = ["GameOutcome", "TournamentResult", "format_table", "run_tournament", "seating", "wilson_interval"]
