#!/usr/bin/env bash
# `cmake --install <build> --prefix P` gives a working tree (docs/install.md): the layout,
# nothing pointing back into the build folder, P/bin/mpimon running a 4-rank job with the
# plugins of P/lib/mpimon, a C and a Fortran program and an MPI_T events tool built
# against P with pkg-config alone, and P/share/mpimon/mpimon-env.sh for plain mpirun.
#   install_tree_test.sh <build dir> <test programs dir> <mpicc> <mpif90> <mpirun> <version>
build="$1" programs="$2" mpicc="$3" mpif90="$4" mpirun="$5" version="$6"
# shellcheck source=SCRIPTDIR/install_common.sh
. "$(dirname "$0")/install_common.sh"

prefix="$work/prefix with space"
install_into "$build" "$prefix"
note "installed into $prefix"
for f in bin/mpimon bin/mpimon-demo \
  lib/mpimon/mca_pml_mpimon.so lib/mpimon/mca_coll_mpimon.so lib/mpimon/mca_osc_mpimon.so \
  lib/mpimon/mca_io_mpimon.so lib/mpimon/mca_topo_mpimon.so lib/mpimon/mpimon-mca-params.conf \
  lib/mpimon/mca_coll_splittree.so lib/mpimon/libmpimon_monitoring.so lib/mpimon/libmpimon_mpit_events.so \
  lib/mpimon/libmpimon_reorder.so lib/mpimon/libmpimon_event_logger.so libexec/mpimon/mpimon_example \
  include/mpimon/mpimon_reorder.h include/mpimon/mpimon.mod include/mpimon/mpit_events.h \
  include/mpimon/communication_events.h lib/pkgconfig/mpimon-reorder.pc share/mpimon/mpimon-env.sh \
  "share/modulefiles/mpimon/$version" share/doc/mpimon/README.md; do
  [ -e "$prefix/$f" ] || fail "$f is missing from the installed tree"
done

# Nothing refers to the build folder: run paths of the binaries, text files.
while IFS= read -r -d '' f; do
  if head -c 4 "$f" | grep -q 'ELF'; then
    ! readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -qF "$build" || fail "$f: run path into the build folder: $(readelf -d "$f" | grep -E 'R(UN)?PATH')"
  elif grep -qF "$build" "$f"; then
    fail "$f names the build folder: $(grep -F "$build" "$f" | head -n 2)"
  fi
done < <(find "$prefix" -type f -print0)

# The plugin folder is found from the executable's own location (first line of `mpimon
# env`; the others exclude Open MPI's own monitoring components), and the installed MCA
# parameter file names it too.
[ "$(env -u MPIMON_PLUGIN_DIR "$prefix/bin/mpimon" env | head -n 1)" = "export OMPI_MCA_mca_base_component_path='$prefix/lib/mpimon:SYS_DEFAULT:USER_DEFAULT'" ] ||
  fail "P/bin/mpimon env: $("$prefix/bin/mpimon" env)"
grep -qxF "mca_base_component_path = $prefix/lib/mpimon:SYS_DEFAULT:USER_DEFAULT" "$prefix/lib/mpimon/mpimon-mca-params.conf" ||
  fail "P/lib/mpimon/mpimon-mca-params.conf: $(cat "$prefix/lib/mpimon/mpimon-mca-params.conf")"

note "P/bin/mpimon run: the example's ring on 4 ranks"
mkdir "$work/ring" && cd "$work/ring"
env -u MPIMON_PLUGIN_DIR "$prefix/bin/mpimon" run -- -np 4 --mca pml_monitoring_enable 2 \
  --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename prof \
  "$prefix/libexec/mpimon/mpimon_example" ring >job.log 2>&1 || { cat job.log; fail "mpimon run failed"; }
expect_pairs . prof 4 1 1024
expect_job_file mpimon-job.txt 4
"$prefix/bin/mpimon" matrix mpimon-job.txt >matrix.txt 2>&1 || { cat matrix.txt; fail "mpimon matrix on the job file failed"; }

# build_against_prefix <compiler> <source> <output>: the one documented flag only.
build_against_prefix() {
  local flags
  flags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs mpimon-reorder)" ||
    fail "pkg-config mpimon-reorder with PKG_CONFIG_PATH=$prefix/lib/pkgconfig failed"
  # shellcheck disable=SC2086  # the flags are words (the prefix has a space: pkg-config escapes it)
  eval "\"$1\" \"$2\" $flags -o \"$3\"" >build.log 2>&1 || { cat build.log; fail "$1 $2 $flags failed"; }
  local loaded
  loaded="$(ldd "$3" | sed -n 's/^[[:space:]]*libmpimon_reorder\.so[^ ]* => \(.*\) (0x[0-9a-f]*)$/\1/p')"
  [ -n "$loaded" ] && [ "$(readlink -f "$loaded")" -ef "$prefix/lib/mpimon/libmpimon_reorder.so" ] ||
    fail "$3 does not load libmpimon_reorder.so from $prefix/lib/mpimon: $(ldd "$3" | grep mpimon)"
}

