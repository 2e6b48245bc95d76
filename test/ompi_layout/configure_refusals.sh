#!/usr/bin/env bash
# configure_refusals.sh <project source folder> <cmake>
# cmake/OpenMPIFromSource.cmake refuses a wrong MPIMON_OMPI_PREFIX / MPIMON_OMPI_SOURCE at
# configure time in one line saying which and what to do. The installation here is a
# stand-in ompi_info (the cases are about what it reports; a real configure run is in
# docs/install.md's measurements).
set -euo pipefail
src="$1" cmake="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/prefix/bin" "$work/other-release"
cat >"$work/prefix/bin/ompi_info" <<'INFO'
#!/bin/sh
echo "ompi:version:full:4.1.4"
echo "config:cli: '--prefix=/opt/ompi' '--enable-debug'"
echo "option:debug:yes"
INFO
chmod +x "$work/prefix/bin/ompi_info"
printf 'major=4\nminor=1\nrelease=6\ngreek=\n' >"$work/other-release/VERSION"
touch "$work/other-release/configure"
mkdir -p "$work/git-tree" && printf 'major=4\nminor=1\nrelease=4\ngreek=\n' >"$work/git-tree/VERSION"

failures=0
expect() {  # expect <case> <expected text> <cmake -D arguments...>
  local name="$1" text="$2"
  shift 2
  local out status=0
  out="$("$cmake" -S "$src" -B "$work/build-$name" "$@" 2>&1)" || status=$?
  local lines
  lines="$(grep -c '^mpimon: MPIMON_OMPI_PREFIX=' <<<"$out" || true)"
  if ((status == 0)) || ((lines != 1)) || ! grep -q "^mpimon: .*$text" <<<"$out"; then
    echo "FAIL $name: status $status, $lines refusal lines, expected '$text':"
    grep -A3 '^mpimon:\|CMake Error' <<<"$out" | head -n 12
    failures=$((failures + 1))
  else
    echo "ok   $name: $(grep '^mpimon: ' <<<"$out")"
  fi
}
expect no-prefix "no such folder" -DMPIMON_OMPI_PREFIX="$work/missing"
expect no-ompi-info "no $work/other-release/bin/ompi_info" -DMPIMON_OMPI_PREFIX="$work/other-release"
expect no-source "MPIMON_OMPI_SOURCE is not set" -DMPIMON_OMPI_PREFIX="$work/prefix" -DMPIMON_OMPI_SOURCE=
expect not-a-tree "has no VERSION file" -DMPIMON_OMPI_PREFIX="$work/prefix" -DMPIMON_OMPI_SOURCE="$work/prefix"
expect other-release "the installation is Open MPI 4.1.4 but MPIMON_OMPI_SOURCE=.* is 4.1.6" \
  -DMPIMON_OMPI_PREFIX="$work/prefix" -DMPIMON_OMPI_SOURCE="$work/other-release"
expect git-tree "has no configure script (a git checkout)" \
  -DMPIMON_OMPI_PREFIX="$work/prefix" -DMPIMON_OMPI_SOURCE="$work/git-tree"
((failures == 0))
