#!/usr/bin/python3
"""Per-query time of rank_bm25's BM25Okapi under the paper's latency protocol
(App. C.5): the time from handing a query's 150 candidate texts to the
system until a sorted ranking exists, with the index built per query (C.4).
It is the reference the Go benchmark BenchmarkBM25PerQuery (bench_test.go)
is compared against; run both on the same machine.

Command (from lib/lexical, on the machine the Go figures come from):
    /usr/bin/python3 testdata/time_rank_bm25.py ../../../shared/data/math/MATH_test.jsonl [GO_BENCH_OUTPUT]

With GO_BENCH_OUTPUT, the output of `go test -bench BenchmarkBM25PerQuery`
run just before on the same machine, it ends with each Go median's ratio to
rank_bm25's and the goal beside it (issue 41: 20x for both): bm25-no-tok
against text->ranking, and the maths path against math tokens->scores
twice. bm25 is text->ranking: Go's time includes making the math tokens of
the query and its 150 candidates and sorting the ranking, rank_bm25's
neither (its tokens are made beforehand, it stops at the scores), as there
is no Python math tokeniser to time; that ratio is not like for like, and
the difference is against us. bm25-tokens is tokens->scores, the like-for-
like one: Go builds the index and computes the scores from the same math
tokens made beforehand, by the code that scores text, and stops there too.

Queries are those BenchmarkBM25PerQuery (bench_test.go) times, drawn the
same way: the problems on lines 0, 50, ..., 4950 of the MATH test split, each
with 150 other problems of its type chosen by a partial Fisher-Yates shuffle
driven by SplitMix64 (seed 20261130); the query text is its statement, a
candidate's is statement + "\\n\\n" + solution. Both check the selection
against SELECTION, a digest of its line numbers. BM25Okapi is gen.py's
operation-for-operation copy of rank_bm25 0.2.2 (rank_bm25 is not packaged by
Debian). Three timed regions are reported, each the median and mean over
REPEATS passes of the 100 queries:

  text->ranking    lower().split() of the query and candidates, BM25Okapi(),
                   get_scores(), argsort: the protocol's whole task.
  tokens->scores   BM25Okapi() and get_scores() on tokens made beforehand:
                   the part rank_bm25 itself does.
  math tokens->scores
                   the same on the math tokeniser's tokens (the paper's
                   main BM25), made beforehand by our Go tokeniser through
                   testdata/tokens ("go run" needs Go on the PATH); Python
                   has no math tokeniser to time.
"""
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

from gen import BM25Okapi, read_rows

SEED = 20261130
QUERIES = 100
QUERY_STEP = 50
CANDIDATES = 150
REPEATS = 5
MASK = (1 << 64) - 1
# sha256 of the lines "q:c1,c2,...,c150\n" of the selection, first 16 hex
# digits; bench_test.go's benchSelection is the same.
SELECTION = "c7a6c01d9a6eb530"


