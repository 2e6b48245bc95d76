#!/usr/bin/env bash
# The CI pass over Open MPI as clusters build it (docs/open-mpi-builds.md): for each
# recipe in scripts/ompi-builds/*.conf, the Open MPI it describes (built once per machine
# by build.sh, cached), mpimon built against it in its Debian root and its MPI, events
# and cluster tests run (test-inside.sh); then the bundled example's E/I/C lines compared
# with those of the Debian-package build of the same release, and plugins loaded by the
# wrong Open MPI (cross-load.sh). scripts/test.sh runs it after the Open MPI 5.0 pass.
#
#   test.sh [recipe name...]     (default: the recipes with ci=1; MPIMON_OMPI_BUILDS_RECIPES=all: every one)
#
# MPIMON_OMPI_BUILDS_CTEST: ctest arguments inside the roots, for every recipe (default: the
# recipe's ci_ctest, else -L '^(mpi|events|cluster)$').
#
# The Debian-package builds compared with: $MPIMON_BUILD_DIR (default build/, Debian
# 12's 4.1.4, made by scripts/setup.sh) and build-ompi5/ in the Debian 13 root
# (scripts/test-ompi5.sh; $MPIMON_OMPI5_BUILD_DIR). Exit 0 when everything passed, 77 when
# this machine cannot make Debian roots, else 1 after running everything it could.
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
cd "$here"
say() { echo "ompi-builds/test: $*"; }
work="$here/build-ompi-builds"
mkdir -p "$work"
if ! why="$(scripts/debian-root.sh --release bookworm check)"; then say "skipped: $why"; exit 77; fi

# Which recipes: those named, else those whose conf says ci=1 (what scripts/test.sh, hence
# CI, runs), or every recipe with MPIMON_OMPI_BUILDS_RECIPES=all.
recipes=("$@")
if ((${#recipes[@]} == 0)); then
  for f in scripts/ompi-builds/*.conf; do
    if [ "${MPIMON_OMPI_BUILDS_RECIPES:-ci}" = all ] || [ "$(ci=0 && . "$f" && echo "$ci")" = 1 ]; then
      recipes+=("$(basename "$f" .conf)")
    fi
  done
fi
declare -A entry suite release
failures=()
for r in "${recipes[@]}"; do
  conf="scripts/ompi-builds/$r.conf"
  [ -f "$conf" ] || { say "no recipe $conf"; exit 2; }
  start=$SECONDS
  e="$(scripts/ompi-builds/build.sh --ci "$conf")" || { failures+=("$r: Open MPI build"); continue; }
  entry[$r]="$e"
  suite[$r]="$(. "$conf" && echo "$root_suite")"
  release[$r]="$(. "$conf" && echo "$release")"
  say "$r: Open MPI $(sed -n 's/^prefix size: //p' "$e/build.txt") in $e ($((SECONDS - start)) s here)"
  start=$SECONDS
  ctest_args="${MPIMON_OMPI_BUILDS_CTEST:-$(ci_ctest=() && . "$conf" && if ((${#ci_ctest[@]})); then printf '%q ' "${ci_ctest[@]}"; fi)}"
  scripts/ompi-builds/root.sh "${suite[$r]}" --env "MPIMON_OMPI_BUILDS_CTEST=$ctest_args" \
    --scratch run -- "scripts/ompi-builds/test-inside.sh '$r' '$e'" ||
    failures+=("$r: mpimon built and tested against it")
  say "$r: root, mpimon build and tests: $((SECONDS - start)) s"
done

# The same example under the Debian-package build of the same release.
reference_dumps() {  # <release> <folder>: prints the reference eic.txt, or nothing
  local out="$work/debian-$1/dumps"
  rm -rf "$out"
  case "$1" in
    4.1.*) [[ "$(dpkg-query -W -f='${Version}' libopenmpi-dev 2>/dev/null)" == "$1"-* ]] || { say "this machine's Open MPI is not Debian's $1" >&2; return 1; }
           scripts/ompi-builds/example-dumps.sh "${MPIMON_BUILD_DIR:-build}" "$out" >&2 ;;
    5.0.*) local b="${MPIMON_OMPI5_BUILD_DIR:-build-ompi5}"
           [ -x "$b/bin/mpimon" ] || { say "no Debian 13 build in $b (scripts/test-ompi5.sh makes it)" >&2; return 1; }
           scripts/debian13-root.sh run -- "scripts/ompi-builds/example-dumps.sh '$b' '$out'" >&2 ;;
    *) say "no Debian package build of Open MPI $1 to compare with" >&2; return 1 ;;
  esac
  echo "$out/eic.txt"
}
for r in "${!entry[@]}"; do
  mine="$work/$r/dumps/eic.txt"
  [ -f "$mine" ] || { failures+=("$r: no example dumps"); continue; }
  if ! ref="$(reference_dumps "${release[$r]}")" || [ ! -f "$ref" ]; then failures+=("$r: no reference dumps"); continue; fi
  if diff -u "$ref" "$mine"; then
    say "$r: the example's E/I/C lines equal those of Debian's ${release[$r]} ($(grep -c -E '^[EIC]' "$mine") lines)"
  else
    failures+=("$r: the example's dumps differ from Debian's ${release[$r]}")
  fi
done

# Plugins built for one Open MPI, loaded by another.
cross() {  # <what> <root suite or "host"> <plugins' build (runs here)> <Open MPI bin folder>
  local what="$1" where="$2" out="$work/cross-load/$1"
  rm -rf "$out" && mkdir -p "$work/cross-load"
  "$3/bin/mpimon" env >"$out.env" || { failures+=("cross-load $what: mpimon env of $3"); return; }
  local cmd="scripts/ompi-builds/cross-load.sh '$out.env' '$4' '$out'"
  if [ "$where" = host ]; then bash -c "$cmd"; else scripts/ompi-builds/root.sh "$where" run -- "$cmd"; fi ||
    failures+=("cross-load $what")
}
# The plugins' mpimon runs on this machine (Debian 12): the builds made here or in the
# Debian 12 root (same libraries).
debian_build="${MPIMON_BUILD_DIR:-$here/build}"
spack="spack-like-4.1.4-debug" eb="easybuild-like-5.0.7"
if [ -n "${entry[$spack]:-}" ] && [ -n "${entry[$eb]:-}" ]; then
  cross "4.1.4-debug-into-5.0.7" trixie "$here/build-srcbuild-$spack" "${entry[$eb]}/prefix/bin"
fi
if [ -n "${entry[$spack]:-}" ]; then
  cross "debian-4.1.4-into-4.1.4-debug" bookworm "$debian_build" "${entry[$spack]}/prefix/bin"
  cross "4.1.4-debug-into-debian-4.1.4" host "$here/build-srcbuild-$spack" /usr/bin
fi

if ((${#failures[@]})); then
  say "FAILED:"; printf '  %s\n' "${failures[@]}"; exit 1
fi
say "all passed: ${recipes[*]}"
