#!/bin/sh
# Regenerates the golden files of lib/summtok from independent references.
# Run from lib/summtok:  sh testdata/gen.sh
# Needs Debian's python3-sklearn (apt-get update && apt-get install -y python3-sklearn);
# the committed files were made with python3-sklearn 1.2.1+dfsg-1 (scikit-learn 1.2.1), Python 3.11.
# testdata/sentences.jsonl and testdata/math_stop_words.txt are inputs, written by hand.
set -eu
PY=/usr/bin/python3
{
	echo "# scikit-learn $($PY -c 'import sklearn; print(sklearn.__version__)') ENGLISH_STOP_WORDS, sorted, one per line; lines starting with # are comments."
	echo "# Made by testdata/gen.sh with:"
	echo "#   $PY -c \"from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as S; print('\\\\n'.join(sorted(S)))\""
	$PY -c "from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as S; print('\n'.join(sorted(S)))"
} >testdata/sklearn_stop_words.txt
# Made by testdata/gen.sh with the command below; see the docstring of reference.py.
$PY testdata/reference.py testdata/sentences.jsonl testdata/math_stop_words.txt >testdata/reference.golden.jsonl
