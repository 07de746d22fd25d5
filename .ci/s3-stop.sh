#!/usr/bin/env bash
# s3-stop.sh [--purge] - stop the server s3-start.sh started, found by its pid
# file only (never by process name). --purge also removes its data, log and
# env file; the cached binary in $SABER_CI_DIR/bin is kept for the next start.
set -uo pipefail
D=${SABER_CI_DIR:-/tmp/saber-ci}/s3
if [[ -s $D/pid ]]; then
  pid=$(cat "$D/pid")
  if [[ -r /proc/$pid/comm && $(cat "/proc/$pid/comm") == versitygw* ]]; then
    kill -TERM "$pid"
    for ((i = 0; i < 100; i++)); do [[ -d /proc/$pid ]] || break; sleep 0.2; done
    [[ -d /proc/$pid ]] && kill -KILL "$pid"
    echo "[s3-stop] versitygw (pid $pid) stopped"
  else
    echo "[s3-stop] versitygw not running"
  fi
  rm -f "$D/pid"
else
  echo "[s3-stop] versitygw not running"
fi
if [[ ${1:-} == --purge ]]; then rm -rf "$D" && echo "[s3-stop] purged $D"; fi
exit 0
