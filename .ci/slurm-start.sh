#!/usr/bin/env bash
# slurm-start.sh - start a real single-node Slurm cluster on 127.0.0.1 for the
# tests that drive sbatch/squeue/sacct (Debian 12 packages, run as root, no
# systemd needed). Adapted from the reference start-slurm.sh.
#
# Installs slurmctld, slurmd, slurm-client, munge (and slurmdbd + mariadb-server
# for sacct) if missing, writes a private config, starts each daemon that is not
# already running (checked through its pid file, never by process name), waits
# until the node is idle, and writes an env file exporting SLURM_CONF.
# Idempotent: a second run only re-checks and, if the config changed, runs
# `scontrol reconfigure`. Log lines go to stderr; the last (only) line on
# stdout is the env file's path:
#
#   . "$(bash .ci/slurm-start.sh | tail -1)"
#
#   SABER_CI_DIR          state root, default /tmp/saber-ci (everything under $SABER_CI_DIR/slurm)
#   WITH_SACCT=1          1: also MariaDB + slurmdbd so that `sacct` works; 0: no accounting
#   SLURM_CPUS=8          CPUs advertised (more than the real ones is fine: config_overrides)
#   SLURM_MAX_ARRAY_SIZE  MaxArraySize, default 1001 (Slurm's default): indices 0..N-1
#   SLURM_DB_PORT=13306   private MariaDB port (127.0.0.1 only)
#   START_TIMEOUT=60      seconds to wait for each daemon / the node
# Slurm's ports 6817 (slurmctld), 6818 (slurmd), 6819 (slurmdbd) must be free.
set -euo pipefail
CI_DIR=${SABER_CI_DIR:-/tmp/saber-ci}
BASE=$CI_DIR/slurm
WITH_SACCT=${WITH_SACCT:-1}
CPUS=${SLURM_CPUS:-8}
MAX_ARRAY=${SLURM_MAX_ARRAY_SIZE:-1001}
DB_PORT=${SLURM_DB_PORT:-13306}
TIMEOUT=${START_TIMEOUT:-60}
CLUSTER=saberci

