#!/usr/bin/env bash
# Overlap of nonblocking collectives in the IMB-NBC manner: Open MPI's libnbc, libnbc with
# MPI_Test polling during the computation, and coll/splittree for S = 0..H, next to the
# split-tree model's prediction. Reports only.
#
#   bench/nbc_overlap.sh [BUILD_DIR]          (MPIMON_NBC_RANKS, _BYTES, _REPETITIONS: 4, 8388608, 10)
#
# mpimon_bench_nbc_overlap (nbc_overlap_bench.cpp) measures, for one collective: t_pure
# (MPI_I<coll> + MPI_Wait alone), t_CPU (computation sized to t_pure), t_ovrl (the
# collective, the computation, MPI_Wait), each the median over the repetitions (IMB: the
# mean) and the maximum over the ranks, and IMB-NBC's overlap = (t_pure + t_CPU - t_ovrl) / min(t_pure,
# t_CPU) clipped to [0, 1]. mpimon's own overlap of the overlapped runs is printed beside
# it, from the job file's nbc_overlap lines: byte-weighted over every rank (the share of
# the collective's bytes posted before MPI_Wait), and the lowest rank's (ranks that sent
# nothing of their own have none). The model's columns: equation 4's time
# (units: one buffer's transfer), and IMB's formula applied to the model's times, for the
# free cores this host has (coll/splittree's count) and, for comparison, for 2 free cores.
#
# Two placements: "spread", MPIMON_NBC_RANKS ranks over the cores (with 4 ranks on 2 cores
# no core is free, the model says S = H and progress threads share cores with ranks), and
# "free core": 2 ranks bound to core 0, core 1 left to the progress threads (the paper's
# premise, in miniature). Two shared cores cannot show the paper's 64-core speed-ups; what
# they can show is whether the collective's messages go out during the computation
# (mpimon's overlap) and, when the machine is quiet, IMB's figure. Timings vary from run to
# run and with the other sessions' load (printed).
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ranks=${MPIMON_NBC_RANKS:-4}
bytes=${MPIMON_NBC_BYTES:-8388608}
repetitions=${MPIMON_NBC_REPETITIONS:-10}
[[ -f $plugindir/mca_coll_splittree.so ]] || die "no $plugindir/mca_coll_splittree.so (build first)"
cmake --build "$builddir" --target mpimon_bench_nbc_overlap >/dev/null || die "cannot build mpimon_bench_nbc_overlap"
exe=$builddir/bin/mpimon_bench_nbc_overlap
clean_mpi_environment
make_work_dir nbc-overlap
snapshot_plugins "$work"
mpimon_environment "$snapdir"
export "${ours_env[@]}"

run() {  # collective alone|test extra-mca... -> "result ..." line
  local collective=$1 how=$2
  shift 2
  rm -f "$work/job.txt"
  # Every call followed: the overlap column is mpimon's exact figure.
  (cd "$work" && timeout 600 mpirun.openmpi -np "$ranks" --mca mpi_yield_when_idle 1 --mca pml_monitoring_enable 2 \
    --mca coll_monitoring_nbc_sampling 1 --mca pml_monitoring_job_file job.txt "$@" "$exe" "$collective" "$bytes" "$repetitions" "$how") >"$work/log" 2>&1 ||
    { tail -5 "$work/log" >&2; die "run failed: $collective $how $*"; }
  grep -h '^result\|cores free' "$work/log"
  # communicator <identity> overlapped <members>, then (second pass)
  # nbc_overlap <rank> <identity> <kind> <calls> <waited> <duration> <blocked> <bytes> <before> <mean> <histogram>
  awk -v kind="$collective" 'FNR == NR { if ($1 == "communicator" && $3 == "overlapped") id[$2] = 1; next }
    $1 == "nbc_overlap" && ($3 in id) && $4 == kind {
      bytes += $9; before += $10; if ($9 > 0) { r = $10 / $9; if (low == "" || r < low) low = r } }
    END { if (bytes > 0) printf "mpimon overall=%.3f lowest=%.3f\n", before / bytes, low; else print "mpimon overall=- lowest=-" }' \
    "$work/job.txt" "$work/job.txt" 2>/dev/null || echo "mpimon overall=- lowest=-"
}
field() { sed -n "s/.*$1=\([-0-9.]*\).*/\1/p" <<<"$2" | head -n1; }

