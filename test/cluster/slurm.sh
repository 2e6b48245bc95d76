# The Slurm mode of the emulated cluster (sourced by cluster.sh; docs/slurm.md): over the
# namespaces `cluster.sh up` made, a real Slurm from this Debian release's packages -
# munged, slurmctld on the launcher host (h0, hostname "launcher"), one slurmd per host
# (host<i>, which is also its Slurm node name) - and an ordinary user who submits the
# jobs, as on a cluster.
#
# Everything lives in the cluster's state folder (<state>/slurm: slurm.conf, the munge
# key and socket, spool and state folders, logs); nothing in /etc is touched. Every
# daemon runs inside one of the cluster's namespaces (munged in the bridge's), so
# `cluster.sh down` ends them with the rest. slurmd starts inside its host's mount
# namespace: the folders a host hides or replaces are what its job steps see.
#
# Environment: MPIMON_SLURM_KILLWAIT (default 30, Slurm's own: seconds between SIGTERM and
# SIGKILL after scancel or the time limit).

slurm_user=mpimon-user
slurm_ctld_port=16817
slurm_slurmd_port=16818

# Why Slurm cannot run here (missing packages), or nothing.
slurm_check() {
  local tool
  for tool in slurmctld slurmd sbatch srun salloc scancel sinfo munged mungekey runuser; do
    command -v "$tool" >/dev/null 2>&1 || {
      echo "the Slurm mode needs '$tool' (Debian packages slurmctld slurmd slurm-client munge, installed by scripts/setup.sh), not found"
      return 1
    }
  done
  local plugins; plugins="$(dirname "$(dpkg -L slurm-wlm-basic-plugins 2>/dev/null | grep '/mpi_pmix\.so$' | head -n 1)")"
  if [ "$plugins" = . ]; then echo "the Slurm mode needs Slurm's PMIx plugin (package slurm-wlm-basic-plugins), not installed"; return 1; fi
  if ! ls /usr/lib/*/pmix*/lib/libpmix.so >/dev/null 2>&1; then
    echo "the Slurm mode needs libpmix.so, which Slurm's PMIx plugin opens (package libpmix-dev), not installed"; return 1
  fi
}

# The ordinary user jobs are submitted by; made once (home folder it owns), safe to race.
slurm_ensure_user() {
  id -u "$slurm_user" >/dev/null 2>&1 && return 0
  mkdir -p "$state_root"
  (
    flock 9
    id -u "$slurm_user" >/dev/null 2>&1 ||
      useradd --create-home --user-group --shell /bin/sh --comment "mpimon test jobs (test/cluster/slurm.sh)" "$slurm_user"
  ) 9>"$state_root/.user.lock"
  id -u "$slurm_user" >/dev/null 2>&1 || die "could not create the user $slurm_user"
}

# slurm_write_conf <name> <cpus of host 1> <cpus of host 2> ...
slurm_write_conf() {
  local name="$1"; shift
  local dir="$state_root/$name/slurm" i=1 cpus
  cat >"$dir/slurm.conf" <<EOF
# Written by test/cluster/slurm.sh for the emulated cluster $name.
ClusterName=mpimon
# Job ids from a number of this cluster's own, so that a name holding one is told apart
# from a step or rank number.
FirstJobId=$((1000 + RANDOM % 9000))
SlurmctldHost=launcher($(address 0))
SlurmctldPort=$slurm_ctld_port
SlurmdPort=$slurm_slurmd_port
SrunPortRange=61000-61999
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool.%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
TmpFS=$dir/tmp.%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
TaskPluginParam=None
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
KillWait=${MPIMON_SLURM_KILLWAIT:-30}
OverTimeLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
InactiveLimit=0
MinJobAge=300
EOF
  for cpus in "$@"; do
    echo "NodeName=host$i NodeAddr=$(address "$i") NodeHostname=host$i CPUs=$cpus Boards=1 SocketsPerBoard=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN" >>"$dir/slurm.conf"
    mkdir -p "$dir/spool.host$i" "$dir/tmp.host$i"
    i=$((i + 1))
  done
  echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO" >>"$dir/slurm.conf"
  # Slurm 24.05 and later initialise their cgroup plugin in every slurmd, whatever the
  # proctrack and task plugins, and a host namespace shows no cgroup file system (as in a
  # Debian root): none is used here (proctrack/linuxproc), so the plugin is disabled. 22.05
  # does not know the value and does not need it.
  if slurm_version_at_least 24 5; then echo "CgroupPlugin=disabled" >"$dir/cgroup.conf"; fi
}

