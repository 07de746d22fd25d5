#!/usr/bin/python3
"""Independent reference for lib/ndcg's Percentile: numpy.percentile with its
default method ("linear", Hyndman & Fan's type 7).

Command that made testdata/percentile.golden.json (run from lib/ndcg):
    /usr/bin/python3 testdata/gen.py >testdata/percentile.golden.json
with Debian bookworm's python3 3.11.2 and python3-numpy 1:1.24.2-1+deb12u1.

The arrays are drawn with random.Random(SEED): sizes 1 to 40 and 1000, values
uniform, rounded to few digits (to make duplicates) or not, some sorted
descending; every array is written as drawn (unsorted), with
numpy.percentile(array, P) for each P in PERCENTILES. Floats are written by
json (shortest repr), so they round-trip exactly.
"""
import json
import random
import sys

import numpy as np

SEED = 7
PERCENTILES = [0, 2.5, 5, 25, 33.3, 50, 66.7, 75, 95, 97.5, 99.9, 100]


def main():
    rng = random.Random(SEED)
    cases = []
    for n in list(range(1, 41)) + [1000, 1000]:
        xs = [rng.random() for _ in range(n)]
        if n % 3 == 0:
            xs = [round(x, 1) for x in xs]  # duplicates
        if n % 4 == 0:
            xs.sort(reverse=True)
        if n % 5 == 0:
            xs = [x * 1e6 - 3e5 for x in xs]
        cases.append({"values": xs, "percentiles": PERCENTILES,
                      "want": [float(v) for v in np.percentile(np.array(xs), PERCENTILES)]})
    json.dump({"numpy": np.__version__, "cases": cases}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
