#!/usr/bin/env bash
# A Debian 13 (trixie) root with Open MPI 5.0.x, in which mpimon is built and tested
# against Open MPI 5 on a Debian 12 machine (docs/open-mpi-5.md "Testing on Open MPI 5").
#
#   debian13-root.sh run [--] <command...>   run <command> (bash -c) inside the root, in the
#                                            source tree (bind-mounted at the same path)
#   debian13-root.sh prepare                 make or update the root only
#   debian13-root.sh check                   why the root cannot be made here (exit 1), or nothing
#   debian13-root.sh remove                  delete the cached root
#
# The root is made once with debootstrap (minbase) plus the packages below and cached in
# $MPIMON_DEBIAN13_ROOT (default /var/cache/mpimon/debian13-root); a later run only
# installs what the package list gained. It is made in <root>.new and renamed when
# complete, so a killed run never leaves a half-made root under the final name.
#
# Mounts (proc, sys, devpts, tmpfs on /dev/shm and /tmp, the source tree) are made in a
# private mount namespace (unshare): they vanish with the command's last process, even
# after a SIGKILL, and the machine's own mount table never shows them. An EXIT trap
# unmounts them anyway, and every start unmounts stale mounts under the root left by a
# run made without that namespace. Nothing is deleted while anything is mounted under it.
#
# Exit status: the command's; 77 when the machine cannot make the root (not root, no
# debootstrap, no namespaces), after a message saying why; 2 on misuse.
set -euo pipefail

self="$(readlink -f "${BASH_SOURCE[0]}")"
here="$(cd "$(dirname "$self")/.." && pwd)"
root="${MPIMON_DEBIAN13_ROOT:-/var/cache/mpimon/debian13-root}"
mirror="${MPIMON_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite=trixie
skip_status=77

# What building and testing mpimon against Open MPI 5 needs (scripts/setup.sh has the
# same set for a Debian 13 machine; keep them together).
packages=(
  g++ make cmake pkgconf gfortran           # toolchain
  openmpi-bin libopenmpi-dev                # Open MPI 5.0.x with its internal headers
  libgtest-dev googletest libcli11-dev      # tests, the mpimon command line
  libhwloc-dev hwloc libscotch-dev          # placement
  valgrind time python3                     # benchmarks
  iproute2 util-linux procps                # emulated hosts, process tools the tests use
  xz-utils ca-certificates                  # unpacking Open MPI's source (compat headers)
)

say() { echo "debian13-root: $*" >&2; }
die() { say "$*"; exit 2; }

check() {
  if [ "$(id -u)" -ne 0 ]; then echo "a Debian 13 root needs root (debootstrap, chroot, mounts); running as $(id -un)"; return 1; fi
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
  mount_basics "$target"
  local t=$SECONDS
  say "installing ${#packages[@]} packages in the root"
  in_root "$target" apt-get update -q >/dev/null
  in_root "$target" apt-get install -y -q --no-install-recommends "${packages[@]}" >"$target.apt.log" 2>&1 ||
    { tail -n 20 "$target.apt.log" >&2; unmount_under "$target"; die "apt-get install failed in the root (log: $target.apt.log)"; }
  in_root "$target" apt-get clean
  unmount_under "$target"
  say "packages: $((SECONDS - t)) s"
  echo "$stamp" >"$target/.mpimon-packages"
  if [ "$target" != "$root" ]; then mv "$target" "$root"; rm -f "$target.log" "$target.apt.log"; fi
  say "root ready in $((SECONDS - start)) s: $root ($(du -sxh "$root" | cut -f1))"
}

# Inside the private mount namespace: mounts, the command, unmounts.
run_inside() {
  prepare
  trap 'cd /; unmount_under "$root"' EXIT
  mount_basics "$root"
  mkdir -p "$root$here"
  mount --bind "$here" "$root$here"
  # The tests run mpirun as root; a few variables from outside pass through.
  local -a pass=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MPIMON_IN_DEBIAN13_ROOT=1)
  local v
  for v in CI TERM MPIMON_BUILD_DIR MPIMON_SANITIZER_TESTS; do
    [ -z "${!v+x}" ] || pass+=("$v=${!v}")
  done
  set +e
  in_root "$root" "${pass[@]}" /bin/bash -c "cd '$here' && $1"
  local status=$?
  set -e
  return $status
}

main() {
  local cmd="${1:-}"
  [ $# -eq 0 ] || shift
  case "$cmd" in
    check) check ;;
    remove)
      local why; why="$(check)" || { say "skipped: $why"; exit $skip_status; }
      unmount_under "$root.new"; unmount_under "$root"
      remove_tree "$root.new"; remove_tree "$root"
      rm -f "$root.new.log" "$root.new.apt.log" ;;
    prepare|run)
      local why; why="$(check)" || { say "skipped: $why"; exit $skip_status; }
      [ "${1:-}" != "--" ] || shift
      [ "$cmd" = prepare ] || [ $# -gt 0 ] || die "run needs a command"
      # Stale mounts from a run made without a private namespace (or killed mid-way).
      unmount_under "$root.new"; unmount_under "$root"
      # flock: one user of the root at a time (a second run waits).
      mkdir -p "$(dirname "$root")"
      exec 9>"$root.lock"
      flock 9
      if [ "$cmd" = prepare ]; then
        unshare --mount --propagation private "$self" __prepare
      else
        unshare --mount --propagation private "$self" __run "$*"
      fi ;;
    __prepare) prepare ;;
    __run) run_inside "$1" ;;
    *) die "usage: $(basename "$self") run [--] <command...> | prepare | check | remove" ;;
  esac
}

main "$@"
