#!/usr/bin/env bash
# The .deb (docs/install.md "Debian package"): built with CPack from the build folder,
# installed with apt into a fresh root of the Debian release it was built on (debootstrap
# minbase plus Open MPI's runtime, cached by scripts/debian-root.sh, the install itself
# in a throwaway layer), where its demo runs (deb_in_root.sh checks what it prints).
# Skipped, with the reason, where the machine cannot make the root (not root, no
# debootstrap, no mount namespaces) or cannot build a .deb.
#   deb_test.sh <build dir> <source dir>
build="$1" source_dir="$2"
# shellcheck source=SCRIPTDIR/install_common.sh
. "$(dirname "$0")/install_common.sh"

# shellcheck disable=SC1091
codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
[ -n "$codename" ] || { echo "SKIP: /etc/os-release names no Debian release"; exit 77; }
root_script=("$source_dir/scripts/debian-root.sh" --release "$codename" --packages "openmpi-bin")
if ! why="$("${root_script[@]}" check)"; then echo "SKIP: $why"; exit 77; fi
grep -q 'CPACK_GENERATOR "DEB"' "$build/CPackConfig.cmake" ||
  { echo "SKIP: this build makes no .deb (no dpkg-shlibdeps, or libmpi not from a Debian package; scripts/setup.sh installs dpkg-dev)"; exit 77; }

start=$SECONDS
cpack --config "$build/CPackConfig.cmake" -B "$work/package" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
deb="$(find "$work/package" -maxdepth 1 -name 'mpimon_*.deb')"
[ -f "$deb" ] || fail "cpack made no mpimon_*.deb: $(ls "$work/package")"
note "$(basename "$deb"): $(du -h "$deb" | cut -f1), made in $((SECONDS - start)) s"
depends="$(dpkg-deb -f "$deb" Depends)"
note "Depends: $depends"
for d in 'openmpi-bin' 'libopenmpi[0-9]* \(>= [0-9]+\.[0-9]+\)' 'libopenmpi[0-9]* \(<< [0-9]+\.[0-9]+\)' 'libhwloc' 'libscotch' 'libstdc\+\+6'; do
  grep -qE "(^|, )$d" <<<"$depends" || fail "Depends has no $d"
done
dpkg-deb -c "$deb" >"$work/contents"
for f in usr/bin/mpimon usr/bin/mpimon-demo usr/lib/mpimon/mca_pml_mpimon.so usr/libexec/mpimon/mpimon_example \
  "usr/share/modulefiles/mpimon/$(dpkg-deb -f "$deb" Version | cut -d- -f1)"; do
  grep -q " \./$f\$" "$work/contents" || fail "the .deb has no /$f"
done

start=$SECONDS
"${root_script[@]}" prepare || fail "could not make the $codename root"
note "$codename root ready in $((SECONDS - start)) s"
start=$SECONDS
"${root_script[@]}" --scratch --bind "$work/package" run -- \
  "$source_dir/test/install/deb_in_root.sh" "$deb" || fail "in the $codename root (above)"
note "installed and demo run in the $codename root in $((SECONDS - start)) s"
echo "deb: OK"
