#!/usr/bin/python3
"""Independent reference for lib/summtok (SPEC §3 "Summaries", paper App. B.1).

Usage (from lib/summtok; testdata/gen.sh runs it):
    /usr/bin/python3 testdata/reference.py testdata/sentences.jsonl testdata/math_stop_words.txt

sentences.jsonl holds one JSON string per line. For each sentence the script
prints one JSON object {"i", "text", "tokens", "set"}: tokens are the maximal
[a-z0-9]+ runs of text.lower() minus the union of scikit-learn's
ENGLISH_STOP_WORDS and the math stop words (lines of the second file that do
not start with '#'), in order with repeats; set is sorted(set(tokens)). Then,
for every pair i < j, one object {"a": i, "b": j, "jaccard": |A∩B| / |A∪B|}
(0 when both sets are empty). Floats are printed by json (shortest repr), so
they round-trip exactly.
"""
import json
import re
import sys

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS


def main():
    sentences_path, math_path = sys.argv[1], sys.argv[2]
    with open(math_path, encoding="utf-8") as f:
        math = {l.strip() for l in f if l.strip() and not l.startswith("#")}
    stop = set(ENGLISH_STOP_WORDS) | math
    with open(sentences_path, encoding="utf-8") as f:
        sentences = [json.loads(l) for l in f if l.strip()]
    sets = []
    for i, s in enumerate(sentences):
        tokens = [w for w in re.findall(r"[a-z0-9]+", s.lower()) if w not in stop]
        sets.append(set(tokens))
        print(json.dumps({"i": i, "text": s, "tokens": tokens, "set": sorted(set(tokens))}))
    for a in range(len(sets)):
        for b in range(a + 1, len(sets)):
            union = len(sets[a] | sets[b])
            jac = len(sets[a] & sets[b]) / union if union else 0.0
            print(json.dumps({"a": a, "b": b, "jaccard": jac}))


if __name__ == "__main__":
    main()
