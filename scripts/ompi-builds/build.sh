#!/usr/bin/env bash
# Builds one Open MPI from its pristine release tarball, as a cluster recipe does (own
# prefix, no devel headers), in the recipe's Debian root, and caches it on this machine:
#
#   build.sh [--ci|--full] <recipe.conf>   prints the entry's folder on stdout
#
# Recipes: scripts/ompi-builds/*.conf (release, Debian suites, configure options; --ci,
# the default, adds the recipe's ci_trim options). The cache entry is
#   $MPIMON_OMPI_BUILDS/<name>-<key>/        (default /var/cache/mpimon/ompi-builds)
#     source/    the release tarball unpacked, untouched (built out of tree, then checked
#                against the tarball): the MPIMON_OMPI_SOURCE of that installation
#     prefix/    the installation: the MPIMON_OMPI_PREFIX
#     build.txt  configure line, times, sizes
# <key> is a hash of the tarball's SHA-256, the configure line and the root's suite, so
# a changed recipe is a new entry and an unchanged one is built once per machine. The
# entry is made under .<name>-<key>.partial and renamed when complete: a killed build
# leaves no entry under the final name (the next run starts that one afresh). The build
# folder is deleted after `make install`, as a cluster recipe does.
#
# The tarball: Debian's orig tarball of openmpi <release> (upstream's release tarball),
# downloaded with apt's deb-src through a private apt configuration (the machine's is not
# touched) into $MPIMON_OMPI_BUILDS/tarballs/, verified by apt against the signed index.
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
cache="${MPIMON_OMPI_BUILDS:-/var/cache/mpimon/ompi-builds}"
mirror="${MPIMON_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
say() { echo "ompi-builds/build: $*" >&2; }
die() { say "$*"; exit 1; }

# Inside the root: configure out of tree (the source stays pristine) with the final
# prefix, make, install into a staging folder, moved to <partial>/prefix.
if [ "${1:-}" = __inside ]; then
  partial="$2" entry="$3"
  mapfile -t options <"$partial/configure-options"
  cd "$partial/build"
  step() {  # <name> <command...>: runs it, records wall and CPU seconds
    local n="$1"; shift
    local TIMEFORMAT="$n-wall: %R s"$'\n'"$n-cpu: %U s user + %S s system"
    { time "$@" >"$partial/build/$n.log" 2>&1; } 2>>"$partial/build/times.txt" ||
      { tail -n 40 "$partial/build/$n.log"; echo "$n failed (log: $partial/build/$n.log)"; exit 1; }
  }
  step configure "$partial/source/configure" --prefix="$entry/prefix" "${options[@]}"
  step make make -j "$(nproc)"
  step install make install DESTDIR="$partial/stage"
  mv "$partial/stage$entry/prefix" "$partial/prefix"
  rm -rf "$partial/stage"
  cat "$partial/build/times.txt"
  exit 0
fi

