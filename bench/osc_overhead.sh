#!/usr/bin/env bash
# Instructions per passive-target epoch (MPI_Win_lock + 8-byte MPI_Put + MPI_Win_unlock)
# with OSC monitoring: no monitoring vs Open MPI's own osc/monitoring component vs ours
# (with and without synchronisation timing, with wait-state detection), side by side,
# measured with callgrind; then the cost of one epoch of each synchronisation kind
# (lock, fence, general active target) in instructions and in wall-clock time, to show
# what wait-state detection (osc_monitoring_wait_states 1) costs per epoch.
#
#   bench/osc_overhead.sh [BUILD_DIR]        (default: the build/ next to bench/)
#
# The program (a small C file written and compiled here with mpicc.openmpi) creates a
# window on MPI_COMM_WORLD of 2 ranks and world rank 0 runs K epochs
#   MPI_Win_lock(EXCLUSIVE, 1) ; MPI_Put(8 bytes to rank 1) ; MPI_Win_unlock(1)
# after one warm-up epoch. Rank 0 runs under
#   valgrind --tool=callgrind --toggle-collect=PMPI_Win_lock --toggle-collect=PMPI_Put
#            --toggle-collect=PMPI_Win_unlock
# so only instructions executed inside those three calls are counted (MPI_Win_lock, ...
# are weak aliases of the PMPI_ names; an OSC wrapper runs inside them). The cost of one
# epoch is (total(K2) - total(K1)) / (K2 - K1): start-up and first-call costs cancel.
# From the same files, callgrind_annotate gives:
#   - each call's share (inclusive cost of PMPI_Win_lock, PMPI_Put, PMPI_Win_unlock);
#   - the instructions executed inside the monitoring code itself: the self cost of the
#     monitoring code (ours: mca_osc_mpimon.so + libmpimon_monitoring.so; Open MPI's:
#     common.sh, openmpi_monitoring_code: on 4.1 its plugins, libmca_common_monitoring.so
#     and libm, where its PML layer calls log10; on 5.0 its named functions in libmpi,
#     where its osc templates have no name: there its lock/put/unlock columns against
#     none's are the measure).
#
# Configurations (all with --mca btl self,vader on 4.1, self,sm on 5.0; Open MPI picks
# osc/rdma for this window on 4.1, its own choice on 5.0, printed with the table):
#   none          ours loaded as `mpimon run` loads them (mpimon env), pml_monitoring_enable 0
#   distro        Open MPI's own components: nothing of ours, pml_monitoring_enable 2
#   mpimon        ours (mpimon env: <BUILD_DIR>/lib/mpimon), pml_monitoring_enable 2
#                 (traffic only, like the distro's component: the default)
#   mpimon-timing ours with --mca osc_monitoring_sync_timing 1 (synchronisation calls
#                 also counted and timed, which the distro cannot do)
#   mpimon-waits  ours with --mca osc_monitoring_wait_states 1 (wait states detected:
#                 timing plus the exchange of timestamps through the shadow window)
#
# Second table, per epoch kind (the program's mode; 2 ranks, both taking part):
#   lock    MPI_Win_lock(EXCLUSIVE, 1) ; MPI_Put ; MPI_Win_unlock(1)   (rank 0 only)
#   fence   MPI_Put to the other rank ; MPI_Win_fence                   (both ranks)
#   pscw    MPI_Win_post(other) ; MPI_Win_start(other) ; MPI_Put ;
#           MPI_Win_complete ; MPI_Win_wait                            (both ranks)
# instructions executed inside our monitoring code (self cost, callgrind, as above: fence
# and PSCW epochs spin in Open MPI while waiting for the other rank, so their totals are
# not repeatable) and microseconds per epoch measured with MPI_Wtime over 20000 epochs
# without valgrind, median of 3 interleaved runs (wall clock: noisy on these shared
# machines, compare the ratios).
# After each run the callgrind output is checked to contain (or not) the expected
# monitoring library, so a component that silently failed to load cannot fake a result.
#
# It is a benchmark: it prints a table and how it compares with the targets (at most half
# of the distro's instructions inside monitoring code; issue 23: at most 30 per epoch
# with the default traffic-only monitoring), and exits 0 whatever the figures
# are (non-zero only when it cannot measure).
#
# Environment:
#   MPIMON_BENCH_KEEP=1      keep the callgrind files, program and logs
# OMPI_MCA_* variables of the caller are ignored (unset) so that results are comparable.
set -euo pipefail

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

