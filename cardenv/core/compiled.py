"""Compiling the few hot loops that numpy's per-call cost makes slow (numba).

Modules that use it import numba when they are imported, so only modules loaded on
first use (observers, heuristics) do: ``import cardenv`` stays free of numba.
"""

from __future__ import annotations

import numba


def compiled(function):
    """``function`` compiled with numba, cached on disk where numba can write its cache
    (elsewhere every process compiles it: a second or two)."""
    try:
        return numba.njit(cache=True, nogil=True)(function)
    except RuntimeError:  # numba: "cannot cache function …: no locator available"
        return numba.njit(nogil=True)(function)