mode=ci
case "${1:-}" in --ci) shift ;; --full) mode=full; shift ;; esac
[ $# -ge 1 ] || die "usage: build.sh [--ci|--full] <recipe.conf>"
recipe="$(readlink -f "$1")"
[ -f "$recipe" ] || die "$1: no such recipe"
name="" release="" source_suite="" root_suite="" configure=() ci_trim=()
# shellcheck disable=SC1090
. "$recipe"
[ -n "$name" ] && [ -n "$release" ] && [ -n "$source_suite" ] && [ -n "$root_suite" ] && ((${#configure[@]})) ||
  die "$recipe: needs name, release, source_suite, root_suite and configure"
options=("${configure[@]}")
[ "$mode" = full ] || options+=("${ci_trim[@]}")

# The release tarball, once per machine.
tarball() {
  local dir="$cache/tarballs" tar="$cache/tarballs/openmpi_$release.orig.tar.xz"
  if [ -f "$tar" ]; then echo "$tar"; return; fi
  local work="$cache/tarballs/.apt-$source_suite.$$"
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/download"
  echo "deb-src $mirror $source_suite main" >"$work/sources.list"
  local -a o=(-q -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=-
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1)
  [ "$(id -u)" -ne 0 ] || o+=(-o APT::Sandbox::User=root)
  apt-get "${o[@]}" update >"$work/update.log" 2>&1 ||
    { cat "$work/update.log" >&2; die "cannot read the source index of $mirror $source_suite"; }
  local version
  version="$(apt-cache "${o[@]}" showsrc openmpi | awk '/^Version:/ {print $2}' | grep -E "^$release-" | head -n 1)"
  [ -n "$version" ] || die "$mirror $source_suite has no openmpi source package of $release"
  (cd "$work/download" && apt-get "${o[@]}" source --download-only "openmpi=$version") >"$work/source.log" 2>&1 ||
    { cat "$work/source.log" >&2; die "cannot download the source package openmpi=$version"; }
  [ -f "$work/download/openmpi_$release.orig.tar.xz" ] || die "no openmpi_$release.orig.tar.xz in what apt downloaded"
  mv "$work/download/openmpi_$release.orig.tar.xz" "$tar.partial"
  mv "$tar.partial" "$tar"
  rm -rf "$work"
  echo "$tar"
}

tar="$(tarball)"
key="$( { sha256sum <"$tar" | cut -d' ' -f1; echo "$root_suite"; printf '%s\n' "${options[@]}"; } | sha256sum | cut -c1-12)"
entry="$cache/$name-$key"
if [ -x "$entry/prefix/bin/ompi_info" ] && [ -f "$entry/build.txt" ]; then
  say "cached: $entry"
  echo "$entry"
  exit 0
fi
# One build of an entry at a time (a second run waits, then finds it cached).
exec 8>"$cache/.$name-$key.lock"
flock 8
if [ -x "$entry/prefix/bin/ompi_info" ] && [ -f "$entry/build.txt" ]; then say "cached: $entry"; echo "$entry"; exit 0; fi
[ ! -e "$entry" ] || die "$entry exists but is not a complete entry (no build.txt): made by hand? Move it away first"
partial="$cache/.$name-$key.partial"
rm -rf "$partial"
# Partial entries of this recipe's earlier configure lines (failed or killed builds kept
# for a look), unless a build of theirs is running.
for stale in "$cache/.$name"-*.partial; do
  [ -d "$stale" ] || continue
  if flock -n "${stale%.partial}.lock" true; then rm -rf "$stale" "$stale.log"; rm -f "${stale%.partial}.lock"; fi
done
mkdir -p "$partial/source" "$partial/build"
tar -xf "$tar" -C "$partial/source" --strip-components=1
printf '%s\n' "${options[@]}" >"$partial/configure-options"
say "building $name ($release, $mode) in the $root_suite root: $entry"
start=$SECONDS
"$here/scripts/ompi-builds/root.sh" "$root_suite" run -- \
  "scripts/ompi-builds/build.sh __inside '$partial' '$entry'" >"$partial.log" 2>&1 ||
  { tail -n 30 "$partial.log" >&2; die "the build failed (log: $partial.log; the partial entry stays for a look until the next run)"; }
# Untouched source: what the tarball holds, byte for byte, and nothing written since the
# unpacking (a VPATH build writes nothing there).
top="$(tar -tf "$tar" | awk -F/ 'NR == 1 {print $1}')"
(cd "$partial/source" && tar --compare -f "$tar" --strip-components=1 --wildcards "$top/*") ||
  die "the build changed its source tree ($partial/source): not kept as pristine"
[ -z "$(find "$partial/source" -newer "$partial/configure-options" -print -quit)" ] ||
  die "the build wrote into its source tree ($(find "$partial/source" -newer "$partial/configure-options" -print -quit))"
{
  echo "recipe: $name ($(basename "$recipe"), $mode)"
  echo "release: $release, tarball $(basename "$tar") sha256 $(sha256sum <"$tar" | cut -d' ' -f1)"
  echo "root: $root_suite"
  echo "wall: $((SECONDS - start)) s"
  grep -E '^(configure|make|install)-(wall|cpu):' "$partial/build/times.txt"
  echo "prefix size: $(du -sh "$partial/prefix" | cut -f1)"
  echo "source size: $(du -sh "$partial/source" | cut -f1)"
} >"$partial/build.txt"
rm -rf "$partial/build"
mv "$partial" "$entry"
mv "$partial.log" "$entry/build.log"
say "done in $((SECONDS - start)) s: $entry"
echo "$entry"
