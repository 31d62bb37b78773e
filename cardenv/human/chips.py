"""Card names in a page's text drawn as small cards ("chips"): the style and script the
replay page and the browser's table share (``static/cards.css``, ``static/cards.js``)."""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).parent / "static"


def static_text(name: str) -> str:
    """A file of ``static/``: a page, its style or its script."""
    return (STATIC / name).read_text(encoding="utf-8")


def with_card_chips(page: str) -> str:
    """``page`` with the card chips' style and script in its ``__CARDS_CSS__`` and
    ``__CARDS_JS__`` (the script's ``cards(text)``: a text's card names as chips)."""
    return page.replace("__CARDS_CSS__", static_text("cards.css")).replace("__CARDS_JS__", static_text("cards.js"))