K1=1000
K2=2000
configs=(none distro mpimon mpimon-timing mpimon-waits)
epoch_configs=(none mpimon mpimon-timing mpimon-waits)
epoch_modes=(lock fence pscw)
K_TIME=20000
run_timeout=300 # seconds per mpirun (a run takes ~2-4 s)

# ---------------------------------------------------------------- prerequisites
for tool in valgrind callgrind_annotate mpirun.openmpi mpicc.openmpi ompi_info timeout awk; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    case $tool in
      valgrind | callgrind_annotate) die "$tool not found: install valgrind (apt-get install valgrind); the measurement uses callgrind" ;;
      mpirun.openmpi | ompi_info) die "$tool not found: Open MPI (Debian's openmpi-bin) is required" ;;
      mpicc.openmpi) die "mpicc.openmpi not found: Debian's libopenmpi-dev is required to build the benchmark program" ;;
      *) die "$tool not found" ;;
    esac
  fi
done
valgrind --tool=callgrind --version >/dev/null 2>&1 || die "valgrind's callgrind tool does not run ('valgrind --tool=callgrind --version' fails)"

clean_mpi_environment

for f in mca_osc_mpimon.so mca_pml_mpimon.so libmpimon_monitoring.so; do
  [[ -f $plugindir/$f ]] || die "$plugindir/$f is missing: build mpimon first ('cmake --build $builddir')"
done
ompi_info_out=$(env -u OMPI_MCA_mca_base_component_path ompi_info --parsable 2>&1) ||
  die "ompi_info failed: $(head -n 3 <<<"$ompi_info_out")"
grep -qE '^mca:osc:monitoring:' <<<"$ompi_info_out" ||
  die "Open MPI's own osc/monitoring component is not found by ompi_info (Debian ships it in libopenmpi3 on 12, inside libmpi on 13); the 'distro' row needs it"

make_work_dir osc-overhead

# ---------------------------------------------------------------- benchmark program
cat >"$work/osc_epochs.c" <<'EOF'
/* K epochs of one synchronisation kind between the 2 ranks (see the script's header):
 *   osc_epochs <lock|fence|pscw> <K> [time]   ("time": rank 0 prints seconds per epoch) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void epoch(const char* mode, int rank, MPI_Group other, MPI_Win win, double* value) {
  int peer = 1 - rank;
  if (strcmp(mode, "lock") == 0) {
    if (rank != 0) return;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(value, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else if (strcmp(mode, "fence") == 0) {
    MPI_Put(value, 1, MPI_DOUBLE, peer, 0, 1, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
  } else {
    MPI_Win_post(other, 0, win);
    MPI_Win_start(other, 0, win);
    MPI_Put(value, 1, MPI_DOUBLE, peer, 0, 1, MPI_DOUBLE, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
  }
}
int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "lock";
  int k = argc > 2 ? atoi(argv[2]) : 1000, rank, size;
  int timing = argc > 3 && strcmp(argv[3], "time") == 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    fprintf(stderr, "osc_epochs: run on 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double memory[4] = {0}, value = 1;
  MPI_Win win;
  MPI_Win_create(memory, sizeof memory, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Group world, other;
  int peer = 1 - rank;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &peer, &other);
  if (strcmp(mode, "fence") == 0) MPI_Win_fence(0, win);
  epoch(mode, rank, other, win, &value); /* warm-up: first-use costs are the same for every K */
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int i = 0; i < k; ++i) epoch(mode, rank, other, win, &value);
  double seconds = MPI_Wtime() - start;
  MPI_Barrier(MPI_COMM_WORLD);
  if (memory[0] != 1 && (rank == 1 || strcmp(mode, "lock") != 0)) {
    fprintf(stderr, "osc_epochs: the put did not arrive\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  if (timing && rank == 0) printf("seconds per epoch %.9f\n", seconds / k);
  MPI_Group_free(&other);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
EOF
mpicc.openmpi -O2 -o "$work/osc_epochs" "$work/osc_epochs.c" 2>"$work/compile.log" ||
  { cat "$work/compile.log" >&2; die "compiling the benchmark program with mpicc.openmpi failed"; }
exe=$work/osc_epochs

# Only MPI_COMM_WORLD rank 0 (the origin) runs under callgrind; rank 1 runs natively.
wrapper=$work/rank0_callgrind.sh
write_rank0_callgrind_wrapper "$wrapper" PMPI_Win_lock PMPI_Put PMPI_Win_unlock PMPI_Win_fence PMPI_Win_post \
  PMPI_Win_start PMPI_Win_complete PMPI_Win_wait

snapshot_plugins "$work"
mpimon_environment "$snapdir"

# Sum of callgrind_annotate rows (self or inclusive) whose text matches an awk regex.
annotate_sum() { # FILE INCLUSIVE(yes|no) REGEX
  callgrind_annotate --auto=no --inclusive="$2" --threshold=100 "$1" 2>/dev/null |
    awk -v re="$3" '/^ *[0-9,]+ / && $0 ~ re { n = $1; gsub(",", "", n); s += n } END { printf "%d\n", s }'
}
# Self cost of our monitoring code and of Open MPI's (callgrind_objects.py selectors).
our_code="$snapdir/mca_osc_mpimon.so $snapdir/libmpimon_monitoring.so"
openmpi_code=$(openmpi_monitoring_code)

# The environment and MCA options of a configuration (sets envs, enable, extra).
config_options() { # CONFIG
  envs=(env -u OMPI_MCA_mca_base_component_path)
  extra=()
  enable=2
  case $1 in
    none) envs+=("${ours_env[@]}"); enable=0 ;;
    distro) ;;
    mpimon) envs+=("${ours_env[@]}") ;;
    mpimon-timing) envs+=("${ours_env[@]}"); extra=(--mca osc_monitoring_sync_timing 1) ;;
    mpimon-waits) envs+=("${ours_env[@]}"); extra=(--mca osc_monitoring_wait_states 1) ;;
  esac
}

