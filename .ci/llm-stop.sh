#!/usr/bin/env bash
# llm-stop.sh - stop the servers .ci/llm-start.sh started (by their pid files).
set -uo pipefail
D=${SABER_CI_DIR:-/tmp/saber-ci}/llm
for f in "$D"/*.pid; do
  [[ -e $f ]] || continue
  pid=$(cat "$f")
  if [[ -r /proc/$pid/comm && $(cat "/proc/$pid/comm") == llama-server* ]]; then
    kill "$pid" 2>/dev/null
  fi
  rm -f "$f"
done
