#!/usr/bin/env bash
# node-tools.sh - install the readers that are not saber's, for the release
# tests (artifacts/release/extread): DuckDB (@duckdb/node-api) reads every
# Parquet file of a release, and jsonld expands its croissant.json.
#
# The versions are pinned by .ci/node/package-lock.json (integrity hashes of
# every package) and installed with `npm ci` into a cache directory named by
# those versions and the lock's hash, so a machine installs them once and a
# changed lock installs beside the old one instead of over it. Everything
# comes from the npm registry alone: @duckdb/node-api's native binding is the
# npm package @duckdb/node-bindings-linux-x64 (the plain `duckdb` package
# instead fetches its binary from DuckDB's own server at install time, which
# CI cannot reach, and then spends >5 min compiling DuckDB from source), and
# --ignore-scripts makes sure no install script downloads anything else.
# About 2 s on a fresh machine (empty npm cache, 13 packages, 75 MB, most of
# it DuckDB's binding); 0.2 s once cached, when it installs nothing.
#
# The last line printed is the env file's path, which exports
# SABER_NODE_MODULES (the node_modules folder extread sets NODE_PATH to):
#
#   . "$(bash .ci/node-tools.sh | tail -n 1)"
#
#   SABER_TOOLS   cache root, default $HOME/.cache/saber-tools (as for
#                 staticcheck in the Makefile); the install goes under
#                 $SABER_TOOLS/node-duckdb-<v>-jsonld-<v>-<lock hash>/
set -euo pipefail
SRC=$(cd "$(dirname "$0")/node" && pwd)
TOOLS=${SABER_TOOLS:-$HOME/.cache/saber-tools}
T0=$(date +%s%N)
log() { local ms=$(( ($(date +%s%N) - T0) / 1000000 )); printf '[node-tools %3d.%03ds] %s\n' $((ms/1000)) $((ms%1000)) "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# Node and npm come with the machine's image; should a machine lack them,
# Debian's nodejs (18.x) is new enough for both packages (N-API bindings,
# jsonld wants node >= 18).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  log "node or npm missing: installing Debian's nodejs and npm"
  apt-get -o DPkg::Lock::Timeout=300 update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
    --no-install-recommends nodejs npm >/dev/null
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
(( node_major >= 18 )) || die "node $(node --version) is too old: jsonld needs node >= 18"

# The directory is named by what is in it; the lock's hash covers the
# transitive versions that the two names do not show.
dep() { node -p "require('$SRC/package.json').dependencies['$1']"; }
lock_hash=$(sha256sum "$SRC/package-lock.json" | cut -c1-12)
DIR=$TOOLS/node-duckdb-$(dep @duckdb/node-api)-jsonld-$(dep jsonld)-$lock_hash
MODS=$DIR/node_modules

# check DIR: both packages load and DuckDB's native binding answers a query
# that needs its built-in Parquet reader (no extension may be fetched: CI has
# no network but the registries).
check() {
  (cd "$1" && node -e '
    require("jsonld");
    const { DuckDBInstance } = require("@duckdb/node-api");
    const f = process.argv[1];
    (async () => {
      const db = await DuckDBInstance.create(":memory:", { autoinstall_known_extensions: "false" });
      const c = await db.connect();
      await c.run(`COPY (SELECT 42 AS n) TO \x27${f}\x27 (FORMAT parquet)`);
      const r = await c.runAndReadAll(`SELECT n FROM read_parquet(\x27${f}\x27)`);
      if (r.getRowObjectsJson()[0].n !== 42) throw new Error("read back " + JSON.stringify(r.getRowObjectsJson()));
    })().catch((e) => { console.error(e.message); process.exit(1); });' "$1/smoke.parquet") >&2
  local rc=$?
  rm -f "$1/smoke.parquet"
  return $rc
}

# The marker is written only after a complete, checked install: an
# interrupted install leaves a .tmp directory, never a half-filled $DIR.
if [[ -f $DIR/.installed && -d $MODS/@duckdb/node-api && -d $MODS/jsonld ]]; then
  log "cached: $DIR"
else
  log "installing $(cd "$SRC" && node -p 'Object.entries(require("./package.json").dependencies).map(e => e.join("@")).join(", ")') with npm ci into $DIR"
  mkdir -p "$TOOLS"
  tmp=$(mktemp -d "$DIR.tmp.XXXXXX")
  chmod 755 "$tmp"   # mktemp's 700 would hide the modules from other users
  trap 'rm -rf "$tmp"' EXIT
  cp "$SRC/package.json" "$SRC/package-lock.json" "$tmp/"
  (cd "$tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2 ||
    die "npm ci failed (registry unreachable?)"
  check "$tmp" || die "installed packages do not work (see above)"
  touch "$tmp/.installed"
  rm -rf "$DIR"
  mv "$tmp" "$DIR"
  trap - EXIT
  log "installed $(du -sh "$DIR" | cut -f1): @duckdb/node-api $(node -p "require('$MODS/@duckdb/node-api/package.json').version"), jsonld $(node -p "require('$MODS/jsonld/package.json').version")"
fi

cat >"$DIR/env.sh.tmp" <<ENV
export SABER_NODE_MODULES=$MODS
ENV
mv "$DIR/env.sh.tmp" "$DIR/env.sh"
echo "$DIR/env.sh"
