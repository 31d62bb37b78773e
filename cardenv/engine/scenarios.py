"""Scenarios: the keys of ``reset(options=...)`` that stack the deck, choose the starter
and set the starting scores, checked and parsed into card types (:func:`layout_from_options`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardenv.core import validation
from cardenv.core.cards import card_name_accepted, parse_card

SCENARIO_KEYS = ("hands", "draw_pile", "discard_pile", "starter", "scores")
"""The keys of ``reset(options=...)`` that set up a scenario."""


def layout_from_options(
    options: Mapping | None,
    num_players: int,
    *,
    max_hand_slots: int | None = None,
    score_bounds: tuple[int, int, str],
) -> dict | None:
    """Check the scenario keys of ``reset(options=...)`` and parse them into card types.

    Keys: ``hands`` (one list of card names per player, slot by slot), ``draw_pile``
    (the top of the draw pile, top card first), ``discard_pile`` (bottom first),
    ``starter`` (seat) and ``scores`` (cumulative totals to start from, one per player).
    Any other key is a ValueError.
    With ``max_hand_slots`` a hand may hold at most that many cards. A score must lie in
    ``score_bounds``, ``(lowest, highest, why)``: the ruleset's range of totals a game in
    progress can have, and why (its error message says both). Raises TypeError or ValueError as
    :mod:`cardenv.core.validation` describes.
    """
    options = validation.mapping("options", options)
    if not options:
        return None
    unknown = [key for key in options if key not in SCENARIO_KEYS]
    if unknown:
        # Keys are shown by repr: they need not be strings.
        what = "an unknown reset option" if len(unknown) == 1 else "unknown reset options"
        raise ValueError(f"options has {what} {', '.join(map(repr, unknown))}; the scenario keys are "
                         f"{', '.join(SCENARIO_KEYS)}")
    layout: dict = {}
    if "hands" in options:
        hands = validation.sequence("hands", options["hands"], "hands (lists of card names), one per player",
                                    num_players)
        layout["hands"] = [_scenario_cards(f"hands[{p}]", hand) for p, hand in enumerate(hands)]
        if max_hand_slots is not None:
            for p, hand in enumerate(hands):
                if len(hand) > max_hand_slots:
                    raise ValueError(f"hands[{p}] may hold at most max_hand_slots={max_hand_slots} cards, "
                                     f"got {len(hand)}: {validation.show(hand)}")
        layout["draw_pile"] = _scenario_cards("draw_pile", options.get("draw_pile", []))
        layout["discard_pile"] = _scenario_cards("discard_pile", options.get("discard_pile", []))
    else:
        for pile in ("draw_pile", "discard_pile"):
            if pile in options:
                raise ValueError(f"{pile} needs hands as well (a scenario lays out the whole table), "
                                 f"got {pile}={validation.show(options[pile])} without hands")
    if "starter" in options:
        layout["starter"] = validation.integer("starter", options["starter"], 0, num_players - 1,
                                               accepted=f"a seat, an integer from 0 to {num_players - 1}")
    if "scores" in options:
        scores = validation.sequence("scores", options["scores"], "integer totals, one per player", num_players)
        low, high, why = score_bounds
        accepted = f"an integer from {low} to {high} ({why})"
        layout["scores"] = [validation.integer(f"scores[{p}]", score, low, high, accepted=accepted)
                            for p, score in enumerate(scores)]
    return layout


def _scenario_cards(name: str, value: Any) -> list[int]:
    """Card types of a scenario's list of card names; ``name`` says where it is."""
    cards = validation.sequence(name, value, "card names")
    types = []
    for i, card in enumerate(cards):
        if not isinstance(card, str):
            raise TypeError(f"{name}[{i}] must be {card_name_accepted(card)}, got {validation.show(card)}")
        try:
            types.append(parse_card(card))
        except ValueError:
            raise ValueError(f"{name}[{i}] must be {card_name_accepted(card)}, got {validation.show(card)}") from None
    return types
