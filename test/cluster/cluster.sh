#!/usr/bin/env bash
# Emulates a small cluster on this machine with network namespaces, for one MPI job over
# several "hosts" (see docs/running-on-a-cluster.md and test/cluster/cluster.h).
#
#   cluster.sh check                         why clusters cannot be emulated here (exit 1), or nothing (exit 0)
#   cluster.sh up <name> <hosts>             create the launcher h0 and hosts h1..h<hosts>
#   cluster.sh bind <name> <host> <src> <dst>   host <host> (1..) sees <src> at <dst> (mount namespace)
#   cluster.sh hide <name> <host> <dir>      host <host> sees an empty <dir> (a host lacking that folder)
#   cluster.sh cpus <name> <host> <list>     what runs on host <host> runs on these CPUs only (taskset -c)
#   cluster.sh run <name> <command...>       run a command on the launcher (mpirun goes here)
#   cluster.sh mpirun-args <name>            the mpirun arguments that launch over the hosts
#   cluster.sh agent <name> <address> <words...>   mpirun's rsh agent (plm_rsh_agent)
#   cluster.sh down <name>                   kill everything inside, remove the namespaces
#   cluster.sh reap                          remove clusters whose creator process is gone
#   cluster.sh owner                         an owner token for this shell's parent: <pid>.<start time>
#
# <name> is mpimon-cl-<owner>-<tag> where <owner> is <pid>.<start time> of the process
# that owns the cluster (cluster.sh owner): `reap` removes a cluster once that process is
# gone (a test killed by a timeout, an interrupted benchmark), never another live run's.
#
# Layout (multi-host-emulation facts): one namespace <name>-br holding a bridge, so the
# root namespace is untouched; one namespace per host (<name>-h0 launcher, <name>-h1..),
# each joined to the bridge by a veth pair created inside the namespaces (interface names
# never collide between concurrent clusters), lo up, address 10.200.0.<10+i>/24 on a
# subnet that exists only inside the cluster, no route out. Each host also gets its own
# hostname (UTS namespace) when something runs there: host<i> (the launcher: launcher).
# Open MPI needs distinct hostnames: vader and the session directory are named after them.
set -euo pipefail

subnet=10.200.0
state_root=/run/mpimon-cluster
self="$(readlink -f "${BASH_SOURCE[0]}")"

die() { echo "cluster.sh: $*" >&2; exit 2; }
address() { echo "$subnet.$((10 + $1))"; }

check() {
  if [ "$(id -u)" -ne 0 ]; then echo "emulated hosts need root (network, UTS and mount namespaces); running as $(id -un)"; return 1; fi
  local tool
  for tool in ip unshare mount nsenter; do
    command -v "$tool" >/dev/null 2>&1 || { echo "emulated hosts need '$tool' (iproute2, util-linux), not found"; return 1; }
  done
  # Namespaces may be forbidden (a container without CAP_SYS_ADMIN / CAP_NET_ADMIN).
  local probe="mpimon-cl-probe-$$"
  if ! ip netns add "$probe" 2>/dev/null; then echo "cannot create a network namespace (ip netns add failed: no CAP_NET_ADMIN/CAP_SYS_ADMIN?)"; return 1; fi
  ip netns del "$probe" 2>/dev/null || true
  if ! unshare --uts --mount true 2>/dev/null; then echo "cannot create UTS/mount namespaces (unshare failed)"; return 1; fi
  return 0
}

owner_alive() {  # <pid>.<start time>
  local pid="${1%%.*}" start="${1#*.}"
  [ -r "/proc/$pid/stat" ] || return 1
  local stat; stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || return 1
  # Field 22 (start time) counted after the ")" that ends the command name.
  local rest="${stat##*) }"
  local fields; read -r -a fields <<<"$rest"
  [ "${fields[19]}" = "$start" ]
}

owner_token() {  # <pid>
  local stat; stat="$(cat "/proc/$1/stat")"
  local rest="${stat##*) }"
  local fields; read -r -a fields <<<"$rest"
  echo "$1.${fields[19]}"
}

namespaces_of() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$1-(br|h[0-9]+)\$" || true; }

down() {
  local name="$1" ns pids
  local all; all="$(namespaces_of "$name")"
  for ns in $all; do
    pids="$(ip netns pids "$ns" 2>/dev/null || true)"
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
  done
  for ns in $all; do
    # A process may still be exiting: retry briefly.
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      pids="$(ip netns pids "$ns" 2>/dev/null || true)"
      [ -z "$pids" ] && break
      kill -KILL $pids 2>/dev/null || true
      sleep 0.1
    done
    ip netns del "$ns" 2>/dev/null || true
  done
  rm -rf "${state_root:?}/$name"
}