# slurm_version_at_least <major> <minor>: this machine's slurmd is that release or later.
slurm_version_at_least() {
  local version major minor
  version="$(slurmd -V 2>/dev/null | awk '{print $2}')"  # "slurm 24.11.5"
  major="${version%%.*}" minor="${version#*.}" minor="${minor%%.*}"
  [[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ ]] || return 1
  ((major > $1 || (major == $1 && 10#$minor >= $2)))
}

# A clean environment for the daemons (nothing of the test's reaches a job through them).
slurm_daemon_env=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)

# slurm_up <name> <cpus of host 1> ...: the daemons over an existing cluster; returns when
# every node is idle.
slurm_up() {
  local name="$1"; shift
  [ -d "$state_root/$name/hosts" ] || die "slurm: no cluster $name (cluster.sh up first)"
  local why; why="$(slurm_check)" || die "slurm: $why"
  [ $# -eq $(($(ls "$state_root/$name/hosts" | wc -l) - 1)) ] || die "slurm: give the CPUs of each of the cluster's hosts"
  slurm_ensure_user
  local dir="$state_root/$name/slurm" i
  mkdir -p "$dir/ctld"
  chmod 755 "$dir"
  slurm_write_conf "$name" "$@"
  # munge: a key of this cluster's own, one munged (in the bridge's namespace; its socket
  # is a path, so every namespace reaches it).
  mungekey --create --keyfile="$dir/munge.key" 2>/dev/null || die "slurm: mungekey failed"
  chmod 600 "$dir/munge.key"
  ip netns exec "$name-br" "${slurm_daemon_env[@]}" munged --force --key-file="$dir/munge.key" \
    --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
    --seed-file="$dir/munged.seed" || die "slurm: munged failed to start ($dir/munged.log)"
  (in_host_daemon=1 in_host "$(host_file "$name" 0)" "${slurm_daemon_env[@]}" slurmctld -f "$dir/slurm.conf" -c) ||
    die "slurm: slurmctld failed to start ($dir/slurmctld.log)"
  for ((i = 1; i <= $#; i++)); do
    (in_host_daemon=1 in_host "$(host_file "$name" "$i")" "${slurm_daemon_env[@]}" slurmd -f "$dir/slurm.conf") ||
      die "slurm: slurmd of host$i failed to start ($dir/slurmd.host$i.log)"
  done
  # Ready when sinfo, asked from the launcher, says every node is idle (about half a second).
  local hosts=$#
  if ! (in_host "$(host_file "$name" 0)" env SLURM_CONF="$dir/slurm.conf" sh -c '
        for _ in $(seq 1 150); do
          [ "$(sinfo -h -N -o %T 2>/dev/null | grep -c "^idle$")" = "$0" ] && exit 0
          sleep 0.05
        done
        exit 1' "$hosts"); then
    die "slurm: the nodes of $name are not idle after 7.5 s: $(tail -n 3 "$dir"/slurmctld.log "$dir"/slurmd.*.log 2>/dev/null)"
  fi
}

# slurm_as_user <name> <folder> <command>: the command, in sh, as the ordinary user on the
# launcher host, in <folder>, from a login-like environment (HOME, USER, PATH, SLURM_CONF:
# what a user's shell on a login node has).
slurm_as_user() {
  local name="$1" folder="$2" command="$3"
  local dir="$state_root/$name/slurm" home
  [ -f "$dir/slurm.conf" ] || die "slurm: cluster $name runs no Slurm (cluster.sh slurm first)"
  home="$(getent passwd "$slurm_user" | cut -d: -f6)"
  in_host "$(host_file "$name" 0)" runuser -u "$slurm_user" -- env -i HOME="$home" USER="$slurm_user" \
    LOGNAME="$slurm_user" SHELL=/bin/sh PATH=/usr/local/bin:/usr/bin:/bin SLURM_CONF="$dir/slurm.conf" \
    sh -c 'cd "$0" && eval "$1"' "$folder" "$command"
}
