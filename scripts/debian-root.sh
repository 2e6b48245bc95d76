#!/usr/bin/env bash
# A Debian root of a given release, made with debootstrap and cached, in which commands
# run as on a machine of that release: Debian 13 (trixie) to build and test mpimon
# against Open MPI 5.0 (scripts/debian13-root.sh), a fresh Debian 12 (bookworm) to
# install mpimon's .deb into (test/install, docs/install.md).
#
#   debian-root.sh --release <suite> [options] run [--] <command...>
#                                  run <command> (bash -c) inside the root, in the source
#                                  tree (bind-mounted at the same path)
#   debian-root.sh --release <suite> [options] prepare   make or update the root only
#   debian-root.sh --release <suite> [options] check     why the root cannot be made here (exit 1)
#   debian-root.sh --release <suite> [options] remove    delete the cached root
#
# Options:
#   --packages "<p>..."  what the root gets beyond minbase (default: nothing)
#   --apt-conf "<line>"  a line of apt configuration the root's apt reads before any apt
#                        call inside it (repeatable; /etc/apt/apt.conf.d/99mpimon), e.g.
#                        'Acquire::Check-Valid-Until "false";' for a sid snapshot whose
#                        Release file is past its Valid-Until
#   --root <dir>         where the root is cached (default /var/cache/mpimon/<suite>-root)
#   --bind <dir>         run: bind-mount <dir> at the same path too (repeatable)
#   --env NAME=VALUE     run: set NAME in the command's environment (repeatable)
#   --scratch            run: in a throwaway layer over the cached root (an overlay whose
#                        upper half is a tmpfs): what the command installs or changes
#                        vanishes with it, the cached root stays as debootstrap made it
#
# The root is made once with debootstrap (minbase) plus the packages and cached; a later
# run only installs what the package list gained. It is made in <root>.new and renamed
# when complete, so a killed run never leaves a half-made root under the final name.
#
# Mounts (proc, sys, devpts, tmpfs on /dev/shm and /tmp, the source tree, the scratch
# layer) are made in a private mount namespace (unshare): they vanish with the command's
# last process, even after a SIGKILL, and the machine's own mount table never shows them.
# An EXIT trap unmounts them anyway, and every start unmounts stale mounts under the root
# left by a run made without that namespace. Nothing is deleted while anything is mounted
# under it.
#
# Exit status: the command's; 77 when the machine cannot make the root (not root, no
# debootstrap, no namespaces), after a message saying why; 2 on misuse.
set -euo pipefail

self="$(readlink -f "${BASH_SOURCE[0]}")"
here="$(cd "$(dirname "$self")/.." && pwd)"
mirror="${MPIMON_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
skip_status=77

suite=""
root=""
scratch=0
packages=()
apt_conf=()
binds=()
extra_env=()

say() { echo "debian-root${suite:+ ($suite)}: $*" >&2; }
die() { say "$*"; exit 2; }

check() {
  if [ "$(id -u)" -ne 0 ]; then echo "a Debian $suite root needs root (debootstrap, chroot, mounts); running as $(id -un)"; return 1; fi
  if ! command -v debootstrap >/dev/null 2>&1; then echo "debootstrap is not installed (scripts/setup.sh installs it)"; return 1; fi
  if [ ! -e "/usr/share/debootstrap/scripts/$suite" ]; then echo "this debootstrap does not know $suite"; return 1; fi
  if ! unshare --mount --propagation private true 2>/dev/null; then echo "cannot create a mount namespace (unshare failed: no CAP_SYS_ADMIN?)"; return 1; fi
  return 0
}

# Mount points under a directory, deepest first (octal escapes of /proc/mounts decoded).
mounts_under() {
  local dir="$1"
  awk -v d="$dir" '{ p = $2; gsub(/\\040/, " ", p); if (p == d || index(p, d "/") == 1) print p }' /proc/mounts |
    sort -r
}

unmount_under() {
  local dir="$1" m
  for m in $(mounts_under "$dir"); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || say "could not unmount $m"
  done
}

