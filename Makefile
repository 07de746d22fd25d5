# saber — see README.md. Every target works on a fresh clone with Go 1.26.
GO      ?= go
BIN     := bin
CMDS    := $(notdir $(wildcard cmd/*))
DEMO    ?= saber-demo
PY      ?= /usr/bin/python3
MATH_TEST ?= ../shared/data/math/MATH_test.jsonl

.PHONY: all build sizes test demo bench bench-scale lint clean

all: build

# Binaries carry the commit they were built from, stamped at link time, and
# "+dirty.<digest>" when the tree has uncommitted changes (the digest covers
# the diff and the untracked files, so two dirty builds of different trees
# differ): `saber version` and every manifest show it. Go's own VCS stamp is
# empty wherever GOFLAGS=-buildvcs=false; this one is not. Outside a git
# checkout both are empty and binaries say "unknown".
VERSION_PKG = github.com/saber-math/saber/jobs/stage
COMMIT      = $(shell git rev-parse HEAD 2>/dev/null)
DIRTY       = $(shell if [ -n "$$(git status --porcelain 2>/dev/null | head -n 1)" ]; then \
	{ git diff HEAD --binary; git ls-files -o --exclude-standard -z | xargs -0 -r sha256sum; } | sha256sum | cut -c1-12 | sed 's/^/+dirty./'; fi)
# -s -w leave out the symbol table and DWARF (a third of each binary):
# panics still print full stack traces from the runtime's own tables, and
# `go build` without them gives a binary to debug.
LDFLAGS     = -s -w -X $(VERSION_PKG).codeCommit=$(COMMIT) -X $(VERSION_PKG).codeDirty=$(DIRTY)

build:
	@mkdir -p $(BIN)
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...
	@$(MAKE) --no-print-directory sizes

# Each binary's size and bin/'s, against issue 40's goals: no stage binary
# over 40 MB, all of bin/ within 450 MB (a quarter of the 1.8 GB when every
# stage binary linked every stage).
sizes:
	@ls -l $(addprefix $(BIN)/,$(CMDS)) | awk '{ mb = $$5 / 1e6; t += mb; n = $$NF; sub(".*/", "", n); \
		flag = (n != "saber" && mb > 40) ? "  over the 40 MB goal" : ""; printf "%-12s %6.1f MB%s\n", n, mb, flag } \
		END { printf "%-12s %6.1f MB (goal <= 450 MB)\n", "bin/ total", t }'

# The tests build the binaries they need themselves. Tests that need an S3
# server use AWS_ENDPOINT_URL_S3 (see .ci/s3-start.sh); under CI=true a
# missing server fails them instead of skipping.
test:
	$(GO) test -count=1 -timeout 30m ./...

demo: build
	$(BIN)/saber demo --out $(DEMO)

# Corpus stages (ingest, dedup) on MATH and 283K generated rows, then the
# pairs stage on generated corpora of 20K, 50K, 100K and the paper's 283K
# documents; e.g. BENCH_FLAGS=--pairs-only for the second part.
bench: build
	$(BIN)/saber bench $(BENCH_FLAGS)
	@echo; echo "Bradley–Terry (1,000 queries × ~1,500 comparisons per op; goal ≤ 1 s on 2 cores), judge client overhead per comparison (zero-latency fake, 16 in flight), BM25 per query (150 candidates, index per query):"
	$(GO) test -run '^$$' -bench 'BenchmarkFit1000Queries' -benchtime 3x ./lib/bt
	@# tee keeps the output live; the rc file keeps go test's status, which a pipe would lose.
	{ $(GO) test -run '^$$' -bench 'BenchmarkJudgeOverhead|BenchmarkBM25PerQuery' -benchtime 2s ./jobs/judge ./lib/lexical; echo $$? > $(BIN)/bench-go.rc; } | tee $(BIN)/bench-go.txt; exit $$(cat $(BIN)/bench-go.rc)
	@echo; echo "Full-pool deduplication ranking, exact, against numpy (OpenBLAS sgemm and the target ranks) on the same work, interleaved (1,000 queries × 71K documents × 1,024 dims, 2 threads each; goal ≤ 2× numpy's time):"; sh lib/poolrank/testdata/bench.sh $(GO) $(PY) $(BIN)
	@echo; echo "Ingest against DuckDB (COPY … read_json → zstd Parquet) on the same generated JSONL, interleaved, 2 threads each; goal: CPU-s per MB ≤ DuckDB's:"; bash jobs/ingest/testdata/bench.sh $(BIN)
	@echo; echo "GPU-hours forecast by saber plan --measure against the time the server was busy (fake server at 50 ms a call, tag, summarize, judge; goal within 25%):"; $(GO) test -run '^$$' -bench 'BenchmarkForecastGPUHours' -benchtime 1x ./jobs/forecast | grep -E 'GPU-hours|^ok|FAIL'
	@echo; echo "rank_bm25's BM25Okapi (lib/lexical/testdata/gen.py's copy) on this machine, same protocol and queries (median: compare with median-ms/query), then the ratios:"
	@# time_rank_bm25.py imports gen.py, which imports scikit-learn and scipy too.
	@if [ -f $(MATH_TEST) ] && $(PY) -c 'import numpy, scipy, sklearn' 2>/dev/null; then \
		cd lib/lexical && $(PY) testdata/time_rank_bm25.py $(abspath $(MATH_TEST)) $(abspath $(BIN)/bench-go.txt); \
	else echo "skipped: needs $(MATH_TEST) and $(PY) with numpy, scipy and scikit-learn (apt-get install python3-sklearn)"; fi

# staticcheck comes from the module proxy, not go.mod: it is installed once
# per version and Go release under SABER_TOOLS (cache that directory in CI),
# and a machine without it installs it on the first make lint.
STATICCHECK_VERSION := v0.8.2
SABER_TOOLS ?= $(HOME)/.cache/saber-tools
STATICCHECK = $(SABER_TOOLS)/staticcheck-$(STATICCHECK_VERSION)-$(shell $(GO) env GOVERSION)/staticcheck

# gofmt, vet and staticcheck (any finding fails), and the packages with
# assembly also under -tags purego, which builds their portable code.
# The CPU stages, ingest → select, on a generated corpus of SCALE_N
# documents under the local executor (about an hour and 3 GB of disk on
# 2 cores at 1M): per stage wall, CPU, peak RSS of its largest shard and
# bytes read and written, against the goals at 283K and 1M.
SCALE_N ?= 1000000
bench-scale: build
	$(BIN)/saber bench --scale $(SCALE_N) $(SCALE_FLAGS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -count=1 -tags purego ./lib/text/... ./lib/lexical/... ./lib/poolrank/...
	@test -x $(STATICCHECK) || { echo "installing staticcheck $(STATICCHECK_VERSION) into $(dir $(STATICCHECK))"; \
		GOBIN=$(dir $(STATICCHECK)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION); }
	$(STATICCHECK) ./...
	$(STATICCHECK) -tags purego ./lib/text/... ./lib/lexical/... ./lib/poolrank/...

clean:
	rm -rf $(BIN) $(DEMO)
