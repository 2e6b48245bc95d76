#!/usr/bin/env bash
# Debian 13's libopenmpi-dev (Open MPI 5.0.x) installs opal_config.h, which includes four
# headers the package does not ship (Open MPI marks them noinst). They define struct
# layouts (opal_mutex_t, ...) that every Open MPI object we touch embeds, so they must be
# exactly the installed release's: this script takes them from Debian's own source
# package of the installed version, at configure time, into the build folder. Nothing of
# Open MPI is kept in our repository (docs/open-mpi-5.md, "Debian 13's missing headers").
#
#   fetch-ompi-headers.sh <destination include folder> <header>...
#
# Uses a private apt source list (deb-src for this release), private index and cache
# folders under the destination: the machine's apt configuration is not touched, no root
# needed. Exit 0 with every header in place (also when they already were), else 1 with
# a message saying what failed.
set -euo pipefail
dest="$1"
shift
headers=("$@")
say() { echo "fetch-ompi-headers: $*" >&2; }

package="$(dpkg-query -W -f='${source:Package}' libopenmpi-dev 2>/dev/null)" || { say "libopenmpi-dev is not installed"; exit 1; }
version="$(dpkg-query -W -f='${source:Version}' libopenmpi-dev)"
stamp="$dest/.from-$package-$version"
all_there() {
  [ -f "$stamp" ] || return 1
  local h
  for h in "${headers[@]}"; do [ -f "$dest/$h" ] || return 1; done
}
if all_there; then exit 0; fi

# shellcheck disable=SC1091
codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
mirror="${MPIMON_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
work="$dest/.apt"
rm -rf "$work"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/download"
echo "deb-src $mirror $codename main" >"$work/sources.list"
apt_options=(-q -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=- \
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1)
# As root apt would hand the download to its _apt user, who cannot write here.
[ "$(id -u)" -ne 0 ] || apt_options+=(-o APT::Sandbox::User=root)

say "Open MPI's source package $package $version from $mirror ($codename): $(printf '%s ' "${headers[@]}")"
if ! apt-get "${apt_options[@]}" update >"$work/update.log" 2>&1; then
  cat "$work/update.log" >&2
  say "cannot read the source index of $mirror $codename (no network? set MPIMON_DEBIAN_MIRROR)"
  exit 1
fi
if ! (cd "$work/download" && apt-get "${apt_options[@]}" source --download-only "$package=$version") >"$work/source.log" 2>&1; then
  cat "$work/source.log" >&2
  say "cannot download the source package $package=$version"
  exit 1
fi
orig="$(ls "$work/download/${package}_"*.orig.tar.* 2>/dev/null | head -n 1)"
[ -n "$orig" ] || { say "no upstream tarball in what apt downloaded"; exit 1; }
# Debian's patches must not change these files (else the upstream copy would be wrong).
debian_tar="$(ls "$work/download/${package}_"*.debian.tar.* 2>/dev/null | head -n 1)"
if [ -n "$debian_tar" ]; then
  for h in "${headers[@]}"; do
    if tar -xOf "$debian_tar" --wildcards 'debian/patches/*' 2>/dev/null | grep -q "^+++ .*/$h"; then
      say "a Debian patch changes $h: not handled (take it from an unpacked, patched source instead)"
      exit 1
    fi
  done
fi
patterns=()
for h in "${headers[@]}"; do patterns+=("*/$h"); done
tar -xf "$orig" -C "$dest" --wildcards --strip-components=1 "${patterns[@]}"
all_missing=0
for h in "${headers[@]}"; do [ -f "$dest/$h" ] || { say "$h is not in $orig"; all_missing=1; }; done
((all_missing == 0)) || exit 1
rm -rf "$work"
touch "$stamp"
say "done: $dest"
