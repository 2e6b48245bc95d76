# Shared by the benchmark scripts (sourced, after `set -euo pipefail`): messages, --help
# from the calling script's header comment, and the build directory it measures.
#   source "$(dirname "${BASH_SOURCE[0]}")/common.sh"   (sets prog, here, builddir, plugindir)
prog=$(basename "${BASH_SOURCE[1]}")
die() {
  echo "$prog: error: $*" >&2
  exit 1
}
note() { echo "$prog: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
if [[ $# -gt 1 || ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[1]}" | sed '$d; s/^# \{0,1\}//' >&2
  [[ $# -gt 1 ]] && exit 2
  exit 0
fi
builddir_arg=${1:-$here/../build}
[[ -d $builddir_arg ]] || die "build directory '$builddir_arg' does not exist (configure and build mpimon first: cmake -S $(dirname "$here") -B <dir> && cmake --build <dir>)"
builddir=$(cd "$builddir_arg" && pwd)
plugindir=$builddir/lib/mpimon

# The Open MPI series this machine runs (4.1: Debian 12, 5.0: Debian 13 or its root,
# scripts/debian13-root.sh) and the MCA arguments that differ between series, in one place:
# the shared-memory BTL is vader on 4.1, sm on 5.0.
ompi_version=$(ompi_info --parsable 2>/dev/null | sed -n 's/^ompi:version:full://p' | head -n1)
case $ompi_version in
  4.1.*) shm_btl=vader ;;
  5.0.*) shm_btl=sm ;;
  *) die "Open MPI '${ompi_version:-not found}': the benchmarks know the 4.1 and 5.0 series (ompi_info --version)" ;;
esac
btl_args=(--mca btl "self,$shm_btl")

# ours_env=(NAME=value ...): what `mpimon run` sets for a job with our plugins in folder
# $1 (Open MPI's own monitoring components excluded): printed by the project's mpimon env,
# the one list (tools/mpimon/component_selection.h). Call after clean_mpi_environment
# (mpimon env merges the caller's own pml/coll/osc selections).
mpimon_environment() {
  local folder=$1 line
  [[ -x $builddir/bin/mpimon ]] || die "$builddir/bin/mpimon is missing: build it with 'cmake --build $builddir --target mpimon'"
  ours_env=()
  while IFS= read -r line; do
    line=${line#export }
    ours_env+=("${line//\'/}")
  done < <(MPIMON_PLUGIN_DIR=$folder "$builddir/bin/mpimon" env)
  [[ ${#ours_env[@]} -gt 0 ]] || die "'$builddir/bin/mpimon env' printed nothing"
}

# Whether Open MPI's own <framework>/monitoring component ran code in a callgrind file:
# its plugin (4.1: mca_<framework>_monitoring.so) or, built into libmpi (5.0), its
# exported functions (mca_<framework>_monitoring_*).
openmpi_monitoring_ran() { # FILE FRAMEWORK
  grep -qE "^c?ob=(\([0-9]+\) )?/.*/mca_$2_monitoring\.so$" "$1" ||
    grep -qE "^c?fn=\([0-9]+\) mca_$2_monitoring_" "$1"
}

# Where Open MPI's own monitoring code runs, as arguments of callgrind_objects.py (its
# self cost): 4.1 its plugins, libmca_common_monitoring and libm (its log10); 5.0 the
# exported functions of the three components and their common code inside libmpi, and
# libm. 5.0's static functions (the osc layer's per-component templates) have no name
# there: on 5.0 only the whole-call difference with `none` covers them.
openmpi_monitoring_code() {
  case $ompi_version in
    4.1.*) echo "/mca_pml_monitoring.so /mca_coll_monitoring.so /mca_osc_monitoring.so libmca_common_monitoring libm.so" ;;
    *) echo "fn:mca_pml_monitoring_ fn:mca_coll_monitoring_ fn:mca_osc_monitoring_ fn:mca_common_monitoring_ libm.so" ;;
  esac
}

# Comparable runs: nothing from the caller's Open MPI settings; what root and
# oversubscription on these machines need.
clean_mpi_environment() {
  local unset_vars
  unset_vars=$(compgen -e | grep '^OMPI_MCA_' || true)
  if [[ -n $unset_vars ]]; then
    note "ignoring caller's $(echo "$unset_vars" | tr '\n' ' ')"
    for v in $unset_vars; do unset "$v"; done
  fi
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
  # MPIMON_BENCH_MCA="name=value ...": MCA parameters for every configuration of the run,
  # e.g. pml_monitoring_snapshot_interval=0 to measure with the time series off.
  local setting
  for setting in ${MPIMON_BENCH_MCA:-}; do
    [[ $setting == *=* ]] || die "MPIMON_BENCH_MCA: expected name=value, found '$setting'"
    export "OMPI_MCA_${setting%%=*}=${setting#*=}"
    note "with MCA parameter ${setting%%=*} = ${setting#*=}"
  done
}

# Copies our plugin folder to $1/lib-mpimon (sets snapdir): a rebuild of the build tree
# during the measurement must not mix two versions into one table.
snapshot_plugins() {
  snapdir=$1/lib-mpimon
  mkdir "$snapdir"
  cp -a "$plugindir"/. "$snapdir"/
  for f in "$plugindir"/*.so*; do
    [[ -f $f ]] || continue
    cmp -s "$f" "$snapdir/$(basename "$f")" || die "$f changed while being copied (is the build tree being rebuilt?); run again"
  done
}

# Writes an executable wrapper $1 (`wrapper OUT program args...`) that runs MPI_COMM_WORLD
# rank 0 under callgrind, counting only inside the functions named in $2..; other ranks
# run natively.
write_rank0_callgrind_wrapper() {
  local file=$1 toggles="" f
  shift
  for f in "$@"; do toggles+=" --toggle-collect=$f"; done
  cat >"$file" <<EOS
#!/bin/sh
out=\$1
shift
if [ "\${OMPI_COMM_WORLD_RANK:-}" = 0 ]; then
  exec valgrind -q --tool=callgrind$toggles --callgrind-out-file="\$out" "\$@"
fi
exec "\$@"
EOS
  chmod +x "$file"
}

# The total instruction count of a callgrind output file.
callgrind_total() {
  awk '/^summary:/ {print $2; exit} /^totals:/ {t=$2} END {if (t != "") print t}' "$1" | head -n1
}

# A scratch folder $work (resolved path: callgrind records resolved object paths),
# removed at exit unless MPIMON_BENCH_KEEP=1.
make_work_dir() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/mpimon-$1.XXXXXX")
  work=$(cd "$work" && pwd -P)
  if [[ ${MPIMON_BENCH_KEEP:-0} == 1 ]]; then
    note "keeping callgrind files, programs and logs in $work"
  else
    trap 'rm -rf "$work"' EXIT
  fi
}

# A number for the tables: one decimal, none when it is whole; with a second argument,
# a sign in front of non-negative values.
fmt() {
  if [[ $1 == "-" ]]; then echo "-"; return; fi
  awk -v v="$1" -v sign="${2:-}" 'BEGIN {
    r = sprintf("%.1f", v); if (r ~ /\.0$/) r = sprintf("%d", v + (v < 0 ? -0.5 : 0.5));
    if (sign != "" && v >= 0) r = "+" r; print r }'
}