# run_one CONFIG K [MODE] -> "total lock put unlock monitoring_self"
run_one() {
  local config=$1 k=$2 mode=${3:-lock}
  local tag=$config.$mode.$k
  local out=$work/callgrind.$tag log=$work/log.$tag
  local -a envs extra
  local enable
  config_options "$config"
  rm -f "$out"
  local rc=0
  (cd "$work" && "${envs[@]}" timeout "$run_timeout" mpirun.openmpi -np 2 "${btl_args[@]}" \
    --mca pml_monitoring_enable "$enable" "${extra[@]}" "$wrapper" "$out" "$exe" "$mode" "$k") >"$log" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    tail -n 20 "$log" >&2
    [[ $rc -eq 124 ]] && die "run timed out after ${run_timeout} s: $config, K=$k"
    die "run failed (exit status $rc): $config, K=$k${MPIMON_BENCH_KEEP:+ (log: $log)}"
  fi
  [[ -s $out ]] || { tail -n 20 "$log" >&2; die "no callgrind output for $config, K=$k"; }

  # The callgrind file names every object that executed code inside the measured calls.
  local objs ours_seen=0 distro_seen=0
  objs=$(grep -oE '/[^ ]*\.so[.0-9]*' "$out" | sort -u)
  grep -qxF "$snapdir/mca_osc_mpimon.so" <<<"$objs" && ours_seen=1
  openmpi_monitoring_ran "$out" osc && distro_seen=1
  # 5.0 builds Open MPI's osc/monitoring into libmpi as unnamed static templates: nothing
  # names it in the callgrind file (common.sh); there only the whole call tells it ran
  # (its lock/put/unlock columns against none's).
  [[ $config == distro && $ompi_version == 5.* ]] && distro_seen=1
  case $config:$ours_seen:$distro_seen in
    none:0:0 | distro:0:1 | mpimon:1:0 | mpimon-timing:1:0 | mpimon-waits:1:0) ;;
    none:*) die "config 'none' ran an OSC monitoring component inside the measured calls (pml_monitoring_enable 0 should disable it)" ;;
    distro:*) die "config 'distro': Open MPI's osc/monitoring did not run inside the measured calls (ours=$ours_seen)" ;;
    mpimon*) die "config '$config': our $plugindir/mca_osc_mpimon.so did not run inside the measured calls (distro=$distro_seen); does it load? try: OMPI_MCA_mca_base_component_path=$plugindir:SYS_DEFAULT:USER_DEFAULT ompi_info | grep 'osc: mpimon'" ;;
  esac

  local total lock put unlock self=0
  total=$(callgrind_total "$out")
  [[ $total =~ ^[0-9]+$ && $total -gt 0 ]] ||
    die "callgrind counted nothing for $config, K=$k (does --toggle-collect=PMPI_Win_lock match?)"
  lock=$(annotate_sum "$out" yes ':PMPI_Win_lock ')
  put=$(annotate_sum "$out" yes ':PMPI_Put ')
  unlock=$(annotate_sum "$out" yes ':PMPI_Win_unlock ')
  case $config in
    # shellcheck disable=SC2086
    distro) self=$(python3 "$here/callgrind_objects.py" "$out" $openmpi_code) ;;
    # shellcheck disable=SC2086
    mpimon*) self=$(python3 "$here/callgrind_objects.py" "$out" $our_code) ;;
  esac
  echo "$total $lock $put $unlock $self"
}

