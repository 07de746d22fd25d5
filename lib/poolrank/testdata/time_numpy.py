"""numpy's time for BenchmarkFullPoolRanking's work, the peer `make bench`
compares lib/poolrank with.

Usage: time_numpy.py NQ ND DIM [REPS]

The timed work is what one Ranks call does: the scores of every query
against every document (q @ d.T in float32: numpy's sgemm) and then, for
each query, the rank of its target (1 + the documents that score higher,
or equal with a lower index). Inputs are random unit rows made before the
clock starts, as the Go benchmark's are. The product is taken in slices of
documents so that the score matrix never exceeds ~256 MiB; each slice is
one large sgemm, so the slicing costs nothing measurable.

It prints the best of REPS runs (default 3), its wall and CPU seconds (all
threads; on a shared machine the wall time measures the neighbours too) and
the split between sgemm and ranking, then which BLAS library and kernel ran, read from the process's
own mappings (threadpoolctl when installed), since numpy's build config
names only what it was linked against, not what the dynamic loader found.
"""

import ctypes
import os
import sys
import time

import numpy as np


def blas_info():
    try:
        from threadpoolctl import threadpool_info

        return "; ".join(
            f"{i.get('internal_api')} {i.get('version')} core={i.get('architecture')} threads={i.get('num_threads')} ({i.get('filepath')})"
            for i in threadpool_info()
            if i.get("user_api") == "blas"
        )
    except ImportError:
        pass
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.split()[-1]
            if "blas" in os.path.basename(p) and p.startswith("/"):
                libs.add(os.path.realpath(p))
    out = []
    for p in sorted(libs):
        try:
            lib = ctypes.CDLL(p)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            lib.openblas_get_config.restype = ctypes.c_char_p
            out.append(
                f"OpenBLAS core={lib.openblas_get_corename().decode()} threads={lib.openblas_get_num_threads()} "
                f"config={lib.openblas_get_config().decode().strip()} ({p})"
            )
        except (OSError, AttributeError):
            out.append(f"{p} (not OpenBLAS: a reference BLAS is far slower than the peer the goal is set against)")
    return "; ".join(out) or "no BLAS library mapped"


def ranks(q, d, targets):
    nq, nd = q.shape[0], d.shape[0]
    st = np.einsum("ij,ij->i", q, d[targets]).astype(np.float32)
    beats = np.zeros(nq, dtype=np.int64)
    step = max(1, (256 << 20) // (4 * max(nq, 1)))
    t_gemm = 0.0
    for j0 in range(0, nd, step):
        j1 = min(nd, j0 + step)
        t0 = time.perf_counter()
        s = q @ d[j0:j1].T
        t_gemm += time.perf_counter() - t0
        beats += (s > st[:, None]).sum(axis=1)
        idx = np.arange(j0, j1)
        beats += ((s == st[:, None]) & (idx[None, :] < targets[:, None])).sum(axis=1)
    return beats + 1, t_gemm


def main():
    nq, nd, dim = (int(a) for a in sys.argv[1:4])
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    rng = np.random.default_rng(4)
    q = rng.uniform(-1, 1, (nq, dim)).astype(np.float32)
    d = rng.uniform(-1, 1, (nd, dim)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    targets = rng.integers(0, nd, nq)
    best = None
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        _, t_gemm = ranks(q, d, targets)
        took, cpu = time.perf_counter() - t0, time.process_time() - c0
        if best is None or took < best[0]:
            best = (took, t_gemm, cpu)
    took, t_gemm, cpu = best
    print(f"numpy {np.__version__}: {nq} queries × {nd} documents × {dim} dims: {took:.3f} s wall (sgemm {t_gemm:.3f} s, ranks {took - t_gemm:.3f} s), {cpu:.3f} s CPU, best of {reps}")
    print(f"BLAS: {blas_info()}")
    # The line `make bench` reads.
    print(f"numpy-s/ranking {took:.6f} cpu-s {cpu:.6f}")


if __name__ == "__main__":
    main()
