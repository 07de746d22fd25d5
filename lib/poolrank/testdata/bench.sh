#!/bin/sh
# Full-pool ranking against numpy, for `make bench`: POOLRANK_PAIRS pairs
# (default 3) of one BenchmarkFullPoolRanking run and the best of two runs of
# time_numpy.py on the same work (1,000 queries × POOLRANK_DOCS documents,
# default 71,000, × 1,024 dims; the product and each query's target rank),
# interleaved because the CPUs are shared, both at 2 threads (GOMAXPROCS=2,
# OPENBLAS_NUM_THREADS=2). Each pair prints both times and the ratio; the
# last line is the ratio of the medians against the goal (≤ 2×). Wall
# time is what the goal is set on; CPU time is printed beside it because
# on a loaded machine the wall time measures the neighbours too.
#
# Usage: bench.sh GO PYTHON BINDIR (from the repository root).
#
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, which older OpenBLAS builds
# needed on this machine, make a current one pick a slower kernel: they
# are unset for numpy's command here, and only here.
set -eu
go=$1 py=$2 bin=$3
pairs=${POOLRANK_PAIRS:-3} nd=${POOLRANK_DOCS:-71000}
nq=1000 dim=1024

"$go" test -c -o "$bin/poolrank.test" ./lib/poolrank
numpy=1
if ! "$py" -c 'import numpy' 2>/dev/null; then
	numpy=0
	echo "numpy peer skipped: $py cannot import numpy (apt-get install python3-numpy); our times alone:"
fi

# field NAME prints the number before NAME on the line that has it.
field() { awk -v k="$1" '{ for (i = 2; i <= NF; i++) if ($i == k) print $(i - 1) }'; }

ours="" theirs="" ourcpu="" theircpu=""
for i in $(seq "$pairs"); do
	out=$(GOMAXPROCS=2 POOLRANK_DOCS=$nd "$bin/poolrank.test" -test.run '^$' -test.bench '^BenchmarkFullPoolRanking$' -test.benchtime 1x)
	s=$(echo "$out" | field s/ranking) c=$(echo "$out" | field cpu-s)
	[ $i -eq 1 ] && echo "$out" | grep -o '[0-9,]* queries × .*kernel' | head -1
	ours="$ours $s" ourcpu="$ourcpu $c"
	if [ $numpy -eq 0 ]; then
		echo "run $i: poolrank $s s wall, $c s CPU"
		continue
	fi
	np=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=2 "$py" lib/poolrank/testdata/time_numpy.py $nq $nd $dim 2)
	[ $i -eq 1 ] && echo "$np" | grep -E '^(numpy |BLAS:)'
	ns=$(echo "$np" | awk '/^numpy-s\/ranking/ { print $2 }') nc=$(echo "$np" | awk '/^numpy-s\/ranking/ { print $4 }')
	theirs="$theirs $ns" theircpu="$theircpu $nc"
	awk -v i=$i -v s=$s -v c=$c -v ns=$ns -v nc=$nc 'BEGIN {
		printf "pair %d: poolrank %.2f s wall (%.2f s CPU), numpy %.2f s wall (%.2f s CPU): %.2f× numpy'\''s wall time, %.2f× its CPU time (goal ≤ 2×)\n", i, s, c, ns, nc, s / ns, c / nc }'
done

median() { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
if [ $numpy -eq 1 ]; then
	awk -v p="$pairs" -v s="$(median $ours)" -v ns="$(median $theirs)" -v c="$(median $ourcpu)" -v nc="$(median $theircpu)" 'BEGIN {
		r = s / ns
		printf "median of %d pairs: poolrank %.2f s, numpy %.2f s: %.2f× numpy'\''s time (goal ≤ 2×: %s); CPU time %.2f×\n", p, s, ns, r, (r <= 2 ? "met" : "NOT met"), c / nc }'
fi
echo "load: $(uptime)"
