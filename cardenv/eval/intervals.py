"""Confidence intervals for win shares."""

from __future__ import annotations

import math


def wilson_interval(successes: float, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default).

    Chosen over the normal ("Wald") interval because it stays inside [0, 1] and keeps
    close to its nominal coverage near 0 and 1 and for small samples, which is where a
    strong agent's win share lives. ``successes`` may be fractional (shared wins
    count 1/k); the interval then treats the mean share as the proportion.
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1.0 + z2 / trials
    center = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return (max(0.0, center - half), min(1.0, center + half))