# seconds per epoch, native run (no valgrind): time_one CONFIG MODE -> seconds
time_one() {
  local config=$1 mode=$2 log=$work/time.$1.$2
  local -a envs extra
  local enable
  config_options "$config"
  (cd "$work" && "${envs[@]}" timeout "$run_timeout" mpirun.openmpi -np 2 "${btl_args[@]}" \
    --mca pml_monitoring_enable "$enable" "${extra[@]}" "$exe" "$mode" "$K_TIME" time) >"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; die "timing run failed: $config, $mode"; }
  sed -n 's/^seconds per epoch //p' "$log" | head -n1
}

declare -A per # [config.field] -> per epoch (decimal)
fields=(total lock put unlock self)
total_runs=$((${#configs[@]} * 2))
n=0
start=$SECONDS
for config in "${configs[@]}"; do
  printf '%s: runs %d-%d of %d: %-13s K=%d and %d\n' "$prog" $((n + 1)) $((n + 2)) "$total_runs" "$config" "$K1" "$K2" >&2
  n=$((n + 2))
  read -r -a a <<<"$(run_one "$config" "$K1")"
  read -r -a b <<<"$(run_one "$config" "$K2")"
  for i in "${!fields[@]}"; do
    per[$config.${fields[$i]}]=$(awk -v x="${a[$i]}" -v y="${b[$i]}" -v k1="$K1" -v k2="$K2" 'BEGIN {printf "%.2f", (y - x) / (k2 - k1)}')
  done
done
elapsed=$((SECONDS - start))

# ---------------------------------------------------------------- report
label() {
  case $1 in
    none) echo "none" ;;
    distro) echo "distro" ;;
    mpimon) echo "mpimon (default: traffic only)" ;;
    mpimon-timing) echo "mpimon, osc_monitoring_sync_timing 1" ;;
    mpimon-waits) echo "mpimon, osc_monitoring_wait_states 1" ;;
  esac
}

echo "## Instructions per passive-target epoch (MPI_Win_lock + 8-byte MPI_Put + MPI_Win_unlock)"
echo
echo "Open MPI ${ompi_version:-?}, btl self,$shm_btl, 2 ranks; callgrind Ir inside PMPI_Win_lock,"
echo "PMPI_Put and PMPI_Win_unlock of world rank 0, (total(K=$K2) - total(K=$K1)) / $((K2 - K1)), one epoch at a time."
echo "none: pml_monitoring_enable 0 | distro: Open MPI's osc/monitoring, enable 2 | mpimon: $plugindir (copied at start), enable 2"
echo "'inside monitoring code' = self cost of the monitoring code (distro: $openmpi_code; mpimon: mca_osc_mpimon.so +"
echo "libmpimon_monitoring.so)"
echo
echo "| configuration | epoch | lock | put | unlock | added vs none | inside monitoring code |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for config in "${configs[@]}"; do
  added=$(awk -v a="${per[$config.total]}" -v b="${per[none.total]}" 'BEGIN {printf "%.2f", a - b}')
  if [[ $config == none ]]; then added_text="-"; self_text="-"; else added_text=$(fmt "$added" +); self_text=$(fmt "${per[$config.self]}"); fi
  echo "| $(label "$config") | $(fmt "${per[$config.total]}") | $(fmt "${per[$config.lock]}") | $(fmt "${per[$config.put]}") | $(fmt "${per[$config.unlock]}") | $added_text | $self_text |"
done
echo
distro_self=${per[distro.self]}
limit=$(awk -v d="$distro_self" 'BEGIN {printf "%.2f", d / 2}')
echo "target: mpimon executes at most half of the distro's instructions inside monitoring code per epoch (<= $(fmt "$limit"))"
for config in mpimon mpimon-timing; do  # (wait states exchange timestamps: not held to this target)
  v=${per[$config.self]}
  verdict=$(awk -v a="$v" -v l="$limit" 'BEGIN {print (a <= l + 0.05) ? "PASS" : "MISS"}')
  ratio=$(awk -v a="$v" -v d="$distro_self" 'BEGIN {printf "%.2f", (d > 0) ? a / d : 0}')
  echo "- $(label "$config"): $(fmt "$v") (${ratio} x distro): $verdict"
