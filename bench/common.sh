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

# What a job with our components needs besides our folder in the component path (as
# `mpimon run` sets it: Open MPI's own monitoring components excluded; docs/open-mpi-5.md).
ours_selection=("OMPI_MCA_pml=^monitoring" "OMPI_MCA_coll=^monitoring" "OMPI_MCA_osc=^monitoring"
  "PMIX_MCA_mca_base_component_show_load_errors=0")

# Comparable runs: nothing from the caller's Open MPI settings; what root and
# oversubscription on these machines need.
clean_mpi_environment() {
  local unset_vars
  unset_vars=$(compgen -e | grep '^OMPI_MCA_' || true)
  if [[ -n $unset_vars ]]; then
    note "ignoring caller's $(echo "$unset_vars" | tr '\n' ' ')"
    for v in $unset_vars; do unset "$v"; done
  fi
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
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
