#!/usr/bin/env bash
# Ingest against DuckDB, for `make bench` (issue 41): the same JSONL corpus
# written as zstd Parquet by our ingest stage and by DuckDB's
#
#   SET threads=2; COPY (SELECT * FROM read_json('f.jsonl')) TO 'o.parquet' (FORMAT parquet, COMPRESSION zstd)
#
# in INGEST_PAIRS (default 3) interleaved pairs, because the CPUs are
# shared. Ours is the stage as a user runs it: `saber run --stages ingest
# --parallel 2` with ingest.shards: 2 (two map shard processes at once,
# then the reduce), GOMAXPROCS=2, on a fresh data folder each time. Both
# are timed with bash's `time`, whose user and system seconds are those of
# the command and every process it waited for (getrusage RUSAGE_CHILDREN);
# process start-up counts for both (node and DuckDB's module load for
# theirs; saber, three stage processes and their manifests for ours).
#
# The corpus is `saber synth --n INGEST_N --seed 7` (default 283,000 rows,
# ~180 MB), the generator and seed of `saber bench`'s generated corpus:
# problems with worked solutions and a nested field (topics, a list).
# It is written to INGEST_BENCH_DIR when set, and reused from there by the
# next run; otherwise to a temporary folder removed at the end.
#
# Each pair prints both runs' wall time, MB/s, CPU seconds and CPU-s per
# input MB; the last line is the ratio of the medians of CPU-s/MB against
# the goal (ours ≤ DuckDB's). Wall time is printed beside it, but on a
# shared machine it measures the neighbours too.
#
# DuckDB comes from npm (@duckdb/node-api, pinned by .ci/node): from
# SABER_NODE_MODULES when set, else from the folder .ci/node-tools.sh
# installs it in. Without node or the module the peer is skipped, with
# the command that installs it, and our runs are timed alone.
#
# Usage: bench.sh BINDIR (from the repository root; BINDIR holds saber and
# ingest, as `make build` leaves them).
set -euo pipefail
bin=$(cd "$1" && pwd)
root=$(pwd)
pairs=${INGEST_PAIRS:-3} n=${INGEST_N:-283000}
threads=2

for b in saber ingest; do
	[[ -x $bin/$b ]] || { echo "ingest bench: $bin/$b is missing (make build)" >&2; exit 1; }
done

# The peer: node and the pinned @duckdb/node-api.
modules=${SABER_NODE_MODULES:-}
duckdb=1
if ! command -v node >/dev/null; then
	duckdb=0 why="node is not on PATH"
else
	if [[ -z $modules ]]; then
		# The folder .ci/node-tools.sh names by the pinned versions and
		# the lock's hash.
		dep() { node -p "require('$root/.ci/node/package.json').dependencies['$1']"; }
		lock=$(sha256sum .ci/node/package-lock.json | cut -c1-12)
		dir=${SABER_TOOLS:-$HOME/.cache/saber-tools}/node-duckdb-$(dep @duckdb/node-api)-jsonld-$(dep jsonld)-$lock
		[[ -f $dir/.installed ]] && modules=$dir/node_modules
	fi
	if [[ -z $modules || ! -f $modules/@duckdb/node-api/package.json ]]; then
		duckdb=0 why="no @duckdb/node-api in ${modules:-SABER_NODE_MODULES or the node-tools cache}"
	fi
fi
if [[ $duckdb -eq 0 ]]; then
	echo "DuckDB peer skipped: $why (install it with: . \"\$(bash .ci/node-tools.sh | tail -n 1)\"); our runs alone:"
fi

work=${INGEST_BENCH_DIR:-}
if [[ -z $work ]]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
corpus=$work/synth-$n.jsonl
if [[ ! -s $corpus ]]; then
	"$bin/saber" synth --n "$n" --seed 7 --out "$corpus.tmp" 2>/dev/null
	mv "$corpus.tmp" "$corpus"
fi
bytes=$(stat -L -c %s "$corpus") # -L: a corpus linked into INGEST_BENCH_DIR counts its bytes, not the link's
lines=$(wc -l <"$corpus")
awk -v n="$lines" -v b="$bytes" -v f="$corpus" 'BEGIN { printf "corpus: %s, %d rows, %.1f MB (saber synth --seed 7)\n", f, n, b / 1e6 }'
echo "load before: $(uptime)"

cat >"$work/run.yaml" <<EOF
run: bench
root: data
log: {progress_seconds: 0}
ingest:
  shards: $threads
  sources:
    - name: synth
      paths: [$corpus]
      fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}
EOF
# The script duckdb.js of artifacts/release/extread runs SQL read from
# stdin and prints the last statement's rows: COPY's is its row count.
sql="SET threads=$threads; COPY (SELECT * FROM read_json('$corpus')) TO '$work/duckdb.parquet' (FORMAT parquet, COMPRESSION zstd);"

