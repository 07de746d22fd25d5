#!/usr/bin/env python3
"""Golden fits for lib/bt, from an optimiser independent of the Go code.

Made with (from the repository root):

    /usr/bin/python3 lib/bt/testdata/gen.py > lib/bt/testdata/golden.json

Python 3.11.2, NumPy 1.24.2, SciPy 1.10.1 (Debian bookworm python3-numpy,
python3-scipy). The output is deterministic: every random input comes from
numpy.random.default_rng with a fixed seed, and the optimiser has no
randomness.

Model (SPEC §3): maximise  sum log sigma(theta_w - theta_l) - (lam/2)|theta|^2.
We minimise its negation with L-BFGS-B (analytic gradient, tight tolerances),
then polish with scipy.optimize.root (MINPACK hybrj on the gradient, with the
analytic Hessian as its Jacobian), and check that the final gradient is below
1e-11 in every coordinate, so theta is exact far beyond the Go test's 1e-6.
The objective uses numpy.logaddexp, a different formula from the Go code's.

Items that never played get the mean theta of the items that played (SPEC),
then theta is rescaled linearly to [0, 5] (all equal => all 0).
"""

import json
import sys

import numpy as np
import scipy
import scipy.optimize


def negloglik(theta, w, l, lam):
    d = theta[w] - theta[l]
    # log sigma(d) = -log(1 + e^{-d}) = -logaddexp(0, -d)
    ll = -np.logaddexp(0.0, -d).sum()
    return -(ll - 0.5 * lam * theta @ theta), ll


def grad(theta, w, l, lam):
    d = theta[w] - theta[l]
    q = scipy.special.expit(-d)  # 1 - sigma(d)
    g = -lam * theta
    np.add.at(g, w, q)
    np.add.at(g, l, -q)
    return g  # gradient of the penalised log-likelihood


def hess(theta, w, l, lam):
    n = theta.size
    d = theta[w] - theta[l]
    p = scipy.special.expit(d)
    h = p * (1 - p)
    H = lam * np.eye(n)  # negative Hessian
    np.add.at(H, (w, w), h)
    np.add.at(H, (l, l), h)
    np.add.at(H, (w, l), -h)
    np.add.at(H, (l, w), -h)
    return H


def fit(n, games, lam):
    games = np.asarray(games, dtype=np.int64).reshape(-1, 2)
    w, l = games[:, 0], games[:, 1]
    x0 = np.zeros(n)
    r = scipy.optimize.minimize(
        lambda t: negloglik(t, w, l, lam)[0],
        x0,
        jac=lambda t: -grad(t, w, l, lam),
        method="L-BFGS-B",
        options={"gtol": 1e-12, "ftol": 0.0, "maxiter": 100000, "maxcor": 50},
    )
    s = scipy.optimize.root(
        lambda t: grad(t, w, l, lam),
        r.x,
        jac=lambda t: -hess(t, w, l, lam),
        method="hybr",
        tol=1e-15,
    )
    theta = s.x
    gmax = np.abs(grad(theta, w, l, lam)).max() if n else 0.0
    if not gmax < 1e-11:
        sys.exit(f"gen.py: n={n}: final gradient {gmax} not below 1e-11")
    neg, ll = negloglik(theta, w, l, lam)

    played = np.zeros(n, dtype=bool)
    played[w] = True
    played[l] = True
    if played.any() and not played.all():
        theta[~played] = theta[played].mean()
    if n and theta.max() - theta.min() >= 1e-9:
        ratings = 5 * (theta - theta.min()) / (theta.max() - theta.min())
    else:
        ratings = np.zeros(n)
    return theta, ratings, ll, -neg, gmax


def logistic_games(rng, n, m, noise=1.0, allow_repeats=True):
    """m games between uniformly drawn distinct pairs, outcome logistic in
    latent N(0, 1) scores."""
    s = rng.standard_normal(n)
    games = []
    seen = set()
    while len(games) < m:
        a, b = (int(x) for x in rng.choice(n, size=2, replace=False))
        key = (min(a, b), max(a, b))
        if not allow_repeats and key in seen:
            continue
        seen.add(key)
        p = 1 / (1 + np.exp(-(s[a] - s[b]) / noise))
        games.append([a, b] if rng.random() < p else [b, a])
    return games


def main():
    cases = []

    def add(name, n, games, lam=0.01):
        theta, ratings, ll, pll, gmax = fit(n, games, lam)
        cases.append(
            {
                "name": name,
                "n": n,
                "lambda": lam,
                "games": [[int(a), int(b)] for a, b in games],
                "theta": theta.tolist(),
                "ratings": ratings.tolist(),
                "loglik": float(ll),
                "penalised_loglik": float(pll),
                "max_abs_gradient": float(gmax),
            }
        )

    add("two items one game", 2, [[0, 1]])
    add("three items with repeats", 3, [[0, 1], [0, 1], [1, 0], [1, 2], [2, 0], [0, 2]])

    rng = np.random.default_rng(20240601)
    g = logistic_games(rng, 8, 30)
    g = [x for x in g if 0 not in x] + [[0, j] for j in (1, 3, 5, 7)]
    add("item 0 only wins", 8, g)

    rng = np.random.default_rng(20240602)
    g = logistic_games(rng, 8, 30)
    g = [x for x in g if 7 not in x] + [[j, 7] for j in (0, 2, 4)]
    add("item 7 only loses", 8, g)

    rng = np.random.default_rng(20240603)
    g = logistic_games(rng, 10, 40)
    g = [x for x in g if 4 not in x]
    add("item 4 never played", 10, g)

    # Two components that never meet plus an isolated item: each component
    # is centred by the ridge on its own.
    add("two components and an isolated item", 7, [[0, 1], [0, 1], [1, 2], [0, 2], [3, 4], [4, 5], [3, 5], [5, 4]])

    rng = np.random.default_rng(20240604)
    add("lambda 0.1", 12, logistic_games(rng, 12, 60), lam=0.1)

    rng = np.random.default_rng(20240605)
    add("paper size 150 items 1500 games", 150, logistic_games(rng, 150, 1500, noise=0.5, allow_repeats=False))

    out = {
        "generator": "lib/bt/testdata/gen.py",
        "command": "/usr/bin/python3 lib/bt/testdata/gen.py > lib/bt/testdata/golden.json",
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "cases": cases,
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
