"""Trend statistics of a series measured at equally spaced points (the
slices of a log): the Mann-Kendall test for a monotonic trend and the
Theil-Sen slope with Sen's confidence interval (docs/certify.md, "The
trend"). Pure, stdlib only: no test of its own decides anything here -
act.certify.trend turns these figures into a flag.

    mann_kendall(ys)              -> MannKendall(n, s, var_s, z, p, exact)
    theil_sen(ys, var_s, conf)    -> TheilSen(slope, low, high, intercept)
    norm_cdf(x), norm_ppf(p)      the standard normal distribution

References: Mann (1945), Kendall (1975) "Rank correlation methods"; Sen
(1968) "Estimates of the regression coefficient based on Kendall's tau",
JASA 63; Gilbert (1987) "Statistical methods for environmental pollution
monitoring", chapter 16 (the tie correction, the continuity correction
and the interval's ranks used here)."""

import math
from collections import Counter, namedtuple
from statistics import NormalDist

EXACT_MAX_N = 10        # exact distribution of S up to 10 points, no ties

MannKendall = namedtuple("MannKendall", "n s var_s z p exact")
TheilSen = namedtuple("TheilSen", "slope low high intercept")


def norm_cdf(x):
    """P(Z <= x) for a standard normal Z (from math.erfc)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def norm_ppf(p):
    """The x with norm_cdf(x) = p, 0 < p < 1."""
    return NormalDist().inv_cdf(p)


def mk_s(ys):
    """Kendall's S: the sum over every pair i < j of sign(ys[j] - ys[i])."""
    n = len(ys)
    return sum((ys[j] > ys[i]) - (ys[j] < ys[i])
               for i in range(n - 1) for j in range(i + 1, n))


def mk_variance(ys):
    """Var(S) under no trend, corrected for ties: (n(n-1)(2n+5) - sum over
    each group of t equal values of t(t-1)(2t+5)) / 18."""
    n = len(ys)
    ties = sum(t * (t - 1) * (2 * t + 5) for t in Counter(ys).values()
               if t > 1)
    return (n * (n - 1) * (2 * n + 5) - ties) / 18.0


def _s_distribution(n):
    """{S: number of the n! orders of n distinct values with that S}: S =
    n(n-1)/2 - 2 x inversions, and the inversions of the permutations of n
    are counted by the Mahonian numbers (one element added at a time)."""
    counts = [1]
    for m in range(2, n + 1):
        new = [0] * (len(counts) + m - 1)
        for k, c in enumerate(counts):
            for extra in range(m):
                new[k + extra] += c
        counts = new
    top = n * (n - 1) // 2
    return {top - 2 * k: c for k, c in enumerate(counts)}


def mann_kendall(ys):
    """The Mann-Kendall test of ys against no trend (the values in any
    order equally likely): S, Var(S) with the tie correction, the normal
    score Z with the continuity correction ((S - 1) / sd for S > 0,
    (S + 1) / sd for S < 0, 0 for S = 0) and the two-sided p-value. For
    at most EXACT_MAX_N values without ties p is exact (the distribution
    of S over the n! orders) - exact is True then; otherwise p = 2 (1 -
    Phi(|Z|)). Fewer than 2 values: S 0, p 1."""
    n = len(ys)
    s = mk_s(ys)
    var = mk_variance(ys)
    if n < 2 or var <= 0:
        return MannKendall(n, s, var, 0.0, 1.0, False)
    sd = math.sqrt(var)
    z = (s - 1) / sd if s > 0 else (s + 1) / sd if s < 0 else 0.0
    if n <= EXACT_MAX_N and len(set(ys)) == n:
        dist = _s_distribution(n)
        tail = sum(c for v, c in dist.items() if abs(v) >= abs(s))
        return MannKendall(n, s, var, z, min(1.0, tail / math.factorial(n)),
                           True)
    return MannKendall(n, s, var, z, min(1.0, 2.0 * norm_cdf(-abs(z))),
                       False)


def theil_sen(ys, var_s=None, confidence=0.95):
    """The Theil-Sen slope of ys against 0, 1, 2, ... (per step of x):
    the median of the slopes (ys[j] - ys[i]) / (j - i) of every pair i <
    j, its confidence interval by Sen's method (the N pair slopes sorted,
    C = z(1 - alpha/2) x sqrt(Var(S)): the low end the round((N - C)/2)-th
    slope, the high end the (round((N + C)/2) + 1)-th, as Gilbert (1987)
    16.5 gives them), and Sen's intercept (the median of ys[k] - slope x
    k). var_s: Var(S) (default: mk_variance(ys)). Fewer than 2 values: a
    slope of 0, its interval (0, 0)."""
    n = len(ys)
    if n < 2:
        return TheilSen(0.0, 0.0, 0.0, ys[0] if ys else 0.0)
    slopes = sorted((ys[j] - ys[i]) / (j - i)
                    for i in range(n - 1) for j in range(i + 1, n))
    big = len(slopes)
    mid = big // 2
    slope = slopes[mid] if big % 2 else (slopes[mid - 1] + slopes[mid]) / 2
    if var_s is None:
        var_s = mk_variance(ys)
    c = norm_ppf(0.5 + confidence / 2.0) * math.sqrt(max(var_s, 0.0))
    low = slopes[min(max(int(round((big - c) / 2.0)) - 1, 0), big - 1)]
    high = slopes[max(min(int(round((big + c) / 2.0)), big - 1), 0)]
    rest = sorted(y - slope * k for k, y in enumerate(ys))
    half = n // 2
    intercept = rest[half] if n % 2 else (rest[half - 1] + rest[half]) / 2
    return TheilSen(slope, low, high, intercept)
