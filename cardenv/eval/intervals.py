"""Confidence intervals: Wilson for win shares, Student t for means and paired differences (numpy only)."""

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


def _incomplete_beta(a: float, b: float, x: float, y: float) -> float:
    """The regularized incomplete beta function I_x(a, b), ``y`` being 1 - x computed
    without cancellation, by its continued fraction (modified Lentz), on the side of x
    where the fraction converges fast."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - _incomplete_beta(b, a, y, x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y)) / a
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 10_000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * fraction


def student_t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t distribution with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t), t * t / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(probability: float, df: float) -> float:
    """The ``probability`` quantile of Student's t with ``df`` degrees of freedom (what
    ``scipy.stats.t.ppf`` gives, to about 1e-9), by bisection on :func:`student_t_cdf`."""
    if not 0.0 < probability < 1.0:
        raise ValueError(f"probability must lie strictly between 0 and 1, got {probability}")
    if probability < 0.5:
        return -t_quantile(1.0 - probability, df)
    low, high = 0.0, 1.0
    while student_t_cdf(high, df) < probability:
        low, high = high, 2.0 * high
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if student_t_cdf(middle, df) < probability:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def mean_interval(values, confidence: float = 0.95, center: float | None = None) -> tuple[float, tuple[float, float]]:
    """The mean of ``values`` with its Student t interval (95% by default): for the mean
    of per-game paired differences, the paired t-interval. ``center`` replaces the mean as
    the interval's middle (for an estimate whose linearised per-game terms are ``values``:
    the delta method). Values that are all equal give a zero-width interval."""
    import numpy as np

    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or len(values) < 2:
        raise ValueError(f"a t-interval needs at least 2 values, got {values.size}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    mean = float(values.mean()) if center is None else float(center)
    spread = float(values.std(ddof=1))
    half = t_quantile(0.5 + confidence / 2.0, len(values) - 1) * spread / math.sqrt(len(values))
    return mean, (mean - half, mean + half)


def paired_difference_interval(a, b, confidence: float = 0.95) -> tuple[float, tuple[float, float]]:
    """The mean of ``a - b`` (two measurements per unit, e.g. per game) with its paired
    t-interval."""
    import numpy as np

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired values need equal lengths, got {a.shape} and {b.shape}")
    return mean_interval(a - b, confidence)
