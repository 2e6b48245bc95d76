#!/usr/bin/env bash
# Emulates a small cluster on this machine with network namespaces, for one MPI job over
# several "hosts" (see docs/running-on-a-cluster.md and test/cluster/cluster.h).
#
#   cluster.sh check                         why clusters cannot be emulated here (exit 1), or nothing (exit 0)
#   cluster.sh up <name> <hosts>             create the launcher h0 and hosts h1..h<hosts>
#   cluster.sh bind <name> <host> <src> <dst>   host <host> (1..) sees <src> at <dst> (mount namespace)
#   cluster.sh hide <name> <host> <dir>      host <host> sees an empty <dir> (a host lacking that folder)
#   cluster.sh cpus <name> <host> <list>     what runs on host <host> runs on these CPUs only (taskset -c)
#   cluster.sh net <name> <host> <spec>      give host <host>'s link (0: the launcher's) a latency and a rate
#   cluster.sh net-show <name> <host>        the queueing disciplines on both ends of host <host>'s link
#   cluster.sh net-check <spec>              whether <spec> is valid (else exit 2) and this kernel can apply it
#                                            (else the reason, exit 1)
#   cluster.sh run <name> <command...>       run a command on the launcher (mpirun goes here)
#   cluster.sh mpirun-args <name>            the mpirun arguments that launch over the hosts
#   cluster.sh agent <name> <host> <words...>      mpirun's remote shell (plm_rsh_agent; 5.0: plm_ssh_agent)
#   cluster.sh down <name>                   kill everything inside, remove the namespaces
#   cluster.sh slurm-check                   why Slurm cannot run here (exit 1), or nothing (exit 0)
#   cluster.sh slurm <name> <cpus...>        the Slurm mode (slurm.sh): munge, slurmctld on the launcher, a
#                                            slurmd per host (<cpus> of host 1, 2, ...), after bind/hide/cpus
#   cluster.sh as-user <name> <folder> <cmd> a shell command as the ordinary user (mpimon-user) on the
#                                            launcher, in <folder>, with SLURM_CONF (sbatch, srun, salloc)
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
# Every host sees the cluster's hostnames in its /etc/hosts (this machine's file plus
# them): 5.0's PRRTE knows the hosts by the names their daemons report and matches a
# rankfile's hosts against those names only, so its hostfiles name hosts that way.
#
# A network with costs: MPIMON_HOSTS_NET="delay=50us rate=1gbit" (either key alone, or
# empty: a free network) gives every host's link to the bridge - the "switch" - a one-way
# latency (netem) and a rate (tbf), on both ends of its veth pair: on the host's end for
# what it sends, on the bridge's end for what it receives. A message between two hosts
# crosses two links: 2 x delay one way, at the rate. `up` applies it to every link, the
# launcher's too; `net` changes one link afterwards. The disciplines go with the links
# when the cluster is removed. What it emulates and what it cannot: docs/placement.md
# ("A network with costs").
#   delay=<number><us|ms|s>                  one way, per link (needs the kernel's sch_netem)
#   rate=<number><bit|kbit|mbit|gbit|tbit>   per link and direction (sch_tbf)
set -euo pipefail

subnet=10.200.0
state_root=/run/mpimon-cluster
self="$(readlink -f "${BASH_SOURCE[0]}")"
# shellcheck source=slurm.sh
. "$(dirname "$self")/slurm.sh"

die() { echo "cluster.sh: $*" >&2; exit 2; }
address() { echo "$subnet.$((10 + $1))"; }