# Deletes a directory only when nothing is mounted under it (a bind-mounted source tree
# lives on the same file system: rm --one-file-system would not protect it).
remove_tree() {
  local dir="$1"
  [ -e "$dir" ] || return 0
  unmount_under "$dir"
  if [ -n "$(mounts_under "$dir")" ]; then die "still mounted under $dir, not deleting it: $(mounts_under "$dir" | tr '\n' ' ')"; fi
  rm -rf --one-file-system "$dir"
}

in_root() {  # <root> <command...>: a command as root inside, with a clean environment
  local r="$1"; shift
  chroot "$r" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

mount_basics() {  # <root>: what apt and MPI need inside
  local r="$1"
  mount -t proc proc "$r/proc"
  mount -t sysfs sysfs "$r/sys"
  mkdir -p "$r/dev/pts" "$r/dev/shm"
  mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$r/dev/pts"
  mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm"
  mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
  cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
  # debootstrap's minbase of Debian 12 has no /etc/hosts (a machine always has one; the
  # emulated cluster bind-mounts its own over it).
  [ -e "$r/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$r/etc/hosts"
}

packages_stamp() { printf '%s\n' "$suite" "$mirror" "${packages[@]}" | sort | md5sum | cut -d' ' -f1; }

# Makes the root if absent, installs what the package list gained. Runs inside the
# private mount namespace (mounts made here vanish with it).
prepare() {
  local stamp; stamp="$(packages_stamp)"
  if [ -f "$root/.mpimon-packages" ] && [ "$(cat "$root/.mpimon-packages")" = "$stamp" ]; then return 0; fi
  local start=$SECONDS target="$root"
  if [ ! -f "$root/.mpimon-packages" ]; then
    target="$root.new"
    remove_tree "$target"
    remove_tree "$root"   # a root without its stamp was never completed
    mkdir -p "$(dirname "$root")"
    say "debootstrap --variant=minbase $suite into $target (about a minute)"
    debootstrap --variant=minbase "$suite" "$target" "$mirror" >"$target.log" 2>&1 ||
      { tail -n 20 "$target.log" >&2; die "debootstrap failed (full log: $target.log)"; }
    say "debootstrap: $((SECONDS - start)) s"
  fi
  if ((${#apt_conf[@]})); then
    printf '%s\n' "${apt_conf[@]}" >"$target/etc/apt/apt.conf.d/99mpimon"
  fi
  if ((${#packages[@]})); then
    mount_basics "$target"
    local t=$SECONDS
    say "installing ${#packages[@]} packages in the root"
    in_root "$target" apt-get update -q >/dev/null
    in_root "$target" apt-get install -y -q --no-install-recommends "${packages[@]}" >"$target.apt.log" 2>&1 ||
      { tail -n 20 "$target.apt.log" >&2; unmount_under "$target"; die "apt-get install failed in the root (log: $target.apt.log)"; }
    in_root "$target" apt-get clean
    unmount_under "$target"
    say "packages: $((SECONDS - t)) s"
  fi
  echo "$stamp" >"$target/.mpimon-packages"
  if [ "$target" != "$root" ]; then mv "$target" "$root"; rm -f "$target.log" "$target.apt.log"; fi
  say "root ready in $((SECONDS - start)) s: $root ($(du -sxh "$root" | cut -f1))"
}

# --scratch: the root seen through an overlay whose upper half is a tmpfs on
# <root>.scratch (a folder that stays empty outside the namespace). Prints the merged
# view's path. Where overlayfs is refused, a copy on that tmpfs does the same.
scratch_layer() {
  local layer="$root.scratch"
  mkdir -p "$layer"
  mount -t tmpfs -o mode=0755 tmpfs "$layer"
  mkdir -p "$layer/upper" "$layer/work" "$layer/merged"
  if ! mount -t overlay overlay -o "lowerdir=$root,upperdir=$layer/upper,workdir=$layer/work" "$layer/merged" 2>/dev/null; then
    say "overlayfs refused here: copying the root to a tmpfs instead ($(du -sxh "$root" | cut -f1))"
    cp -a "$root/." "$layer/merged/"
  fi
  echo "$layer/merged"
}

# Inside the private mount namespace: mounts, the command, unmounts.
run_inside() {
  prepare
  trap 'cd /; unmount_under "$root.scratch"; unmount_under "$root"' EXIT
  local target="$root"
  if ((scratch)); then target="$(scratch_layer)"; fi
  # The root's own folder as a mount point: inside, "/" is then a mount, which `ip netns
  # exec` and `unshare --mount-proc` need (they change its propagation), as on a machine.
  mountpoint -q "$target" || mount --bind "$target" "$target"
  mount_basics "$target"
  local dir
  for dir in "$here" "${binds[@]}"; do
    mkdir -p "$target$dir"
    mount --bind "$dir" "$target$dir"
  done
  # The tests run mpirun as root; a few variables from outside pass through.
  local -a pass=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "MPIMON_IN_DEBIAN_ROOT=$suite" "${extra_env[@]}")
  local v
  for v in CI TERM MPIMON_BUILD_DIR MPIMON_SANITIZER_TESTS; do
    [ -z "${!v+x}" ] || pass+=("$v=${!v}")
  done
  set +e
  in_root "$target" "${pass[@]}" /bin/bash -c "cd '$here' && $1"
  local status=$?
  set -e
  return $status
}

# The options again, for the copy of this script that runs inside the namespace.
options() {
  local -a o=(--release "$suite" --root "$root" --packages "${packages[*]}")
  local x
  ((scratch)) && o+=(--scratch)
  for x in "${apt_conf[@]}"; do o+=(--apt-conf "$x"); done
  for x in "${binds[@]}"; do o+=(--bind "$x"); done
  for x in "${extra_env[@]}"; do o+=(--env "$x"); done
  printf '%s\0' "${o[@]}"
}

main() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --release) suite="${2:?--release needs a suite (bookworm, trixie)}"; shift 2 ;;
      --root) root="${2:?--root needs a folder}"; shift 2 ;;
      --packages) read -r -a packages <<<"${2?--packages needs a list}"; shift 2 ;;
      --apt-conf) apt_conf+=("${2:?--apt-conf needs a line of apt configuration}"); shift 2 ;;
      --bind) binds+=("$(readlink -f "${2:?--bind needs a folder}")"); shift 2 ;;
      --env) [[ ${2:-} == [A-Za-z_]*=* ]] || die "--env needs NAME=VALUE"; extra_env+=("$2"); shift 2 ;;
      --scratch) scratch=1; shift ;;
      *) break ;;
    esac
  done
  [ -n "$suite" ] || die "usage: $(basename "$self") --release <suite> [--packages \"...\"] [--root <dir>] [--bind <dir>]... [--env N=V]... [--scratch] run [--] <command...> | prepare | check | remove"
  [ -n "$root" ] || root="/var/cache/mpimon/$suite-root"
  local cmd="${1:-}"
  [ $# -eq 0 ] || shift
  case "$cmd" in
    check) check ;;
    remove)
      local why; why="$(check)" || { say "skipped: $why"; exit $skip_status; }
      unmount_under "$root.scratch"; unmount_under "$root.new"; unmount_under "$root"
      remove_tree "$root.new"; remove_tree "$root"
      rm -f "$root.new.log" "$root.new.apt.log"
      [ ! -d "$root.scratch" ] || rmdir "$root.scratch" ;;
    prepare|run)
      local why; why="$(check)" || { say "skipped: $why"; exit $skip_status; }
      [ "${1:-}" != "--" ] || shift
      [ "$cmd" = prepare ] || [ $# -gt 0 ] || die "run needs a command"
      local d
      for d in "${binds[@]}"; do [ -d "$d" ] || die "--bind $d: not a folder"; done
      # Stale mounts from a run made without a private namespace (or killed mid-way).
      unmount_under "$root.scratch"; unmount_under "$root.new"; unmount_under "$root"
      # flock: one user of the root at a time (a second run waits).
      mkdir -p "$(dirname "$root")"
      exec 9>"$root.lock"
      flock 9
      local -a opts
      mapfile -d '' opts < <(options)
      if [ "$cmd" = prepare ]; then
        unshare --mount --propagation private "$self" "${opts[@]}" __prepare
      else
        unshare --mount --propagation private "$self" "${opts[@]}" __run "$*"
      fi ;;
    __prepare) prepare ;;
    __run) run_inside "$1" ;;
    *) die "usage: $(basename "$self") --release <suite> [options] run [--] <command...> | prepare | check | remove" ;;
  esac
}

main "$@"