# run_reorder_program <program> <language>: 4 ranks under P/bin/mpimon run; partners
# r and r+2 exchanged 64 KiB, then (a phase after mpimon_reorder_mark) r and r^1, and
# every rank printed its reordered rank both times (test/mpi/programs/reorder_c.c).
run_reorder_program() {
  "$prefix/bin/mpimon" run -- -np 4 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
    --mca pml_monitoring_filename prof --mca pml_monitoring_job_file "" "$1" >job.log 2>&1 ||
    { cat job.log; fail "$1 under mpimon run failed"; }
  local r file lines expected
  for r in 0 1 2 3; do
    file="prof.$r.prof"
    [ -f "$file" ] || fail "no $file (files there: $(ls | tr '\n' ' '))"
    lines="$(grep -P '^E\t' "$file" | cut -f1-5)"
    expected="$(for peer in $((r ^ 1)) $(((r + 2) % 4)); do
      printf 'E\t%d\t%d\t65536 bytes\t1 msgs sent\n' "$r" "$peer"
    done | sort -t$'\t' -k3,3n)"
    [ "$lines" = "$expected" ] || fail "$file: expected E lines to ranks $((r ^ 1)) and $(((r + 2) % 4)), 65536 bytes each; got: ${lines:-nothing}"
    grep -qE "^$2: world $r -> [0-3]\$" job.log || { cat job.log; fail "$1: no '$2: world $r -> <rank>' line"; }
    grep -qE "^$2 phase: world $r -> [0-3]\$" job.log || { cat job.log; fail "$1: no '$2 phase: world $r -> <rank>' line"; }
  done
}

note "a C program: mpicc reorder_c.c \$(pkg-config --cflags --libs mpimon-reorder)"
mkdir "$work/c" && cd "$work/c"
build_against_prefix "$mpicc" "$programs/reorder_c.c" app
run_reorder_program ./app C

if [ -n "$mpif90" ]; then
  note "a Fortran program: mpif90 reorder_fortran.f90 \$(pkg-config ...) (use mpimon: the installed module)"
  mkdir "$work/fortran" && cd "$work/fortran"
  build_against_prefix "$mpif90" "$programs/reorder_fortran.f90" app
  run_reorder_program ./app Fortran
else
  note "no Fortran program: this Open MPI installation has no mpifort (MPIMON_OMPI_PREFIX build without Fortran)"
fi

note "an MPI_T events tool: mpicc tool.c \$(pkg-config --cflags --libs mpimon-mpit-events)"
mkdir "$work/events" && cd "$work/events"
cat >tool.c <<'C'
#include <mpit_events.h>
#include <stdio.h>
int main(int argc, char** argv) {
  int provided, index = -1;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  const int rc = MPI_T_event_get_index("mpimon_pml_send_posted", &index);
  MPI_Init(&argc, &argv);
  printf("rc %d index %d\n", rc, index);
  MPI_T_finalize(); /* before MPI_Finalize: Open MPI 4.1 crashes the other way round */
  MPI_Finalize();
  return rc != MPI_SUCCESS;
}
C
flags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs mpimon-mpit-events)" ||
  fail "pkg-config mpimon-mpit-events failed"
eval "\"$mpicc\" tool.c $flags -o tool" >build.log 2>&1 || { cat build.log; fail "mpicc tool.c $flags failed"; }
"$prefix/bin/mpimon" run -- -np 2 --mca pml_monitoring_enable 2 --mca pml_monitoring_job_file "" ./tool >job.log 2>&1 ||
  { cat job.log; fail "the events tool failed under mpimon run"; }
[ "$(grep -c '^rc 0 index [0-9]' job.log)" = 2 ] || { cat job.log; fail "the events tool did not find mpimon_pml_send_posted on both ranks"; }

note "plain mpirun after '. P/share/mpimon/mpimon-env.sh'"
mkdir "$work/env" && cd "$work/env"
(
  unset OMPI_MCA_mca_base_component_path
  # shellcheck disable=SC1091
  . "$prefix/share/mpimon/mpimon-env.sh"
  [ "$(command -v mpimon)" = "$prefix/bin/mpimon" ] || fail "mpimon on PATH is $(command -v mpimon)"
  "$mpirun" -np 2 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
    --mca pml_monitoring_filename prof "$prefix/libexec/mpimon/mpimon_example" ring >job.log 2>&1 ||
    { cat job.log; fail "mpirun after the environment script failed"; }
)
expect_pairs . prof 2 1 1024
expect_job_file mpimon-job.txt 2
echo "install tree: OK"