# parse_net <spec> <what>: sets net_delay_us and net_rate_bit (empty when not asked);
# bad text: one line naming <what> and the word, exit 2.
parse_net() {
  local spec="$1" what="$2" word key value number unit words=()
  net_delay_us="" net_rate_bit=""
  read -r -a words <<<"${spec//,/ }"
  for word in "${words[@]}"; do
    [[ $word == *=* ]] || die "$what: expected key=value words such as 'delay=50us rate=1gbit', found '$word'"
    key="${word%%=*}" value="${word#*=}"
    [[ $value =~ ^([0-9]+(\.[0-9]+)?)([a-z]+)$ ]] ||
      die "$what: '$word': expected a number followed by a unit (delay: us, ms, s; rate: bit, kbit, mbit, gbit, tbit)"
    number="${BASH_REMATCH[1]}" unit="${BASH_REMATCH[3]}"
    case "$key" in
      delay)
        [ -z "$net_delay_us" ] || die "$what: delay given twice"
        case "$unit" in
          us) ;; ms) number="$(awk -v n="$number" 'BEGIN { print n * 1000 }')" ;;
          s) number="$(awk -v n="$number" 'BEGIN { print n * 1000000 }')" ;;
          *) die "$what: '$word': the unit of a delay is us, ms or s, not '$unit'" ;;
        esac
        net_delay_us="$(awk -v n="$number" 'BEGIN { printf "%.0f", n }')"
        [ "$net_delay_us" -ge 1 ] && [ "$net_delay_us" -le 10000000 ] ||
          die "$what: '$word': a delay from 1us to 10s" ;;
      rate)
        [ -z "$net_rate_bit" ] || die "$what: rate given twice"
        case "$unit" in
          bit) ;; kbit) number="$(awk -v n="$number" 'BEGIN { print n * 1e3 }')" ;;
          mbit) number="$(awk -v n="$number" 'BEGIN { print n * 1e6 }')" ;;
          gbit) number="$(awk -v n="$number" 'BEGIN { print n * 1e9 }')" ;;
          tbit) number="$(awk -v n="$number" 'BEGIN { print n * 1e12 }')" ;;
          *) die "$what: '$word': the unit of a rate is bit, kbit, mbit, gbit or tbit, not '$unit'" ;;
        esac
        net_rate_bit="$(awk -v n="$number" 'BEGIN { printf "%.0f", n }')"
        # Below ~1 Mbit/s Open MPI's start-up alone takes minutes.
        [ "$net_rate_bit" -ge 1000000 ] && [ "$net_rate_bit" -le 1000000000000 ] ||
          die "$what: '$word': a rate from 1mbit to 1tbit" ;;
      *) die "$what: unknown key '$key' in '$word' (delay, rate)" ;;
    esac
  done
  return 0
}

# Whether a queueing discipline kind works here: "" if it does, else why not. Tried on
# a veth pair in a probe namespace; a kernel that builds it as a module gets a modprobe.
qdisc_unavailable() {
  local kind="$1" probe="mpimon-cl-probe-$$-q" out
  command -v tc >/dev/null 2>&1 || { echo "'tc' (iproute2) is not installed"; return 0; }
  try_qdisc() {
    ip netns add "$probe" 2>/dev/null || return 1
    ip -n "$probe" link add qa type veth peer name qb 2>/dev/null &&
      case "$kind" in
        netem) tc -n "$probe" qdisc add dev qa root netem delay 10us ;;
        tbf) tc -n "$probe" qdisc add dev qa root tbf rate 1gbit burst 65536 latency 10ms ;;
      esac
    local rc=$?
    ip netns del "$probe" 2>/dev/null || true
    return $rc
  }
  try_qdisc 2>/dev/null && return 0
  if command -v modprobe >/dev/null 2>&1; then
    out="$(modprobe "sch_$kind" 2>&1)" && try_qdisc 2>/dev/null && return 0
  else
    out="modprobe (kmod) is not installed"
  fi
  echo "this kernel ($(uname -r)) lacks the $kind queueing discipline (sch_$kind: not built in, and ${out:-modprobe sch_$kind loaded it but it still fails})"
}