T0=$(date +%s%N)
log() { local ms=$(( ($(date +%s%N) - T0) / 1000000 )); printf '[slurm-start %3d.%03ds] %s\n' $((ms/1000)) $((ms%1000)) "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# alive PIDFILE COMM: the pid in PIDFILE is running and its comm starts with COMM
alive() {
  local pid
  [[ -s $1 ]] || return 1
  pid=$(tr -dc 0-9 <"$1")
  [[ -n $pid && -r /proc/$pid/comm && $(cat "/proc/$pid/comm") == "$2"* ]]
}
wait_for() { # wait_for WHAT CMD...
  local what=$1 deadline=$(( $(date +%s) + TIMEOUT )); shift
  until "$@" >/dev/null 2>&1; do
    (( $(date +%s) < deadline )) || return 1
    sleep 0.2
  done
  log "$what ready"
}
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# Daemons get no access to our stdout: a caller's $(...) or pipe would never see EOF.
daemon() { local name=$1; shift; setsid "$@" </dev/null >>"$BASE/log/$name.stdout" 2>&1; }

[[ $(id -u) == 0 ]] || die "must run as root"
[[ $CPUS =~ ^[1-9][0-9]*$ ]] || die "SLURM_CPUS must be a positive integer"
[[ $MAX_ARRAY =~ ^[1-9][0-9]*$ ]] || die "SLURM_MAX_ARRAY_SIZE must be a positive integer"

# ---------------------------------------------------------------- packages
pkgs=(slurmctld slurmd slurm-client munge)
[[ $WITH_SACCT == 1 ]] && pkgs+=(slurmdbd mariadb-server)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing: ${missing[*]}"
  apt-get -o DPkg::Lock::Timeout=300 update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
  log "packages installed"
fi
log "slurm $(dpkg-query -W -f='${Version}' slurmctld), munge $(dpkg-query -W -f='${Version}' munge)"

mkdir -p "$BASE"/{etc,state,spool,log,run,munge}
chmod 755 "$CI_DIR" "$BASE" "$BASE/munge"   # munged wants an o+x, not group/other-writable socket dir
HOST=$(hostname -s)
CONF=$BASE/etc/slurm.conf
MSOCK=$BASE/munge/munge.socket.2
export SLURM_CONF=$CONF

# ---------------------------------------------------------------- munge
# Own root-owned key: munged running as root rejects Debian's munge-owned /etc/munge/munge.key.
[[ -s $BASE/munge/munge.key ]] || dd if=/dev/urandom of="$BASE/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$BASE/munge/munge.key"
if ! alive "$BASE/munge/munged.pid" munged; then
  daemon munged munged --socket="$MSOCK" --key-file="$BASE/munge/munge.key" \
    --pid-file="$BASE/munge/munged.pid" --log-file="$BASE/munge/munged.log" \
    --seed-file="$BASE/munge/munged.seed" --num-threads=4 \
    || die "munged failed: $(tail -3 "$BASE/munge/munged.log")"
fi
wait_for munged bash -c "munge -S '$MSOCK' -n | unmunge -S '$MSOCK'" || die "munge not working"

# ---------------------------------------------------------------- slurm.conf
# Memory advertised at 90% of what slurmd sees, so the node is never drained for low memory.
MEM=$(slurmd -C | head -1 | grep -oP 'RealMemory=\K[0-9]+')
MEM=$(( MEM * 9 / 10 ))
acct_lines="AccountingStorageType=accounting_storage/none"
if [[ $WITH_SACCT == 1 ]]; then
  acct_lines="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=6819
# for slurmdbd connections Slurm ignores AuthInfo and takes the munge socket from here
AccountingStoragePass=$MSOCK"
fi
new_conf=$(cat <<EOF
# generated by .ci/slurm-start.sh
ClusterName=$CLUSTER
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MSOCK
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$BASE/state
SlurmdSpoolDir=$BASE/spool
SlurmctldPidFile=$BASE/run/slurmctld.pid
SlurmdPidFile=$BASE/run/slurmd.pid
SlurmctldLogFile=$BASE/log/slurmctld.log
SlurmdLogFile=$BASE/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
$acct_lines
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
# start newly runnable batch jobs at once (default waits 3 s)
SchedulerParameters=batch_sched_delay=0
# cancel a job whose afterok dependency failed instead of leaving it pending forever
# (in 22.05 this belongs here, not in SchedulerParameters, where it is silently ignored)
DependencyParameters=kill_invalid_depend
# take CPUs/RealMemory below as given even if they differ from the hardware
SlurmdParameters=config_overrides
MaxArraySize=$MAX_ARRAY
ReturnToService=2
MinJobAge=3600
KillWait=5
InactiveLimit=0
MailProg=/bin/true
MpiDefault=none
NodeName=$HOST NodeAddr=127.0.0.1 NodeHostname=$HOST CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
)
conf_changed=0
if [[ ! -f $CONF || $(cat "$CONF") != "$new_conf" ]]; then
  printf '%s\n' "$new_conf" >"$CONF"
  conf_changed=1
fi

# ---------------------------------------------------------------- accounting (optional)
if [[ $WITH_SACCT == 1 ]]; then
  DB=$BASE/mariadb
  mkdir -p "$DB"/{data,run,log}
  cat >"$DB/my.cnf" <<EOF
[mysqld]
datadir=$DB/data
socket=$DB/run/mysqld.sock
pid-file=$DB/run/mysqld.pid
log-error=$DB/log/error.log
bind-address=127.0.0.1
port=$DB_PORT
user=root
skip-name-resolve
innodb_buffer_pool_size=128M
innodb_log_file_size=64M
innodb_lock_wait_timeout=900
EOF
  if [[ ! -d $DB/data/mysql ]]; then
    mariadb-install-db --defaults-file="$DB/my.cnf" --user=root \
      --auth-root-authentication-method=socket --skip-test-db >"$DB/log/install.log" 2>&1 \
      || die "mariadb-install-db failed: $(tail -5 "$DB/log/install.log")"
  fi
  if ! alive "$DB/run/mysqld.pid" mariadbd; then
    port_open "$DB_PORT" && die "port $DB_PORT already in use (set SLURM_DB_PORT)"
    # mariadbd does not daemonize: background it with the redirections on the command
    # itself (a backgrounded shell function would keep a subshell holding our stdout)
    setsid mariadbd --defaults-file="$DB/my.cnf" </dev/null >>"$BASE/log/mariadbd.stdout" 2>&1 &
  fi
  wait_for mariadb mariadb --defaults-file="$DB/my.cnf" -S "$DB/run/mysqld.sock" -uroot -e 'select 1' \
    || die "mariadb did not start: $(tail -5 "$DB/log/error.log")"
  mariadb -S "$DB/run/mysqld.sock" -uroot -e "
    CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
  cat >"$BASE/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$MSOCK
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=6819
SlurmUser=root
LogFile=$BASE/log/slurmdbd.log
PidFile=$BASE/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
EOF
  chmod 600 "$BASE/etc/slurmdbd.conf"   # slurmdbd refuses a world-readable config
  if ! alive "$BASE/run/slurmdbd.pid" slurmdbd; then
    port_open 6819 && die "port 6819 already in use by another process"
    daemon slurmdbd slurmdbd   # reads slurmdbd.conf next to $SLURM_CONF; daemonizes
  fi
  wait_for slurmdbd port_open 6819 || die "slurmdbd did not start: $(tail -5 "$BASE/log/slurmdbd.log")"
fi

# ---------------------------------------------------------------- slurmctld / slurmd
if ! alive "$BASE/run/slurmctld.pid" slurmctld; then
  port_open 6817 && die "port 6817 already in use by another process"
  daemon slurmctld slurmctld || die "slurmctld failed: $(tail -5 "$BASE/log/slurmctld.log")"
  conf_changed=0
fi
wait_for slurmctld bash -c 'scontrol ping | grep -q UP' \
  || die "slurmctld did not start: $(tail -5 "$BASE/log/slurmctld.log")"
if ! alive "$BASE/run/slurmd.pid" slurmd; then
  daemon slurmd slurmd || die "slurmd failed: $(tail -5 "$BASE/log/slurmd.log")"
fi
if [[ $conf_changed == 1 ]]; then
  log "config changed; scontrol reconfigure"
  scontrol reconfigure >&2
fi
# a node left DOWN/DRAIN by an earlier run
if [[ $(sinfo -h -N -n "$HOST" -o %T 2>/dev/null) =~ ^(down|drain|fail) ]]; then
  scontrol update NodeName="$HOST" State=RESUME >&2 || true
fi
wait_for "node $HOST idle" bash -c "[[ \$(sinfo -h -N -n '$HOST' -o %T) =~ ^(idle|mixed|allocated)$ ]]" \
  || die "node not idle: $(sinfo -N -l; tail -5 "$BASE/log/slurmd.log")"
if [[ $WITH_SACCT == 1 ]]; then
  # slurmctld registers the cluster itself; wait for it before anyone runs sacct
  wait_for "cluster $CLUSTER in slurmdbd" bash -c \
    "sacctmgr -n -P list cluster format=cluster | grep -qx '$CLUSTER'" || die "cluster not registered in slurmdbd"
fi

cat >"$BASE/env.sh.tmp" <<ENV
export SLURM_CONF=$CONF
ENV
mv "$BASE/env.sh.tmp" "$BASE/env.sh"
log "ready: $(sinfo -h -o '%P %a %D %T %c CPUs'), MaxArraySize=$MAX_ARRAY, sacct=$WITH_SACCT"
echo "$BASE/env.sh"
