#!/usr/bin/python3
"""Independent reference for lib/lexical (SPEC §3 "Lexical baselines (C.4)").

Command that made testdata/golden.json (run from lib/lexical):
    /usr/bin/python3 testdata/gen.py ../../../shared/data/math/MATH_test.jsonl >testdata/golden.json
with Debian bookworm's python3 3.11.2, python3-sklearn 1.2.1+dfsg-1
(scikit-learn 1.2.1), python3-numpy 1:1.24.2-1+deb12u1, python3-scipy
1.10.1-2 (apt-get install -y python3-sklearn).

It draws, with random.Random(SEED), QUERIES query lines of the MATH test split
and for each CANDIDATES other lines of the same "type" (0-based line
numbers). The query text is the query's problem statement; a candidate's text
is problem + "\\n\\n" + solution. One index per query over its own
candidates (paper C.4), and three scores per candidate:

  bm25-no-tok     BM25Okapi of rank_bm25 0.2.2 at its defaults (k1 = 1.5,
                  b = 0.75, epsilon = 0.25), over text.lower().split().
                  rank_bm25 is not packaged by Debian, so the class below
                  re-implements its code operation for operation.
  tfidf-no-tok    scikit-learn's own TfidfVectorizer() at its defaults,
                  fitted on the candidates, the query transformed with it,
                  scored by sklearn.metrics.pairwise.cosine_similarity.
  jaccard-no-tok  |A & B| / |A | B| of the sets of text.lower().split()
                  (0 when both are empty).

Floats are written by json (shortest repr), so they round-trip exactly.
"""
import json
import math
import random
import sys

import numpy as np
import scipy
import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

SEED = 20250601
QUERIES = 20
CANDIDATES = 150


class BM25Okapi:
    """rank_bm25 0.2.2's BM25Okapi (rank_bm25.py: BM25.__init__,
    BM25._initialize, BM25Okapi._calc_idf, BM25Okapi.get_scores), same
    operations in the same order."""

    def __init__(self, corpus, k1=1.5, b=0.75, epsilon=0.25):
        self.k1 = k1
        self.b = b
        self.epsilon = epsilon
        self.corpus_size = 0
        self.avgdl = 0
        self.doc_freqs = []
        self.idf = {}
        self.doc_len = []
        nd = self._initialize(corpus)
        self._calc_idf(nd)

    def _initialize(self, corpus):
        nd = {}  # word -> number of documents with word
        num_doc = 0
        for document in corpus:
            self.doc_len.append(len(document))
            num_doc += len(document)
            frequencies = {}
            for word in document:
                if word not in frequencies:
                    frequencies[word] = 0
                frequencies[word] += 1
            self.doc_freqs.append(frequencies)
            for word, freq in frequencies.items():
                try:
                    nd[word] += 1
                except KeyError:
                    nd[word] = 1
            self.corpus_size += 1
        self.avgdl = num_doc / self.corpus_size
        return nd

    def _calc_idf(self, nd):
        idf_sum = 0
        negative_idfs = []
        for word, freq in nd.items():
            idf = math.log(self.corpus_size - freq + 0.5) - math.log(freq + 0.5)
            self.idf[word] = idf
            idf_sum += idf
            if idf < 0:
                negative_idfs.append(word)
        self.average_idf = idf_sum / len(self.idf)
        eps = self.epsilon * self.average_idf
        for word in negative_idfs:
            self.idf[word] = eps

    def get_scores(self, query):
        score = np.zeros(self.corpus_size)
        doc_len = np.array(self.doc_len)
        for q in query:
            q_freq = np.array([(doc.get(q) or 0) for doc in self.doc_freqs])
            score += (self.idf.get(q) or 0) * (q_freq * (self.k1 + 1) /
                                               (q_freq + self.k1 * (1 - self.b + self.b * doc_len / self.avgdl)))
        return score


def jaccard(a, b):
    a, b = set(a), set(b)
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def read_rows(path):
    """The MATH JSONL rows of path, and their line numbers by "type"."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            rows.append(json.loads(line))
    by_type = {}
    for i, r in enumerate(rows):
        by_type.setdefault(r["type"], []).append(i)
    return rows, by_type


def main():
    rows, by_type = read_rows(sys.argv[1])
    rng = random.Random(SEED)
    out = {
        "made_by": "testdata/gen.py (see its docstring)",
        "versions": {"python": sys.version.split()[0], "sklearn": sklearn.__version__,
                     "numpy": np.__version__, "scipy": scipy.__version__},
        "queries": [],
    }
    for q in sorted(rng.sample(range(len(rows)), QUERIES)):
        pool = [i for i in by_type[rows[q]["type"]] if i != q]
        cands = rng.sample(pool, CANDIDATES)
        qtext = rows[q]["problem"]
        docs = [rows[i]["problem"] + "\n\n" + rows[i]["solution"] for i in cands]
        plain_docs = [d.lower().split() for d in docs]
        plain_q = qtext.lower().split()
        bm25 = BM25Okapi(plain_docs).get_scores(plain_q)
        vec = TfidfVectorizer()
        dmat = vec.fit_transform(docs)
        tfidf = cosine_similarity(vec.transform([qtext]), dmat)[0]
        out["queries"].append({
            "query": q,
            "candidates": cands,
            "bm25-no-tok": [float(x) for x in bm25],
            "tfidf-no-tok": [float(x) for x in tfidf],
            "jaccard-no-tok": [jaccard(plain_q, d) for d in plain_docs],
        })
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