# timed FILE CMD...: runs CMD, its output to FILE.out, and writes
# "wall user sys" to FILE.
timed() {
	local f=$1
	shift
	local TIMEFORMAT='%R %U %S'
	{ time "$@" >"$f.out" 2>&1; } 2>"$f"
}

ours() {
	rm -rf "$work/data" "$work/logs"
	(cd "$work" && timed "$work/ours.time" env GOMAXPROCS=$threads "$bin/saber" run --config run.yaml --stages ingest --parallel $threads) ||
		{ cat "$work/ours.time.out" >&2; exit 1; }
	# The reduce's manifest: the problems it wrote and their SHA-256,
	# the same in every pair (and for any shard count).
	local m=$work/data/bench/problems/_done/part-00000-of-00001.json
	ourrows=$(awk -F'[:,]' '/"rows":/ { gsub(/ /, "", $2); print $2; exit }' "$m")
	oursha=$(awk -F'"' '/"sha256":/ { print $4; exit }' "$m")
	oursize=$(stat -c %s "$work/data/bench/problems/part-00000-of-00001.parquet")
}

theirs() {
	rm -f "$work/duckdb.parquet"
	echo "$sql" | timed "$work/duckdb.time" env NODE_PATH="$modules" node "$root/artifacts/release/extread/duckdb.js" ||
		{ cat "$work/duckdb.time.out" >&2; exit 1; }
	theirrows=$(grep -o '"Count":[0-9]*' "$work/duckdb.time.out" | cut -d: -f2)
	theirsize=$(stat -c %s "$work/duckdb.parquet")
}

# cpuof TIMEFILE: user + system seconds.
cpuof() { awk '{ print $2 + $3 }' "$1"; }

# report NAME TIMEFILE: one run's figures.
report() {
	awk -v name="$1" -v b="$bytes" '{
		mb = b / 1e6; c = $2 + $3
		printf "%s %.2f s wall (%.0f MB/s), %.2f CPU-s (%.4f CPU-s/MB)", name, $1, mb / $1, c, c / mb }' "$2"
}

ourcpu="" theircpu="" ourwall="" theirwall="" sha=""
for i in $(seq "$pairs"); do
	ours
	line=$(report "ours" "$work/ours.time") c=$(cpuof "$work/ours.time")
	ourcpu="$ourcpu $c" ourwall="$ourwall $(cut -d' ' -f1 "$work/ours.time")"
	[[ -z $sha || $sha == "$oursha" ]] || { echo "ingest bench: problems' SHA-256 changed between runs: $sha, then $oursha" >&2; exit 1; }
	sha=$oursha
	[[ $ourrows -eq $lines ]] || { echo "ingest bench: ours wrote $ourrows problems of $lines rows" >&2; exit 1; }
	if [[ $duckdb -eq 0 ]]; then
		echo "run $i: $line"
		continue
	fi
	theirs
	[[ $theirrows -eq $lines ]] || { echo "ingest bench: DuckDB wrote $theirrows rows of $lines" >&2; exit 1; }
	line="$line; $(report "DuckDB" "$work/duckdb.time")" nc=$(cpuof "$work/duckdb.time")
	theircpu="$theircpu $nc" theirwall="$theirwall $(cut -d' ' -f1 "$work/duckdb.time")"
	echo "pair $i: $line; CPU $(awk -v a="$c" -v b="$nc" 'BEGIN { printf "%.2f", a / b }')× DuckDB's"
done
awk -v a="$oursize" -v b="${theirsize:-0}" -v s="$sha" -v p="$pairs" 'BEGIN {
	printf "output: ours %.1f MB (problems, SHA-256 %.12s…%s)", a / 1e6, s, (p > 1 ? ", the same in all " p " runs" : "")
	if (b > 0) printf ", DuckDB %.1f MB", b / 1e6
	print "" }'

median() { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
if [[ $duckdb -eq 1 ]]; then
	awk -v p="$pairs" -v b="$bytes" -v c="$(median $ourcpu)" -v nc="$(median $theircpu)" -v w="$(median $ourwall)" -v nw="$(median $theirwall)" 'BEGIN {
		mb = b / 1e6; r = c / nc
		printf "median of %d pairs: CPU-s per MB: ours %.4f, DuckDB %.4f: %.2f× DuckDB'\''s (goal ≤ 1×: %s); wall %.2f s against %.2f s (%.2f×)\n",
			p, c / mb, nc / mb, r, (r <= 1 ? "met" : "NOT met"), w, nw, w / nw }'
else
	awk -v b="$bytes" -v c="$(median $ourcpu)" 'BEGIN { printf "median: ours %.4f CPU-s per MB (no DuckDB to compare with)\n", c / (b / 1e6) }'
fi
echo "load after: $(uptime)"
