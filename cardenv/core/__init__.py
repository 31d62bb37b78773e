"""The partial-information core shared by every ruleset: cards, the table of piles and
hands, who knows what, reaction windows, the sources of random outcomes, the event log, action tables, observation
layouts and information-set sampling. Nothing here knows any game's rules."""

from cardenv.core.actions import ActionSpec, ActionTable
from cardenv.core.cards import (
    CARD_NAMES,
    card_name,
    card_type,
    deck_with_jokers,
    double_deck_with_jokers,
    parse_card,
    parse_cards,
    points_table,
    rank_of,
    standard_deck,
    suit_of,
)
from cardenv.core.chance import Chance, ChanceNeeded, ExternalChance, SeededChance
from cardenv.core.events import Event
from cardenv.core.knowledge import MEMORY_MODELS, Knowledge
from cardenv.core.observation import ObservationLayout
from cardenv.core.reaction import PASS, ReactionWindow
from cardenv.core.table import EMPTY, CardTable

__all__ = [
    "ActionSpec",
    "ActionTable",
    "CARD_NAMES",
    "CardTable",
    "Chance",
    "ChanceNeeded",
    "EMPTY",
    "Event",
    "ExternalChance",
    "Knowledge",
    "MEMORY_MODELS",
    "ObservationLayout",
    "PASS",
    "ReactionWindow",
    "SeededChance",
    "card_name",
    "card_type",
    "deck_with_jokers",
    "double_deck_with_jokers",
    "parse_card",
    "parse_cards",
    "points_table",
    "rank_of",
    "standard_deck",
    "suit_of",
]