# net_unavailable: why the parsed spec cannot be applied here, or "".
net_unavailable() {
  local why
  if [ -n "$net_delay_us" ]; then
    why="$(qdisc_unavailable netem)"
    [ -z "$why" ] || { echo "a delay cannot be emulated: $why"; return 0; }
  fi
  if [ -n "$net_rate_bit" ]; then
    why="$(qdisc_unavailable tbf)"
    [ -z "$why" ] || { echo "a rate cannot be emulated: $why"; return 0; }
  fi
}

# shape <namespace> <device>: the parsed spec on one end of a link (egress), replacing
# what was there. tbf's bucket holds at least a 64 KiB segment (veth passes GSO packets
# whole) and 1 ms at the rate; its queue 100 ms at the rate.
shape() {
  local ns="$1" dev="$2"
  tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null || true
  [ -n "$net_delay_us$net_rate_bit" ] || return 0
  local tbf=()
  if [ -n "$net_rate_bit" ]; then
    local burst; burst="$(awk -v r="$net_rate_bit" 'BEGIN { b = r / 8 / 1000; if (b < 65536 + 1514) b = 65536 + 1514; printf "%.0f", b }')"
    tbf=(tbf rate "${net_rate_bit}bit" burst "$burst" latency 100ms)
  fi
  if [ -n "$net_delay_us" ]; then
    # netem first (the delay), tbf as its child (the rate), as netem's documentation does.
    tc -n "$ns" qdisc add dev "$dev" root handle 1: netem delay "${net_delay_us}us" limit 100000
    [ ${#tbf[@]} -eq 0 ] || tc -n "$ns" qdisc add dev "$dev" parent 1:1 handle 10: "${tbf[@]}"
  else
    tc -n "$ns" qdisc add dev "$dev" root handle 1: "${tbf[@]}"
  fi
}

# shape_link <name> <host>: both ends of host <host>'s veth pair.
shape_link() {
  shape "$1-h$2" eth0
  shape "$1-br" "v$2"
}

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
  parse_net "${MPIMON_HOSTS_NET:-}" MPIMON_HOSTS_NET
  local why; why="$(net_unavailable)"
  if [ -n "$why" ]; then echo "cluster.sh: MPIMON_HOSTS_NET='$MPIMON_HOSTS_NET': $why" >&2; exit 1; fi
  mkdir -p "$state_root/$name/hosts" "$state_root/$name/empty"
  trap 'down "$name"' ERR
  local etc_hosts="$state_root/$name/etc-hosts" i
  { cat /etc/hosts 2>/dev/null || true
    echo "$(address 0) launcher"
    for ((i = 1; i <= hosts; i++)); do echo "$(address "$i") host$i"; done; } >"$etc_hosts"
  local br="$name-br"
  ip netns add "$br"
  ip -n "$br" link set lo up
  ip -n "$br" link add br0 type bridge
  ip -n "$br" link set br0 up
  local ns
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
    printf 'ns %s\nhostname %s\nbind %s /etc/hosts\n' "$ns" "$hostname" "$etc_hosts" >"$state_root/$name/hosts/$(address "$i")"
    shape_link "$name" "$i"
  done
  trap - ERR
}

host_file() {
  local f="$state_root/$1/hosts/$(address "$2")"
  [ -f "$f" ] || die "cluster $1 has no host $2"
  echo "$f"
}

# Runs "$@" in host file $1's namespaces: network, its own hostname, and its bind mounts
# in a private mount namespace. With in_host_daemon=1 the network namespace is entered
# with nsenter instead of `ip netns exec`, which remounts /sys and so hides
# /sys/fs/cgroup: slurmd and slurmctld refuse to start without it (docs/slurm.md).
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
  local enter=(ip netns exec "$ns")
  [ "${in_host_daemon:-0}" != 1 ] || enter=(nsenter "--net=/run/netns/$ns")
  exec "${enter[@]}" unshare --uts --mount --propagation private sh -c "$setup" "${args[@]}" "$@"
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
  net)
    [ $# -eq 3 ] || die "usage: net <name> <host> <spec>"
    host_file "$1" "$2" >/dev/null
    parse_net "$3" "net"
    why="$(net_unavailable)"
    if [ -n "$why" ]; then echo "cluster.sh: net '$3': $why" >&2; exit 1; fi
    shape_link "$1" "$2" ;;
  net-show)
    [ $# -eq 2 ] || die "usage: net-show <name> <host>"
    host_file "$1" "$2" >/dev/null
    echo "host $2 sends: $(tc -n "$1-h$2" qdisc show dev eth0 | tr '\n' ' ')"
    echo "host $2 receives: $(tc -n "$1-br" qdisc show dev "v$2" | tr '\n' ' ')" ;;
  net-check)
    [ $# -eq 1 ] || die "usage: net-check <spec>"
    parse_net "$1" "net-check"
    why="$(net_unavailable)"
    if [ -n "$why" ]; then echo "$why"; exit 1; fi ;;
  run) [ $# -ge 2 ] || die "usage: run <name> <command...>"; name="$1"; shift; in_host "$(host_file "$name" 0)" "$@" ;;
  mpirun-args)
    [ $# -eq 1 ] || die "usage: mpirun-args <name>"
    # 4.1's ORTE takes the launcher's options as MCA variables, 5.0's PRRTE as its own
    # (--prtemca, ssh); the shared-memory BTL is vader on 4.1, sm on 5.0 (as cluster.cpp).
    if mpirun --version 2>/dev/null | grep -q '(Open MPI) 4\.'; then
      echo "--mca plm_rsh_agent '$self agent $1' --mca oob_tcp_if_include $subnet.0/24 --mca btl_tcp_if_include $subnet.0/24 --mca btl self,vader,tcp"
    else
      echo "--prtemca plm_ssh_agent '$self agent $1' --prtemca oob_tcp_if_include $subnet.0/24 --mca btl_tcp_if_include $subnet.0/24 --mca btl self,sm,tcp"
    fi ;;
  agent)
    # Called by mpirun as <agent> <host address> <words...>, the words quoted for a
    # remote shell. Like sshd, the remote side starts from a clean environment: what
    # reaches the remote daemons is what mpirun puts on their command line.
    [ $# -ge 3 ] || die "usage: agent <name> <address> <words...>"
    name="$1" addr="$2"; shift 2
    # By address (4.1's hostfiles) or by hostname (5.0's).
    f="$state_root/$name/hosts/$addr"
    [ -f "$f" ] || f="$(grep -lx "hostname $addr" "$state_root/$name/hosts/"* 2>/dev/null | head -n 1)"
    [ -n "$f" ] && [ -f "$f" ] || die "agent: no host $addr in cluster $name"
    in_host "$f" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME="${HOME:-/root}" sh -c "$*" ;;
  down) [ $# -eq 1 ] || die "usage: down <name>"; down "$1" ;;
  slurm-check) slurm_check ;;
  slurm) [ $# -ge 2 ] || die "usage: slurm <name> <cpus of host 1> ..."; slurm_up "$@" ;;
  as-user) [ $# -eq 3 ] || die "usage: as-user <name> <folder> <command>"; slurm_as_user "$@" ;;
  reap)
    names="$( { ip netns list 2>/dev/null | awk '{print $1}' | sed -nE 's/^(mpimon-cl-[0-9]+\.[0-9]+-[A-Za-z0-9]+)-(br|h[0-9]+)$/\1/p'
                ls "$state_root" 2>/dev/null | grep -E '^mpimon-cl-[0-9]+\.[0-9]+-[A-Za-z0-9]+$'; } | sort -u)" || true
    for name in $names; do
      owner="${name#mpimon-cl-}"; owner="${owner%%-*}"
      if ! owner_alive "$owner"; then echo "cluster.sh: removing $name (its creator is gone)" >&2; down "$name"; fi
    done ;;
  *) die "unknown command '$cmd' (check, owner, up, bind, hide, cpus, net, net-show, net-check, run, mpirun-args, agent, down, reap, slurm-check, slurm, as-user)" ;;
esac
