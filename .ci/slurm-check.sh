#!/usr/bin/env bash
# slurm-check.sh - quick smoke test of the cluster slurm-start.sh started:
# a 3-task array with an afterok job chained on it, squeue --json, sacct --json
# (when accounting is on) and MaxArraySize. Exits non-zero on the first failure.
set -euo pipefail
BASE=${SABER_CI_DIR:-/tmp/saber-ci}/slurm
. "$BASE/env.sh"
W=$(mktemp -d "${SABER_CI_DIR:-/tmp/saber-ci}/slurm-check.XXXX")
trap 'rm -rf "$W"' EXIT
T0=$(date +%s%N)
say() { local ms=$(( ($(date +%s%N) - T0) / 1000000 )); printf '[slurm-check %d.%03ds] %s\n' $((ms/1000)) $((ms%1000)) "$*"; }
fail() { say "FAIL $*"; exit 1; }
json_ok() { # stdin is JSON with a "jobs" list
  if command -v jq >/dev/null; then jq -e '.jobs | type == "array"' >/dev/null
  else python3 -c 'import json,sys; assert isinstance(json.load(sys.stdin)["jobs"], list)'; fi
}
# wait_gone JOBID SECONDS: poll squeue (sbatch --wait polls at 2/8/32 s, too slow)
wait_gone() {
  local d=$(( $(date +%s) + $2 ))
  while squeue -h -j "$1" 2>/dev/null | grep -q .; do (( $(date +%s) < d )) || return 1; sleep 0.1; done
}

A=$(sbatch --parsable --array=0-2 -o /dev/null --wrap "echo \$SLURM_ARRAY_TASK_ID > $W/t_\$SLURM_ARRAY_TASK_ID")
D=$(sbatch --parsable --dependency=afterok:"$A" -o /dev/null --wrap "ls $W/t_* | wc -l > $W/dep")
squeue --json | json_ok || fail "squeue --json did not parse"
say "OK   squeue --json parses"
wait_gone "$D" 60 || fail "job $D still queued after 60 s: $(squeue -j "$A,$D")"
[[ $(cat "$W/dep" 2>/dev/null) == 3 ]] || fail "afterok job $D did not see 3 outputs of array $A"
say "OK   array $A (3 tasks) -> afterok job $D"

if grep -q '^AccountingStorageType=accounting_storage/slurmdbd' "$SLURM_CONF"; then
  for _ in $(seq 50); do   # the job records reach slurmdbd asynchronously
    n=$(sacct -n -X -P -j "$A,$D" -s CD -o JobID | grep -c .) || true
    (( n >= 4 )) && break; sleep 0.2
  done
  (( n >= 4 )) || fail "sacct shows $n of 4 completed jobs: $(sacct -X -j "$A,$D")"
  sacct --json -j "$A" | json_ok || fail "sacct --json did not parse"
  say "OK   sacct: 4 jobs COMPLETED; sacct --json parses"
else
  say "SKIP sacct (accounting off)"
fi

m=$(scontrol show config | grep -E '^MaxArraySize') || fail "no MaxArraySize in scontrol show config"
say "OK   $(tr -s ' ' <<<"$m")"
