#!/bin/sh
# Regenerates the golden files of lib/text from independent references
# (Python's str.lower, str.split and re, scikit-learn's CountVectorizer).
# Run from lib/text:  sh testdata/gen.sh [path/to/MATH_test.jsonl]
# Needs Debian's python3-sklearn (apt-get update && apt-get install -y python3-sklearn);
# the committed files were made with python3-sklearn 1.2.1+dfsg-1 (scikit-learn 1.2.1),
# Python 3.11.2 (Unicode 14.0.0).
# testdata/sentences.jsonl is an input, written by hand.
set -eu
PY=/usr/bin/python3
MATH=${1:-../../../shared/data/math/MATH_test.jsonl}
$PY testdata/reference.py unicode >testdata/unicode.golden.json
$PY testdata/reference.py sentences testdata/sentences.jsonl >testdata/sentences.golden.jsonl
$PY testdata/reference.py math "$MATH" >testdata/math.golden.jsonl
