#!/usr/bin/python3
"""Independent reference for lib/text: Python's own str.lower, str.split, re
and scikit-learn's CountVectorizer analyzer (SPEC §3 "Lexical baselines (C.4)").

Usage (from lib/text; testdata/gen.sh runs it):
    /usr/bin/python3 testdata/reference.py unicode
    /usr/bin/python3 testdata/reference.py sentences testdata/sentences.jsonl
    /usr/bin/python3 testdata/reference.py math PATH/TO/MATH_test.jsonl

unicode: one JSON object describing, for every code point Python knows
(surrogates excluded), the properties the Go tokenisers must reproduce, as
sorted inclusive ranges [lo, hi]:
  assigned       unicodedata.category(c) != "Cn" (the Go test compares only
                 these: Go may know newer Unicode than Python)
  word           re.match(r"\\w", c) (the \\w of sklearn's token pattern)
  space          c.isspace() (the separators of str.split())
  sigma_skip     c is skipped when str.lower looks for the context of a
                 capital sigma (Case_Ignorable), found by behaviour:
                 ("A" + c + "Σ").lower() ends in "ς" and ("!" + c + "Σ") does not
  sigma_cased    c is cased and not skipped: ("!" + c + "Σ").lower() ends in "ς"
and lower, the list [c, c.lower()] of every code point that lower() changes.

sentences: for each JSON string s of the file, one line
{"i", "text", "sklearn", "plain"} with sklearn = CountVectorizer().build_analyzer()(s)
and plain = s.lower().split().

math: for every 5th line (0-based line numbers 0, 5, 10, ...) of the MATH
file, text = problem + "\\n\\n" + solution, one line {"line", "sklearn",
"plain"} where each is [number of tokens, first 16 hex digits of
sha256("\\n".join(tokens).encode())]; no token contains "\\n".
"""
import hashlib
import json
import re
import sys
import unicodedata

from sklearn.feature_extraction.text import CountVectorizer


def ranges(pred):
    out = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        if pred(chr(cp)):
            if out and out[-1][1] == cp - 1:
                out[-1][1] = cp
            else:
                out.append([cp, cp])
    return out


def unicode_tables():
    word = re.compile(r"\w")
    obj = {
        "python": sys.version.split()[0],
        "unidata_version": unicodedata.unidata_version,
        "assigned": ranges(lambda c: unicodedata.category(c) != "Cn"),
        "word": ranges(lambda c: word.match(c) is not None),
        "space": ranges(lambda c: c.isspace()),
        "sigma_skip": ranges(lambda c: ("A" + c + "Σ").lower()[-1] == "ς"
                             and ("!" + c + "Σ").lower()[-1] != "ς"),
        "sigma_cased": ranges(lambda c: ("!" + c + "Σ").lower()[-1] == "ς"),
        "lower": [[cp, chr(cp).lower()] for cp in range(0x110000)
                  if not 0xD800 <= cp <= 0xDFFF and chr(cp).lower() != chr(cp)],
    }
    print(json.dumps(obj, ensure_ascii=True))


def digest(tokens):
    return [len(tokens), hashlib.sha256("\n".join(tokens).encode()).hexdigest()[:16]]


def main():
    mode = sys.argv[1]
    if mode == "unicode":
        unicode_tables()
        return
    analyze = CountVectorizer().build_analyzer()
    if mode == "sentences":
        with open(sys.argv[2], encoding="utf-8") as f:
            sentences = [json.loads(l) for l in f if l.strip()]
        for i, s in enumerate(sentences):
            print(json.dumps({"i": i, "text": s, "sklearn": analyze(s), "plain": s.lower().split()},
                             ensure_ascii=False))
    elif mode == "math":
        with open(sys.argv[2], encoding="utf-8") as f:
            for n, l in enumerate(f):
                if n % 5:
                    continue
                r = json.loads(l)
                text = r["problem"] + "\n\n" + r["solution"]
                print(json.dumps({"line": n, "sklearn": digest(analyze(text)),
                                  "plain": digest(text.lower().split())}))
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
