"""Checks for the values a user passes in: constructor options, ``reset()`` options,
seeds and actions. Every such value goes through one of these helpers, so the rules and
the wording are the same everywhere.

The rules:

* A value of the wrong *type* raises :class:`TypeError`: a string, a float (even
  ``4.0``) or a bool where an integer is meant, a number where a bool is meant, a list
  where a dict is meant.
* A value of the right type that is not acceptable raises :class:`ValueError`: an
  integer out of range, NaN or infinity, a string that is not one of the choices, a list
  of the wrong length.
* Every message is one line that names the option, shows the bad value with ``repr``
  and its type, and says what is accepted, e.g.
  ``num_players must be an integer from 3 to 6, got '4' (str)``.

(Calls made in the wrong order, such as ``step()`` before ``reset()``, are not bad
values; the environments raise :class:`RuntimeError` for them.)

Accepted values are normalised: numpy integers become Python ``int``, ``np.bool_``
becomes ``bool``, numpy strings become ``str`` and real numbers become ``float``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

# A repr longer than this is shortened, so a message stays readable (and one line).
MAX_SHOWN_CHARS = 120


def show(value: Any) -> str:
    """``repr(value)`` and its type, on one line, e.g. ``'4' (str)``."""
    text = " ".join(repr(value).split("\n"))
    if len(text) > MAX_SHOWN_CHARS:
        text = text[: MAX_SHOWN_CHARS - 1] + "…"
    return f"{text} ({type(value).__name__})"


def is_integer(value: Any) -> bool:
    """A Python or numpy integer; bools are not integers here."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_real(value: Any) -> bool:
    """A Python or numpy integer or float; bools are not numbers here."""
    return is_integer(value) or isinstance(value, (float, np.floating))


def describe_range(kind: str, low: int | float | None, high: int | float | None) -> str:
    """``an integer from 3 to 6``, ``an integer of at least 1`` and the like."""
    if low is not None and high is not None:
        return f"{kind} from {low} to {high}"
    if low is not None:
        return f"{kind} of at least {low}"
    if high is not None:
        return f"{kind} of at most {high}"
    return kind


def integer(name: str, value: Any, low: int | None = None, high: int | None = None, *, accepted: str = "") -> int:
    """``value`` as a Python ``int`` in ``[low, high]`` (either bound may be None).

    ``accepted`` replaces the generated description of what is accepted."""
    wanted = accepted or describe_range("an integer", low, high)
    if not is_integer(value):
        raise TypeError(f"{name} must be {wanted}, got {show(value)}")
    number = int(value)
    if (low is not None and number < low) or (high is not None and number > high):
        raise ValueError(f"{name} must be {wanted}, got {show(value)}")
    return number


def action_id(value: Any, hint: str = "") -> int:
    """An action id as a Python ``int`` (numpy integers accepted); anything else (a
    float, a bool, a name) is a TypeError, never rounded or looked up. ``hint`` ends
    the message."""
    if not is_integer(value):
        raise TypeError(f"action must be an integer action id (Python or numpy integer), got {show(value)}{hint}")
    return int(value)


def optional_integer(name: str, value: Any, low: int | None = None, high: int | None = None) -> int | None:
    """None, or ``value`` as an ``int`` in ``[low, high]``."""
    if value is None:
        return None
    return integer(name, value, low, high, accepted="None or " + describe_range("an integer", low, high))


def boolean(name: str, value: Any) -> bool:
    """``value`` as a Python ``bool``; only ``bool`` and ``np.bool_`` are accepted (not 0/1,
    not strings: ``"no"`` would otherwise count as true)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {show(value)}")
    return bool(value)


def real(name: str, value: Any, low: float | None = None, high: float | None = None,
         *, low_inclusive: bool = True) -> float:
    """``value`` as a finite Python ``float`` in the range (``low`` excluded when
    ``low_inclusive`` is False)."""
    lower = "" if low is None else (f"at least {low}" if low_inclusive else f"greater than {low}")
    upper = "" if high is None else f"at most {high}"
    wanted = "a finite number" + (" " if lower or upper else "") + " and ".join(b for b in (lower, upper) if b)
    if not is_real(value):
        raise TypeError(f"{name} must be {wanted}, got {show(value)}")
    number = float(value)
    too_low = low is not None and (number < low if low_inclusive else number <= low)
    if not math.isfinite(number) or too_low or (high is not None and number > high):
        raise ValueError(f"{name} must be {wanted}, got {show(value)}")
    return number


def choice(name: str, value: Any, options: tuple) -> Any:
    """``value`` if it is one of ``options`` (strings, possibly None)."""
    listed = ", ".join(repr(o) for o in options)
    wanted = f"one of {listed}"
    if value is None:
        if None in options:
            return None
        raise TypeError(f"{name} must be {wanted}, got {show(value)}")
    # Compare only values of an accepted type: ``==`` on a list or an array would not
    # give one bool, and 1 == True would let a bool through.
    if not any(o is not None and isinstance(value, type(o)) for o in options):
        raise TypeError(f"{name} must be {wanted}, got {show(value)}")
    for option in options:
        if option is not None and value == option:
            return option
    raise ValueError(f"{name} must be {wanted}, got {show(value)}")


def sequence(name: str, value: Any, what: str, length: int | None = None) -> list:
    """``value`` (a list or a tuple) as a list, of exactly ``length`` items if given.

    ``what`` says what the items are, for the message ("card names")."""
    wanted = f"a list of {length} {what}" if length is not None else f"a list of {what}"
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be {wanted}, got {show(value)}")
    if length is not None and len(value) != length:
        raise ValueError(f"{name} must be {wanted}, got a list of {len(value)}: {show(value)}")
    return list(value)


def mapping(name: str, value: Any) -> Mapping | None:
    """``value`` if it is a dict (any Mapping) or None."""
    if value is not None and not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict or None, got {show(value)}")
    return value


def seed(value: Any) -> int | None:
    """A ``reset(seed=...)``: None or a non-negative integer, as an ``int``."""
    return optional_integer("seed", value, 0)


def unknown_keywords(owner: str, given: Mapping, accepted: list[str]) -> None:
    """Raise a TypeError naming every keyword of ``given`` not in ``accepted``."""
    unknown = [key for key in given if key not in accepted]
    if unknown:
        names = ", ".join(repr(key) for key in unknown)
        what = "an unknown option" if len(unknown) == 1 else "unknown options"
        raise TypeError(f"{owner} got {what} {names}; accepted options: {', '.join(accepted)}")
