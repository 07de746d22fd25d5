#!/usr/bin/env python3
"""A complete saber retriever plugin: word-overlap (Jaccard) scores.

saber starts this program once per evaluate shard and talks JSONL over its
stdin and stdout (the protocol is documented in jobs/retrieval/plugin.go
and docs/algorithms.md#neural-retrievers):

    in:  {"id": "q1", "query": "...", "candidates": ["...", "..."]}
    out: {"id": "q1", "scores": [0.25, 0.0]}     or {"id": "q1", "error": "..."}

The first request, {"id": "_warmup", "query": "", "candidates": []}, comes
right after start: load models before answering it. Log to stderr only;
stdout carries answers. Exit when stdin ends.

The score of a candidate is |Q & D| / |Q | D| over the sets of lower-cased
word tokens (regular expression \\w+), 0 when both are empty. Standard
library only. Run with --threads N to see the CPU cap saber passes (it is
also in OMP_NUM_THREADS and SABER_THREADS); this script is single-threaded.

    retrievers:
      overlap:
        kind: plugin
        command: [python3, examples/plugins/overlap.py, --threads, "{threads}"]
"""

import argparse
import json
import re
import sys

WORD = re.compile(r"\w+")


def tokens(text):
    return set(WORD.findall(text.lower()))


def jaccard(q, d):
    union = q | d
    return len(q & d) / len(union) if union else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    print(f"overlap plugin ready (threads={args.threads})", file=sys.stderr)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        rid = req.get("id")
        try:
            q = tokens(req["query"])
            scores = [jaccard(q, tokens(d)) for d in req["candidates"]]
            out = {"id": rid, "scores": scores}
        except Exception as e:  # answer, never crash on one bad request
            out = {"id": rid, "error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