up() {
  local name="$1" hosts="$2"
  [[ "$name" =~ ^mpimon-cl-[0-9]+\.[0-9]+-[A-Za-z0-9]+$ ]] || die "bad cluster name '$name' (expected mpimon-cl-<pid>.<start>-<tag>)"
  [[ "$hosts" =~ ^[1-9][0-9]*$ ]] && [ "$hosts" -le 200 ] || die "bad host count '$hosts'"
  [ -z "$(namespaces_of "$name")" ] || die "cluster $name exists already"
  mkdir -p "$state_root/$name/hosts" "$state_root/$name/empty"
  trap 'down "$name"' ERR
  local br="$name-br"
  ip netns add "$br"
  ip -n "$br" link set lo up
  ip -n "$br" link add br0 type bridge
  ip -n "$br" link set br0 up
  local i ns
  for ((i = 0; i <= hosts; i++)); do
    ns="$name-h$i"
    ip netns add "$ns"
    ip -n "$br" link add "v$i" type veth peer name eth0 netns "$ns"
    ip -n "$br" link set "v$i" master br0 up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$(address "$i")/24" dev eth0
    ip -n "$ns" link set eth0 up
    local hostname="host$i"
    [ "$i" -eq 0 ] && hostname=launcher
    printf 'ns %s\nhostname %s\n' "$ns" "$hostname" >"$state_root/$name/hosts/$(address "$i")"
  done
  trap - ERR
}

host_file() {
  local f="$state_root/$1/hosts/$(address "$2")"
  [ -f "$f" ] || die "cluster $1 has no host $2"
  echo "$f"
}

# Runs "$@" in host file $1's namespaces: network, its own hostname, and its bind mounts
# in a private mount namespace.
in_host() {
  local file="$1"; shift
  local ns hostname cpus binds=()
  ns="$(awk '$1 == "ns" {print $2}' "$file")"
  hostname="$(awk '$1 == "hostname" {print $2}' "$file")"
  cpus="$(awk '$1 == "cpus" {print $2}' "$file")"
  [ -z "$cpus" ] || set -- taskset -c "$cpus" "$@"
  mapfile -t binds < <(awk '$1 == "bind" {print $2 "\t" $3}' "$file")
  local setup="hostname \"\$0\""
  local args=("$hostname")
  local b n=1
  for b in "${binds[@]}"; do
    setup+=" && mount --bind \"\${$n}\" \"\${$((n + 1))}\""
    args+=("${b%%$'\t'*}" "${b#*$'\t'}")
    n=$((n + 2))
  done
  setup+=" && shift $((${#args[@]} - 1)) && exec \"\$@\""
  exec ip netns exec "$ns" unshare --uts --mount --propagation private sh -c "$setup" "${args[@]}" "$@"
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  check) check ;;
  owner) owner_token "${1:-$PPID}" ;;
  up) [ $# -eq 2 ] || die "usage: up <name> <hosts>"; up "$1" "$2" ;;
  bind)
    [ $# -eq 4 ] || die "usage: bind <name> <host> <src> <dst>"
    f="$(host_file "$1" "$2")"
    [ -d "$3" ] || die "bind: $3 is not a folder"
    printf 'bind %s %s\n' "$(readlink -f "$3")" "$4" >>"$f" ;;
  hide)
    [ $# -eq 3 ] || die "usage: hide <name> <host> <dir>"
    f="$(host_file "$1" "$2")"
    printf 'bind %s %s\n' "$state_root/$1/empty" "$3" >>"$f" ;;
  cpus)
    [ $# -eq 3 ] || die "usage: cpus <name> <host> <list>"
    f="$(host_file "$1" "$2")"
    [[ "$3" =~ ^[0-9]+([-,][0-9]+)*$ ]] || die "cpus: '$3' is not a CPU list (e.g. 0 or 0-1 or 0,2)"
    sed -i '/^cpus /d' "$f"
    printf 'cpus %s\n' "$3" >>"$f" ;;
  run) [ $# -ge 2 ] || die "usage: run <name> <command...>"; name="$1"; shift; in_host "$(host_file "$name" 0)" "$@" ;;
  mpirun-args)
    [ $# -eq 1 ] || die "usage: mpirun-args <name>"
    echo "--mca plm_rsh_agent '$self agent $1' --mca oob_tcp_if_include $subnet.0/24 --mca btl_tcp_if_include $subnet.0/24 --mca btl self,vader,tcp" ;;
  agent)
    # Called by mpirun as <agent> <host address> <words...>, the words quoted for a
    # remote shell. Like sshd, the remote side starts from a clean environment: what
    # reaches the remote daemons is what mpirun puts on their command line.
    [ $# -ge 3 ] || die "usage: agent <name> <address> <words...>"
    name="$1" addr="$2"; shift 2
    f="$state_root/$name/hosts/$addr"
    [ -f "$f" ] || die "agent: no host $addr in cluster $name"
    in_host "$f" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME="${HOME:-/root}" sh -c "$*" ;;
  down) [ $# -eq 1 ] || die "usage: down <name>"; down "$1" ;;
  reap)
    names="$( { ip netns list 2>/dev/null | awk '{print $1}' | sed -nE 's/^(mpimon-cl-[0-9]+\.[0-9]+-[A-Za-z0-9]+)-(br|h[0-9]+)$/\1/p'
                ls "$state_root" 2>/dev/null | grep -E '^mpimon-cl-[0-9]+\.[0-9]+-[A-Za-z0-9]+$'; } | sort -u)" || true
    for name in $names; do
      owner="${name#mpimon-cl-}"; owner="${owner%%-*}"
      if ! owner_alive "$owner"; then echo "cluster.sh: removing $name (its creator is gone)" >&2; down "$name"; fi
    done ;;
  *) die "unknown command '$cmd' (check, owner, up, bind, hide, cpus, run, mpirun-args, agent, down, reap)" ;;
esac
