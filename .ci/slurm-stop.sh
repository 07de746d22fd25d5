#!/usr/bin/env bash
# slurm-stop.sh [--purge] - stop what slurm-start.sh started, found by pid file
# only (never by process name): cancels the private cluster's jobs, then stops
# slurmd, slurmctld, slurmdbd, mariadbd and munged (SIGTERM, up to 20 s, then
# SIGKILL). --purge also deletes $SABER_CI_DIR/slurm (state, database, logs, key).
set -uo pipefail
BASE=${SABER_CI_DIR:-/tmp/saber-ci}/slurm
PURGE=0; [[ ${1:-} == --purge ]] && PURGE=1
export SLURM_CONF=$BASE/etc/slurm.conf
log() { echo "[slurm-stop] $*" >&2; }
pid_of() { # pid_of PIDFILE COMM: print the pid if alive with that comm
  local pid
  [[ -s $1 ]] || return 1
  pid=$(tr -dc 0-9 <"$1")
  [[ -n $pid && -r /proc/$pid/comm && $(cat "/proc/$pid/comm") == "$2"* ]] || return 1
  echo "$pid"
}
stop() { # stop PIDFILE COMM
  local pid i
  pid=$(pid_of "$1" "$2") || { log "$2: not running"; return 0; }
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 100; i++)); do
    [[ -d /proc/$pid ]] || { log "$2 (pid $pid) stopped"; rm -f "$1"; return 0; }
    sleep 0.2
  done
  log "$2 (pid $pid) still running after 20 s; SIGKILL"
  kill -KILL "$pid" 2>/dev/null
  rm -f "$1"
}

if [[ -f $SLURM_CONF ]] && pid_of "$BASE/run/slurmctld.pid" slurmctld >/dev/null; then
  jobs=$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')
  if [[ -n ${jobs// /} ]]; then
    log "cancelling jobs: $jobs"
    # shellcheck disable=SC2086
    scancel $jobs 2>/dev/null
    for ((i = 0; i < 50; i++)); do
      [[ -z $(squeue -h -o %A 2>/dev/null) ]] && break
      sleep 0.2
    done
  fi
fi

stop "$BASE/run/slurmd.pid" slurmd
stop "$BASE/run/slurmctld.pid" slurmctld
stop "$BASE/run/slurmdbd.pid" slurmdbd
stop "$BASE/mariadb/run/mysqld.pid" mariadbd
stop "$BASE/munge/munged.pid" munged

if [[ $PURGE == 1 ]]; then
  rm -rf "$BASE" && log "purged $BASE"
fi
exit 0
