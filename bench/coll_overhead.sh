#!/usr/bin/env bash
# Instructions executed inside the monitoring code per MPI_Allreduce (8 B, 4 ranks,
# measured at rank 3): Open MPI's own monitoring components vs ours, plus the whole
# MPI_Allreduce with no monitoring, side by side, on the Open MPI this machine runs (4.1,
# or 5.0 in the Debian 13 root). Reports only.
#
#   bench/coll_overhead.sh [BUILD_DIR]
#
# Rank 3 runs under `valgrind --tool=callgrind --toggle-collect=PMPI_Allreduce` with K1
# and K2 allreduces; the self cost of the monitoring code (ours: everything in our plugin
# folder; Open MPI's: common.sh, openmpi_monitoring_code) is differenced and divided by
# K2 - K1. Both the COLL layer (the
# logical allreduce) and the PML layer (its point-to-point decomposition) run.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
command -v valgrind >/dev/null || die "valgrind is not installed"
[[ -f $plugindir/mca_coll_mpimon.so ]] || die "no $plugindir/mca_coll_mpimon.so (build first)"
cmake --build "$builddir" --target mpimon_bench_allreduce >/dev/null || die "cannot build mpimon_bench_allreduce"
exe=$builddir/bin/mpimon_bench_allreduce
clean_mpi_environment
make_work_dir coll-overhead
snapshot_plugins "$work" # a rebuild during the run cannot mix versions
mpimon_environment "$snapdir"
cat >"$work/rank3.sh" <<WRAP
#!/usr/bin/env bash
if [ "\$OMPI_COMM_WORLD_RANK" = 3 ]; then
  exec valgrind -q --tool=callgrind --toggle-collect=PMPI_Allreduce --callgrind-out-file="\$OUT" "\$@"
fi
exec "\$@"
WRAP
chmod +x "$work/rank3.sh"

K1=200
K2=400
run() {  # config K -> callgrind file
  local config=$1 k=$2 out="$work/$1.$2.out"
  local -a env_path=() level=(--mca pml_monitoring_enable 2)
  case $config in
    none) env_path=("${ours_env[@]}"); level=(--mca pml_monitoring_enable 0) ;;
    mpimon) env_path=("${ours_env[@]}") ;;
    distro) ;;
  esac
  env "${env_path[@]}" OUT="$out" timeout 300 mpirun.openmpi -np 4 "${btl_args[@]}" "${level[@]}" \
    --mca pml_monitoring_job_file "" "$work/rank3.sh" "$exe" "$k" >"$work/$config.$k.log" 2>&1 ||
    { [ "$config" = distro ] || { cat "$work/$config.$k.log" >&2; die "$config run failed (output above)"; }; }
  echo "$out"
}
objects() {  # config -> substrings naming its monitoring objects
  case $1 in
    mpimon) echo "$snapdir/" ;;
    distro) openmpi_monitoring_code ;;
    none) echo "no-such-object" ;;
  esac
}
per_call() {  # config what(total|monitoring)
  local a b
  if [ "$2" = total ]; then
    a=$(python3 "$here/callgrind_objects.py" "$(run "$1" $K1)" "/")
    b=$(python3 "$here/callgrind_objects.py" "$(run "$1" $K2)" "/")
  else
    # shellcheck disable=SC2046
    a=$(python3 "$here/callgrind_objects.py" "$work/$1.$K1.out" $(objects "$1"))
    # shellcheck disable=SC2046
    b=$(python3 "$here/callgrind_objects.py" "$work/$1.$K2.out" $(objects "$1"))
  fi
  awk -v a="$a" -v b="$b" -v d=$((K2 - K1)) 'BEGIN{printf "%.1f", (b - a) / d}'
}

echo "Open MPI $ompi_version, btl self,$shm_btl, 8-byte MPI_Allreduce on 4 ranks, rank 3 under callgrind, (K=$K2 - K=$K1) / $((K2 - K1))"
echo
echo "| configuration | instructions per MPI_Allreduce (8 B, rank 3 of 4) | of which inside monitoring code |"
echo "|---|---:|---:|"
for config in none distro mpimon; do
  total=$(per_call "$config" total)
  inside=$(per_call "$config" monitoring)
  echo "| $config | $total | $inside |"
  eval "inside_$config=$inside"
done
echo
# Issue 23: at most 150 instructions inside monitoring code (the distro's half was the
# earlier target; both are printed).
awk -v d="$inside_distro" -v m="$inside_mpimon" 'BEGIN{
  printf "target: mpimon at most 150 inside monitoring code: %.1f (limit 150): %s\n", m, (m <= 150) ? "PASS" : "MISS"
  printf "and at most half of the distro: %.1f vs %.1f (limit %.1f): %s\n", m, d, d / 2, (m <= d / 2) ? "PASS" : "MISS" }'
