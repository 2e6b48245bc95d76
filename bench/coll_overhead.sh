#!/usr/bin/env bash
# Instructions executed inside the monitoring code per MPI_Allreduce (8 B, 4 ranks,
# measured at rank 3): Debian's monitoring components vs ours, plus the whole
# MPI_Allreduce with no monitoring, side by side. Reports only.
#
#   bench/coll_overhead.sh [BUILD_DIR]
#
# Rank 3 runs under `valgrind --tool=callgrind --toggle-collect=PMPI_Allreduce` with K1
# and K2 allreduces; the self cost of the monitoring objects (ours: everything in our
# plugin folder; Debian's: its coll/pml monitoring plugins, libmca_common_monitoring and
# libm for its log10) is differenced and divided by K2 - K1. Both the COLL layer (the
# logical allreduce) and the PML layer (its point-to-point decomposition) run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
plugins="$build/lib/mpimon"
command -v valgrind >/dev/null || { echo "coll_overhead.sh: valgrind is not installed" >&2; exit 2; }
[ -f "$plugins/mca_coll_monitoring.so" ] || { echo "coll_overhead.sh: no $plugins/mca_coll_monitoring.so (build first)" >&2; exit 2; }
cmake --build "$build" --target mpimon_bench_allreduce >/dev/null
exe="$build/bin/mpimon_bench_allreduce"
distro_dir=$(dirname "$(find /usr/lib -path '*openmpi*' -name mca_coll_monitoring.so | head -1)")

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$plugins" "$work/plugins"  # a rebuild during the run cannot mix versions
cat > "$work/rank3.sh" <<WRAP
#!/usr/bin/env bash
if [ "\$OMPI_COMM_WORLD_RANK" = 3 ]; then
  exec valgrind -q --tool=callgrind --toggle-collect=PMPI_Allreduce --callgrind-out-file="\$OUT" "\$@"
fi
exec "\$@"
WRAP
chmod +x "$work/rank3.sh"
while IFS='=' read -r name _; do unset "$name"; done < <(env | grep '^OMPI_MCA_' || true)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
for setting in ${MPIMON_BENCH_MCA:-}; do  # as in common.sh: MCA parameters for every configuration
  export "OMPI_MCA_${setting%%=*}=${setting#*=}"
done

K1=200
K2=400
run() {  # config K -> callgrind file
  local config=$1 k=$2 out="$work/$1.$2.out"
  local -a env_path=() level=(--mca pml_monitoring_enable 2)
  case $config in
    none) env_path=(OMPI_MCA_mca_base_component_path="$work/plugins:SYS_DEFAULT:USER_DEFAULT"); level=(--mca pml_monitoring_enable 0) ;;
    mpimon) env_path=(OMPI_MCA_mca_base_component_path="$work/plugins:SYS_DEFAULT:USER_DEFAULT") ;;
    distro) ;;
  esac
  env "${env_path[@]}" OUT="$out" timeout 300 mpirun.openmpi -np 4 --mca btl self,vader "${level[@]}" \
    --mca pml_monitoring_job_file "" "$work/rank3.sh" "$exe" "$k" >"$work/$config.$k.log" 2>&1 ||
    { [ "$config" = distro ] || { echo "coll_overhead.sh: $config run failed:" >&2; cat "$work/$config.$k.log" >&2; exit 1; }; }
  echo "$out"
}
objects() {  # config -> substrings naming its monitoring objects
  case $1 in
    mpimon) echo "$work/plugins/" ;;
    distro) echo "$distro_dir/mca_coll_monitoring.so $distro_dir/mca_pml_monitoring.so libmca_common_monitoring libm.so" ;;
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
