"""Showing score cards: a terminal table (rich) and a PNG of the candidate on the ladder."""

from __future__ import annotations

from collections.abc import Sequence
from io import StringIO

from cardenv.rating.rate import ScoreCard


def format_cards(cards: Sequence[ScoreCard]) -> str:
    """The score cards as text: per ruleset, the rating line, then the candidate's and
    every rung's win share against each field on the same deals; last, the command."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    buffer = StringIO()
    console = Console(file=buffer, width=200, no_color=True, color_system=None, highlight=False)
    first = cards[0]
    console.print(f"cardenv {first.cardenv_version}, rating protocol {first.protocol.version}"
                  f"{' (quick)' if first.quick else ''}: {first.protocol.zero} = 0, {first.protocol.thousand} = 1000")
    for card in cards:
        console.print()
        console.print(card.describe())
        table = Table(box=box.ASCII2, header_style="bold")
        table.add_column("win share vs 3 x", justify="left")
        table.add_column("games", justify="right")
        table.add_column(card.agent, justify="right")
        table.add_column("pts/round", justify="right")
        for rung in card.protocol.rungs:
            table.add_column(rung, justify="right")
        for row in card.rows:
            low, high = row.candidate.win_share_ci95
            table.add_row(row.field, str(row.candidate.games), f"{row.candidate.win_share:.3f} [{low:.2f}, {high:.2f}]",
                          f"{row.candidate.points_per_round:.2f}",
                          *(f"{row.rungs[rung].win_share:.3f}" for rung in card.protocol.rungs))
        table.add_row("rating", "", f"{card.rating:.0f} [{card.rating_ci95[0]:.0f}, {card.rating_ci95[1]:.0f}]", "",
                      *(f"{card.ladder[rung][0]:.0f} ± {card.ladder[rung][1]:.0f}" for rung in card.protocol.rungs))
        console.print(table)
        for name, extra in card.extras.items():
            console.print(f"{name}: {extra['describe']}")
    console.print()
    console.print(f"command: {first.command}")
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())


def draw_cards(cards: Sequence[ScoreCard], path: str) -> None:
    """A PNG: per ruleset, the rungs' ratings and the candidate's, with their intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(len(cards), 1, figsize=(7, 0.5 + 2.2 * len(cards)), squeeze=False)
    for axis, card in zip(axes[:, 0], cards):
        names = [*card.ladder, f"{card.agent} (rated)"]
        ratings = [card.ladder[rung][0] for rung in card.ladder] + [card.rating]
        halves = [card.ladder[rung][1] for rung in card.ladder] + [(card.rating_ci95[1] - card.rating_ci95[0]) / 2]
        colours = ["tab:gray"] * len(card.ladder) + ["tab:red"]
        order = sorted(range(len(names)), key=lambda i: ratings[i])
        for y, i in enumerate(order):
            axis.errorbar(ratings[i], y, xerr=halves[i], fmt="o", color=colours[i], capsize=3)
        axis.set_yticks(range(len(order)), [names[i] for i in order])
        axis.set_title(f"{card.ruleset}: {card.agent} {card.rating:.0f} "
                       f"[{card.rating_ci95[0]:.0f}, {card.rating_ci95[1]:.0f}]", fontsize=10)
        axis.axvline(0, color="lightgray", linewidth=0.8)
        axis.axvline(1000, color="lightgray", linewidth=0.8)
        axis.set_xlabel(f"rating (protocol {card.protocol.version}{', quick' if card.quick else ''}; "
                        f"95% intervals)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
