#!/usr/bin/env bash
# s3-start.sh - start an S3-compatible server (versitygw) on 127.0.0.1 for the
# real-server tests of artifacts/store and its users.
#
# Builds versitygw with `go install` the first time (about 1.5 min) into a
# cache directory that later runs reuse, starts it in the background (pid
# file), waits until it answers HTTP, and writes an env file exporting
# AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION.
# It creates no buckets: tests do that (store.EnsureBucket).
# Idempotent: if the server is already running it only re-checks readiness
# and rewrites the env file. The last line printed is the env file's path:
#
#   . "$(bash .ci/s3-start.sh | tail -1)"
#
#   SABER_CI_DIR    cache/state root, default /tmp/saber-ci
#                   ($SABER_CI_DIR/bin: binary; $SABER_CI_DIR/s3: data, log, pid, env.sh)
#   S3_PORT         default 7070
#   S3_ACCESS_KEY / S3_SECRET_KEY   default ciaccess / cisecret123 (local test keys only)
#   VERSITYGW_MOD   default github.com/versity/versitygw/cmd/versitygw@v1.8.0
set -euo pipefail
CI_DIR=${SABER_CI_DIR:-/tmp/saber-ci}
BIN=$CI_DIR/bin
D=$CI_DIR/s3
PORT=${S3_PORT:-7070}
AK=${S3_ACCESS_KEY:-ciaccess}
SK=${S3_SECRET_KEY:-cisecret123}
MOD=${VERSITYGW_MOD:-github.com/versity/versitygw/cmd/versitygw@v1.8.0}
mkdir -p "$D/data" "$BIN"
T0=$(date +%s%N)
log() { local ms=$(( ($(date +%s%N) - T0) / 1000000 )); printf '[s3-start %3d.%03ds] %s\n' $((ms/1000)) $((ms%1000)) "$*" >&2; }

if [[ ! -x $BIN/versitygw ]]; then
  log "building $MOD (~1.5 min with cold caches)"
  # Build outside any module so the caller's go.mod (and GOFLAGS=-mod=...) does not interfere.
  (cd / && GOBIN=$BIN GOFLAGS=-buildvcs=false GOTOOLCHAIN=${GOTOOLCHAIN:-local} \
    go install -trimpath -ldflags=-s "$MOD")
  log "built $BIN/versitygw ($(du -h "$BIN/versitygw" | cut -f1))"
fi

# running: the pid file names a live versitygw process (not a recycled pid).
running() {
  [[ -s $D/pid ]] || return 1
  local pid; pid=$(cat "$D/pid")
  [[ -r /proc/$pid/comm && $(cat "/proc/$pid/comm") == versitygw* ]]
}
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# Any HTTP answer (an anonymous request gets 403) means the server is up.
ready() { curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/"; }

if ! running; then
  port_open "$PORT" && { log "ERROR: 127.0.0.1:$PORT already in use by another process"; exit 1; }
  ROOT_ACCESS_KEY=$AK ROOT_SECRET_KEY=$SK setsid nohup "$BIN/versitygw" \
    --port "127.0.0.1:$PORT" --quiet posix "$D/data" >>"$D/server.log" 2>&1 </dev/null &
  echo $! >"$D/pid"
  log "started versitygw (pid $(cat "$D/pid"))"
fi

for _ in $(seq 300); do
  ready && break
  running || { log "ERROR: versitygw died: $(tail -5 "$D/server.log")"; exit 1; }
  sleep 0.1
done
ready || { log "ERROR: versitygw not ready after 30s (log: $D/server.log)"; exit 1; }

cat >"$D/env.sh.tmp" <<ENV
export AWS_ENDPOINT_URL_S3=http://127.0.0.1:$PORT
export AWS_ACCESS_KEY_ID=$AK
export AWS_SECRET_ACCESS_KEY=$SK
export AWS_REGION=us-east-1
# No test asks the EC2 instance-metadata address, whatever its config: no
# packet leaves the loopback interface.
export AWS_EC2_METADATA_DISABLED=true
ENV
mv "$D/env.sh.tmp" "$D/env.sh"
log "versitygw ready on http://127.0.0.1:$PORT"
echo "$D/env.sh"
