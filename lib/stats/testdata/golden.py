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
#
# pearson, spearman: scipy.stats.pearsonr(x, y).statistic and
# spearmanr(x, y).statistic, null where SciPy gives NaN (a constant side);
# rank_x, rank_y: scipy.stats.rankdata(x) and (y), method="average". The
# cases are fixed vectors written here (ties, a constant side, n = 2) and
# pseudo-random ones from random.Random(seed), rounded to one decimal so
# that ties occur.
import json
import math
import random
import warnings

import scipy
from scipy.stats import binomtest, norm, pearsonr, rankdata, spearmanr

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


def noisy(seed, n, noise):
    rng = random.Random(seed)
    x = [round(rng.gauss(0, 1), 1) for _ in range(n)]
    y = [round(v + rng.gauss(0, noise), 1) for v in x]
    return x, y


corr_cases = [
    ("one swap", [1, 2, 3, 4], [1, 3, 2, 4]),
    ("reversed", [1, 2, 3, 4, 5], [5, 4, 3, 2, 1]),
    ("ties", [1, 2, 2, 3], [1, 2, 3, 4]),
    ("ties both sides", [0.5, 0.5, 0.5, 2, 3, 3], [1, 4, 4, 2, 9, 9]),
    ("n = 2", [0.25, 0.75], [3, 1]),
    ("n = 3", [0.8, 0.7, 0.3], [0.5, 0.4, 0.2]),
    ("constant x", [1, 1, 1], [1, 2, 3]),
    ("constant y", [1, 2, 3, 4], [2, 2, 2, 2]),
    ("negative, wide range", [-2.5, -1e6, 0, 3e-4, 7], [1, 2, 3, 4, 5]),
] + [
    ("random seed %d, n = %d" % (seed, n), *noisy(seed, n, noise))
    for seed, n, noise in [
        (1, 20, 0.3), (2, 50, 1.0), (3, 100, 0.5), (4, 150, 3.0),
        (5, 200, 0.1),
    ]
]


def stat(f, x, y):
    with warnings.catch_warnings():
        # SciPy warns on a constant input before returning NaN.
        warnings.simplefilter("ignore")
        v = float(f(x, y).statistic)
    return None if math.isnan(v) else v


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
    "corr": [
        {
            "name": name, "x": x, "y": y,
            "pearson": stat(pearsonr, x, y),
            "spearman": stat(spearmanr, x, y),
            "rank_x": rankdata(x).tolist(),
            "rank_y": rankdata(y).tolist(),
        }
        for name, x, y in corr_cases
    ],
}
print(json.dumps(out, indent=1))