done
v=${per[mpimon.self]}
echo "target (issue 23): at most 30 instructions inside monitoring code per epoch, traffic only: $(fmt "$v"): $(awk -v a="$v" 'BEGIN {print (a <= 30.05) ? "PASS" : "MISS"}')"

# ---------------------------------------------------------------- per epoch kind
declare -A epoch_self epoch_us # [config.mode]
start=$SECONDS
for mode in "${epoch_modes[@]}"; do
  for config in "${epoch_configs[@]}"; do
    if [[ $mode == lock ]]; then
      epoch_self[$config.$mode]=${per[$config.self]}  # the first table's epoch
    else
      note "epoch kind $mode: $config, K=$K1 and $K2"
      read -r -a a <<<"$(run_one "$config" "$K1" "$mode")"
      read -r -a b <<<"$(run_one "$config" "$K2" "$mode")"
      epoch_self[$config.$mode]=$(awk -v x="${a[4]}" -v y="${b[4]}" -v k1="$K1" -v k2="$K2" 'BEGIN {printf "%.2f", (y - x) / (k2 - k1)}')
    fi
  done
done
# Wall clock: every configuration and kind in turn, three rounds, the median of each.
declare -A us_runs
for round in 1 2 3; do
  for mode in "${epoch_modes[@]}"; do
    for config in "${epoch_configs[@]}"; do
      us_runs[$config.$mode]+="$(awk -v s="$(time_one "$config" "$mode")" 'BEGIN {printf "%.2f", s * 1e6}') "
    done
  done
done
for key in "${!us_runs[@]}"; do
  epoch_us[$key]=$(tr ' ' '\n' <<<"${us_runs[$key]}" | grep . | sort -g | sed -n 2p)
done
epoch_elapsed=$((SECONDS - start))
echo
echo "## One epoch of each synchronisation kind: instructions in monitoring code (rank 0) and wall clock"
echo
echo "lock: lock + put + unlock by rank 0; fence: put + fence by both ranks; pscw: post + start + put + complete +"
echo "wait by both ranks. Instructions: self cost of our objects (mca_osc_monitoring.so + libmpimon_monitoring.so)"
echo "inside the measured calls of rank 0, (total(K=$K2) - total(K=$K1)) / $((K2 - K1)) (the whole epoch, including"
echo "Open MPI's own code, is exact only for lock epochs, first table: fence and PSCW epochs spin while waiting for"
echo "the other rank). The MPI calls wait states add (a shadow put or an allreduce) run inside Open MPI and count in"
echo "the wall clock only: microseconds per epoch, MPI_Wtime over $K_TIME epochs without valgrind, median of 3"
echo "interleaved runs (noisy on these shared machines: compare the ratios)."
echo
echo "| configuration | lock: instructions | fence: instructions | pscw: instructions | lock: µs | fence: µs | pscw: µs |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for config in "${epoch_configs[@]}"; do
  row="| $(label "$config")"
  for mode in "${epoch_modes[@]}"; do
    if [[ $config == none ]]; then row+=" | -"; else row+=" | $(fmt "${epoch_self[$config.$mode]}")"; fi
  done
  for mode in "${epoch_modes[@]}"; do row+=" | $(fmt "${epoch_us[$config.$mode]}")"; done
  echo "$row |"
done
echo
echo "wait states: cost per epoch over synchronisation timing alone (osc_monitoring_sync_timing 1)"
for mode in "${epoch_modes[@]}"; do
  added=$(awk -v a="${epoch_self[mpimon-waits.$mode]}" -v b="${epoch_self[mpimon-timing.$mode]}" 'BEGIN {printf "%.2f", a - b}')
  extra_us=$(awk -v a="${epoch_us[mpimon-waits.$mode]}" -v b="${epoch_us[mpimon-timing.$mode]}" 'BEGIN {printf "%.2f", a - b}')
  ratio=$(awk -v a="${epoch_us[mpimon-waits.$mode]}" -v b="${epoch_us[mpimon-timing.$mode]}" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')
  echo "- $mode epoch: $(fmt "$added" +) instructions in monitoring code, $(fmt "$extra_us" +) µs (${ratio} x)"
done
echo
echo "($total_runs + $(( (${#epoch_modes[@]} - 1) * ${#epoch_configs[@]} * 2 )) callgrind runs and $(( 3 * ${#epoch_modes[@]} * ${#epoch_configs[@]} )) timing runs in $((elapsed + epoch_elapsed)) s)"
exit 0