class SplitMix64:
    """bench_test.go's splitMix64."""

    def __init__(self, seed):
        self.s = seed

    def next(self):
        self.s = (self.s + 0x9e3779b97f4a7c15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK
        return z ^ (z >> 31)


def draw(pool, q, rng):
    """bench_test.go's benchDraw."""
    others = [i for i in pool if i != q]
    for k in range(CANDIDATES):
        j = k + rng.next() % (len(others) - k)
        others[k], others[j] = others[j], others[k]
    return others[:CANDIDATES]


def main():
    rows, by_type = read_rows(sys.argv[1])
    rng = SplitMix64(SEED)
    tasks = []
    digest = hashlib.sha256()
    for q in range(0, QUERIES * QUERY_STEP, QUERY_STEP):
        cands = draw(by_type[rows[q]["type"]], q, rng)
        digest.update(f"{q}:{','.join(map(str, cands))}\n".encode())
        docs = [rows[i]["problem"] + "\n\n" + rows[i]["solution"] for i in cands]
        tasks.append((rows[q]["problem"], docs))
    if digest.hexdigest()[:16] != SELECTION:
        sys.exit(f"selection digest {digest.hexdigest()[:16]}, want {SELECTION}: not the queries bench_test.go times")

    def whole(query, docs):
        bm25 = BM25Okapi([d.lower().split() for d in docs])
        scores = bm25.get_scores(query.lower().split())
        return np.argsort(-scores, kind="stable")

    tokenised = [(q.lower().split(), [d.lower().split() for d in docs]) for q, docs in tasks]

    def index_and_score(qtoks, dtoks):
        return BM25Okapi(dtoks).get_scores(qtoks)

    texts = [t for q, docs in tasks for t in [q] + docs]
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run(["go", "run", "./testdata/tokens", "math"], cwd=os.path.dirname(here), check=True,
                         input="".join(json.dumps(t) + "\n" for t in texts), capture_output=True, text=True).stdout
    toks = [json.loads(line) for line in out.splitlines()]
    math_tokenised = []
    for k in range(len(tasks)):
        chunk = toks[k * (CANDIDATES + 1):(k + 1) * (CANDIDATES + 1)]
        math_tokenised.append((chunk[0], chunk[1:]))

    medians, cpu = {}, {}
    for name, fn, inputs in (("text->ranking", whole, tasks), ("tokens->scores", index_and_score, tokenised),
                             ("math tokens->scores", index_and_score, math_tokenised)):
        times = []
        fn(*inputs[0])  # warm-up
        c0 = time.process_time()
        for _ in range(REPEATS):
            for args in inputs:
                t0 = time.perf_counter()
                fn(*args)
                times.append(time.perf_counter() - t0)
        # The process's CPU time per query, as the Go benchmark's
        # cpu-ms/query: a mean, which preemption on a busy machine does
        # not inflate as it does the wall-clock median.
        cpu[name] = (time.process_time() - c0) / len(times) * 1e3
        medians[name] = statistics.median(times) * 1e3
        print(f"{name:20s} median {statistics.median(times) * 1e3:.2f} ms/query  "
              f"mean {statistics.mean(times) * 1e3:.2f} ms/query  cpu {cpu[name]:.2f} ms/query  ({len(times)} timings)")
    size = sum(len(d) for _, docs in tasks for d in docs) / len(tasks)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}; "
          f"{size / 1e3:.1f} KB of candidate text per query")
    if len(sys.argv) > 2:
        print_ratios(sys.argv[2], medians, cpu)
        print_load()


# The goal for both BM25 paths (issue 41): each Go median at least
# GOAL times faster than its rank_bm25 peer of the same run.
GOAL = 20


# Each Go variant's rank_bm25 peer, and what the Go side times: the maths
# path is compared twice with the same peer, once as the protocol's whole
# task and once like for like.
AGAINST = {
    "bm25-no-tok": ("text->ranking", "text->ranking (like for like)"),
    "bm25": ("math tokens->scores", "text->ranking (ours tokenises, rank_bm25 does not)"),
    "bm25-tokens": ("math tokens->scores", "tokens->scores (like for like)"),
}


def print_ratios(path, medians, cpu):
    """Each BenchmarkBM25PerQuery median in path against rank_bm25's, with
    what each side times and the goal beside it; then the ratio of the
    CPU times per query (means), which the goal is not about but a busy
    machine distorts less."""
    pattern = re.compile(r"BenchmarkBM25PerQuery/([\w-]+)/threads=(\d+)\S*\s.*?([\d.]+) median-ms/query")
    cpu_pattern = re.compile(r"([\d.]+) cpu-ms/query")
    with open(path) as f:
        for line in f:
            m = pattern.match(line)
            if m and m.group(1) in AGAINST:
                name, threads, ms = m.group(1), m.group(2), float(m.group(3))
                ref, ours = AGAINST[name]
                if threads != "1":
                    # rank_bm25 runs on one thread: like for like is threads=1 only.
                    ours = ours.replace("like for like", f"{threads} threads against one")
                ratio = medians[ref] / ms
                print(f"{name:12s} threads={threads:2s} {ms:6.3f} ms/query, {ours}: "
                      f"{ratio:5.1f}x faster than rank_bm25 {ref} ({medians[ref]:.2f} ms); "
                      f"goal >= {GOAL}x: {'met' if ratio >= GOAL else 'below'}", end="")
                c = cpu_pattern.search(line)
                if c:
                    go_cpu = float(c.group(1))
                    print(f"; cpu {go_cpu:.3f} against {cpu[ref]:.2f} ms/query, {cpu[ref] / go_cpu:.1f}x", end="")
                print()


def print_load():
    """The load the ratios were measured under. On a busy machine they
    overstate ours: a rank_bm25 query (5-25 ms) is preempted more often than
    a Go one (0.2-1 ms), so its median grows more (docs/benchmarks.md)."""
    load, cpus = os.getloadavg()[0], os.cpu_count()
    print(f"load average {load:.1f} on {cpus} CPUs", end="")
    if load > 0.75 * cpus:
        print(": busy, the ratios are inflated; compare on an idle machine")
    else:
        print()


if __name__ == "__main__":
    main()