placement() {  # name -> "ranks|mpirun options"
  case $1 in
    spread) echo "$ranks|" ;;
    free) echo "2|--cpu-set 0 --bind-to core" ;;
  esac
}

echo "## Nonblocking collectives: IMB-NBC overlap, $bytes bytes, $repetitions repetitions"
echo
echo "$(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for place in spread free; do
  IFS='|' read -r ranks_here options <<<"$(placement "$place")"
  # shellcheck disable=SC2206
  opts=($options)
  ranks_saved=$ranks
  ranks=$ranks_here
  height=$("$exe" model "$ranks" 0 | sed -n 's/.*H=\([0-9]*\).*/\1/p' | head -n1)
  free_cores=$(run ibcast alone "${opts[@]}" --mca coll_splittree_enable 1 --mca coll_splittree_verbose 1 |
    sed -n 's/.*, \([0-9]*\) of [0-9]* cores free.*/\1/p' | head -n1)
  free_cores=${free_cores:-0}
  model_here=$("$exe" model "$ranks" "$free_cores")
  model_two=$("$exe" model "$ranks" 2)
  echo
  echo "### $ranks ranks, placement '$place' ($free_cores core(s) free for progress threads; the model's S: $(field best_S "$model_here"), with 2 free: $(field best_S "$model_two"))"
  for collective in ibcast iallreduce; do
    echo
    echo "$collective:"
    echo
    echo "| configuration | t_pure (us) | t_CPU (us) | t_ovrl (us) | IMB overlap | mpimon overlap (all ranks / lowest rank) | model: time, IMB overlap ($free_cores free) | model (2 free) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    row() {
      local label=$1 model_s=$2 line how=$3
      shift 3
      local out
      out=$(run "$collective" "$how" "${opts[@]}" "$@")
      line="$(grep '^result' <<<"$out") $(grep '^mpimon' <<<"$out")"
      local here="-" two="-"
      if [[ $model_s != - ]]; then
        local m1 m2
        m1=$(grep "^model S=$model_s " <<<"$model_here")
        m2=$(grep "^model S=$model_s " <<<"$model_two")
        here="$(field pure "$m1"), $(field imb_overlap "$m1")"
        two="$(field pure "$m2"), $(field imb_overlap "$m2")"
        [[ -z $(field pure "$m1") ]] && here="inf, 0"
      fi
      echo "| $label | $(field pure_us "$line") | $(field cpu_us "$line") | $(field ovrl_us "$line") | $(field imb_overlap "$line") | $(sed -n 's/.*overall=\([-0-9.]*\).*/\1/p' <<<"$line") / $(sed -n 's/.*lowest=\([-0-9.]*\).*/\1/p' <<<"$line") | $here | $two |"
    }
    row "libnbc" - alone --mca coll_splittree_enable 0
    row "libnbc + MPI_Test every t_pure/16" - test --mca coll_splittree_enable 0
    for ((s = 0; s <= height; s++)); do
      row "split tree, S = $s" "$s" alone --mca coll_splittree_enable 1 --mca coll_splittree_levels "$s"
    done
  done
  ranks=$ranks_saved
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "IMB overlap: 1 = the computation hid the collective entirely. mpimon overlap: the share of the"
echo "collective's bytes posted before MPI_Wait (all ranks' bytes together; the lowest rank). The model's"
echo "time is in transfers of one buffer (equation 4; inf: no free core for the upper levels)."
