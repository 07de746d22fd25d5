#!/usr/bin/python3
# Golden values for lib/stats, from SciPy.
#
# Made with (Debian's python3-scipy 1.10.1):
#   /usr/bin/python3 lib/stats/testdata/golden.py > lib/stats/testdata/golden.json
#
# binomtest: scipy.stats.binomtest(k, n, p).pvalue (two-sided, exact).
# wilson: statsmodels is not installed here, so the Wilson score interval is
# computed by its formula, with z = scipy.stats.norm.ppf(0.975); the paper's
# Table 6 intervals are reproduced by these (0.780, 0.790, 0.775, 0.777,
# 0.750 at n = 200).
import json
import math

import scipy
from scipy.stats import binomtest, norm

z = float(norm.ppf(0.975))


def wilson(p, n):
    den = 1 + z * z / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return [max(0.0, (centre - half) / den), min(1.0, (centre + half) / den)]


binom_cases = [
    (156, 200, 0.5), (155, 200, 0.5), (150, 200, 0.5), (158, 200, 0.5),
    (100, 200, 0.5), (101, 200, 0.5), (99, 200, 0.5), (0, 200, 0.5),
    (200, 200, 0.5), (15, 20, 0.5), (5, 20, 0.5), (3, 4, 0.5), (2, 3, 0.5),
    (0, 1, 0.5), (1, 1, 0.5), (7, 10, 0.3), (1, 10, 0.3), (3, 10, 0.3),
    (40, 50, 0.7), (20, 50, 0.7), (0, 5, 0.2), (5, 5, 0.2),
    (1800, 2500, 0.5), (600, 1000, 0.55), (12, 40, 0.25),
]
wilson_cases = [
    (0.78, 200), (0.79, 200), (0.775, 200), (0.777, 200), (0.75, 200),
    (0.5, 10), (0.0, 10), (1.0, 10), (0.75, 20), (0.25, 4), (0.9, 1),
    (0.625, 4), (0.333, 1000),
]
out = {
    "scipy": scipy.__version__,
    "z95": z,
    "binomtest": [
        {"k": k, "n": n, "p": p, "pvalue": binomtest(k, n, p).pvalue}
        for k, n, p in binom_cases
    ],
    "wilson": [
        {"p": p, "n": n, "lo": wilson(p, n)[0], "hi": wilson(p, n)[1]}
        for p, n in wilson_cases
    ],
}
print(json.dumps(out, indent=1))
