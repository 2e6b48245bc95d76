#!/bin/sh
# Configuring against an Open MPI with MPI_T events of its own (main/6.0) must stop with a
# message naming docs/open-mpi-5.md's section, not build our clashing MPI_T_event_*
# (cmake/OpenMPI.cmake). No such Open MPI is packaged: a stand-in is the installed one
# plus an mpi.h that declares MPI_T_event_register_callback and/or a library exporting it.
# Usage: mpit_events_refusal_test.sh <source dir> <C compiler> <cmake>
set -u
src=$1 cc=$2 cmake=$3
work=$(mktemp -d /tmp/mpimon-refusal.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
pcdir=$(pkg-config --variable=pcfiledir ompi-c) || { echo "no pkg-config ompi-c: skipped"; exit 77; }
mkdir -p "$work/include" "$work/lib" "$work/both" "$work/library"
cat > "$work/include/mpi.h" <<'H'
#include_next <mpi.h>
#ifdef __cplusplus
extern "C" {
#endif
int MPI_T_event_register_callback(void*, int, void*, void*, void*);
#ifdef __cplusplus
}
#endif
H
echo 'int MPI_T_event_register_callback(void* r, int s, void* i, void* u, void* c) { return 0; }' > "$work/ev.c"
"$cc" -shared -fPIC -o "$work/lib/libstandin_events.so" "$work/ev.c" || exit 1
libs="Libs: -L\${libdir} -lmpi -L$work/lib -lstandin_events"
sed -e "s|^Libs: .*|$libs|" -e "s|^Cflags: |Cflags: -I$work/include |" "$pcdir/ompi-c.pc" > "$work/both/ompi-c.pc"
sed -e "s|^Libs: .*|$libs|" "$pcdir/ompi-c.pc" > "$work/library/ompi-c.pc"
status=0
for case in both library; do
  out=$(PKG_CONFIG_PATH="$work/$case" LD_LIBRARY_PATH="$work/lib" "$cmake" -S "$src" -B "$work/build-$case" 2>&1)
  code=$?
  if [ $code -eq 0 ]; then
    echo "FAILED ($case): configuration went on"; status=1
  fi
  msg=$(printf '%s\n' "$out" | tr -s ' \n' '  ')
  for want in "has MPI_T events of its own" 'docs/open-mpi-5.md, section "Open MPI 6.0 / main"'; do
    case "$msg" in
      *"$want"*) ;;
      *) echo "FAILED ($case): no '$want' in:"; printf '%s\n' "$out" | tail -20; status=1 ;;
    esac
  done
  [ $status -eq 0 ] && echo "ok ($case): refused"
done
exit $status
