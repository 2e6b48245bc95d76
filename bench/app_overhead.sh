#!/usr/bin/env bash
# Whole-application overhead of monitoring, the paper's way (Bosilca et al., section 6.1:
# NAS BT/CG/LU monitored vs not): real applications from Debian, each run without
# monitoring (none), with Open MPI's own monitoring components (distro) and with mpimon,
# INTERLEAVED (none distro mpimon none distro mpimon ...) so that a slow phase of the
# shared machine hits all three; per metric the medians, the overhead of each monitored
# configuration against none (and of mpimon against distro) as the median of the
# per-repetition ratios with their minimum and maximum, the overhead of each
# configuration's best run against the best unmonitored one (the runs least disturbed by
# the load), the coefficient of variation of the unmonitored runs, the load average
# before and after, and each application's point-to-point messages per rank and per
# second (the paper's Table 1 columns).
#
#   bench/app_overhead.sh [--reps N] [--apps LIST] [--output FILE] [BUILD_DIR]
#
#   --reps N       interleaved repetitions (default 5; about 25 s each on 2 idle cores
#                  (estimated from single runs), 90 s at a load average of 7)
#   --apps LIST    comma-separated subset of lammps,hpcc,netpipe (default: all three)
#   --output FILE  also write the report to FILE (through a temporary file renamed at the
#                  end: an interrupted run leaves no FILE)
#
# Applications and the figure each run is judged by (its own output; the whole mpirun's
# wall time is always reported beside it, and is what remains if the figure is missing):
#   lammps   LAMMPS' melt example (/usr/share/lammps/examples/melt/in.melt, package
#            lammps-examples) with 1000 steps instead of 250, 4 ranks: "Loop time" [s]
#   hpcc     HPC Challenge (package hpcc), 4 ranks, HPL N = 500 (which sizes
#            RandomAccess: a table of 2^17 words) and one PTRANS matrix of 2000 x 2000:
#            MPIRandomAccess_GUPs [GUP/s] and PTRANS_GBs [GB/s] (HPCC runs all its tests;
#            these two are the communication-bound ones)
#   netpipe  NetPIPE (package netpipe-openmpi, NPopenmpi), 2 ranks, ping-pong of 1 to 64
#            bytes, 50000 round trips per size: the median over the sizes of the one-way
#            latency [us]
# 4 ranks on 2 cores run with mpi_yield_when_idle 1.
#
# Configurations (the same mpirun command; only the environment and MCA parameters differ):
#   none    plain mpirun: our plugins not in the path, no monitoring parameter
#   distro  Open MPI's own components (our plugins not in the path), pml_monitoring_enable 2
#           (only when ompi_info lists Open MPI's pml/monitoring)
#   mpimon  ours: the environment `mpimon env` prints (BUILD_DIR/lib/mpimon, copied at
#           start), pml_monitoring_enable 2, mpimon's defaults otherwise (job file, a time
#           series snapshot every 10 s)
# Both monitored configurations also write .prof files (pml_monitoring_enable_output 3,
# pml_monitoring_filename prof), which is how each run is checked to have been monitored
# by the component it claims: distro runs leave .prof files and no job file, mpimon runs a
# job file, none runs neither.
#
# It is a benchmark: it reports and asserts nothing. Exit status: 0 when every run
# worked; 1 when it cannot measure (an application, Open MPI, mpimon missing; a run
# monitored by the wrong component) or when a run failed (the table is still printed,
# with the number of runs per configuration). MPIMON_BENCH_KEEP=1 keeps every run's
# folder (logs, application output, job files); MPIMON_BENCH_MCA="name=value ..." adds MCA
# parameters to every configuration. OMPI_MCA_* variables of the caller are ignored.
set -euo pipefail

reps=5
apps_arg=lammps,hpcc,netpipe
output=
positional=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --reps)
      [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || { echo "app_overhead.sh: error: --reps needs a positive integer" >&2; exit 2; }
      reps=$2
      shift 2
      ;;
    --apps)
      [[ $# -ge 2 ]] || { echo "app_overhead.sh: error: --apps needs a list (lammps,hpcc,netpipe)" >&2; exit 2; }
      apps_arg=$2
      shift 2
      ;;
    --output)
      [[ $# -ge 2 && -n $2 ]] || { echo "app_overhead.sh: error: --output needs a file name" >&2; exit 2; }
      output=$2
      shift 2
      ;;
    -h | --help) positional+=("$1"); shift ;;
    -*) echo "app_overhead.sh: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) positional+=("$1"); shift ;;
  esac
done
set -- "${positional[@]}"

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

lammps_steps=1000
lammps_input=/usr/share/lammps/examples/melt/in.melt
hpcc_template=/usr/share/doc/hpcc/examples/_hpccinf.txt
hpcc_n=500
hpcc_ptrans_n=2000
netpipe_repeats=50000
run_timeout=600 # seconds per mpirun (a run takes a few seconds)

# ---------------------------------------------------------------- prerequisites
IFS=, read -r -a apps <<<"$apps_arg"
[[ ${#apps[@]} -gt 0 ]] || die "--apps: no application named"
for app in "${apps[@]}"; do
  case $app in
    lammps)
      command -v lmp >/dev/null 2>&1 || die "LAMMPS is not installed (no 'lmp' on PATH): run scripts/setup.sh (Debian package lammps)"
      [[ -r $lammps_input ]] || die "$lammps_input is missing: run scripts/setup.sh (Debian package lammps-examples)"
      ;;
    hpcc)
      command -v hpcc >/dev/null 2>&1 || die "HPCC is not installed (no 'hpcc' on PATH): run scripts/setup.sh (Debian package hpcc)"
      [[ -r $hpcc_template ]] || die "$hpcc_template is missing (it ships with the Debian package hpcc): reinstall hpcc"
      ;;
    netpipe)
      command -v NPopenmpi >/dev/null 2>&1 || die "NetPIPE is not installed (no 'NPopenmpi' on PATH): run scripts/setup.sh (Debian package netpipe-openmpi)"
      ;;
    *) die "--apps: unknown application '$app' (known: lammps, hpcc, netpipe)" ;;
  esac
done
for tool in mpirun.openmpi ompi_info timeout python3; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found (scripts/setup.sh installs what the benchmarks need)"
done
[[ -n $output && -d $output ]] && die "--output $output is a directory"
if [[ -n $output ]]; then
  output_dir=$(dirname "$output")
  [[ -d $output_dir && -w $output_dir ]] || die "--output: folder '$output_dir' does not exist or is not writable"
fi

clean_mpi_environment
configs=(none)
if env -u OMPI_MCA_mca_base_component_path ompi_info --parsable 2>/dev/null | grep -q '^mca:pml:monitoring:'; then
  configs+=(distro)
else
  note "Open MPI's own pml/monitoring is not found by ompi_info: no 'distro' configuration"
fi
configs+=(mpimon)

make_work_dir app-overhead
snapshot_plugins "$work"
mpimon_environment "$snapdir"

# Interrupted (Ctrl-C, SIGTERM): end the running job, leave no report under its final name.
child=
report_tmp=
cleanup() {
  set +e # everything below runs, whatever fails
  if [[ -n $child ]]; then
    kill -TERM "$child" 2>/dev/null
    wait "$child" 2>/dev/null
  fi
  [[ -z $report_tmp ]] || rm -f "$report_tmp"
  [[ ${MPIMON_BENCH_KEEP:-0} == 1 ]] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- inputs
if [[ " ${apps[*]} " == *" lammps "* ]]; then
  grep -qE '^run[[:space:]]+250[[:space:]]*$' "$lammps_input" ||
    die "$lammps_input has no line 'run 250' (another LAMMPS version?): cannot set the number of steps"
  sed -E "s/^run[[:space:]]+250[[:space:]]*\$/run $lammps_steps/" "$lammps_input" >"$work/in.melt"
fi
if [[ " ${apps[*]} " == *" hpcc "* ]]; then
  # Line 6: HPL's N; lines 33-34: the number of additional PTRANS sizes, and the sizes.
  if ! sed -n '6p' "$hpcc_template" | grep -q 'Ns$' ||
    ! sed -n '33p' "$hpcc_template" | grep -q 'additional problem sizes for PTRANS'; then
    die "$hpcc_template does not have HPL's Ns on line 6 and the PTRANS sizes on line 33 (another HPCC version?)"
  fi
  awk -v n="$hpcc_n" -v p="$hpcc_ptrans_n" '
    NR == 6 { printf "%-12s Ns\n", n; next }
    NR == 33 { print "1            Number of additional problem sizes for PTRANS"; next }
    NR == 34 { printf "%-12s values of N\n", p; next }
    { print }' "$hpcc_template" >"$work/hpccinf.txt"
fi

# ---------------------------------------------------------------- one run
results=$work/results.tsv
traffic=$work/traffic.tsv
: >"$results"
: >"$traffic"
failures=()
loads=()

record() { # APP METRIC UNIT BETTER CONFIG REP VALUE
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$results"
}

# run_app APP CONFIG REP: runs the job in its own folder, records its figures.
run_app() {
  local app=$1 config=$2 rep=$3
  local dir=$work/runs/$app.$config.$rep
  mkdir -p "$dir"
  local -a envs=(env -u OMPI_MCA_mca_base_component_path) mca=() cmd=() 
  local ranks=4
  case $config in
    none) ;;
    distro) mca=(--mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename prof) ;;
    mpimon)
      envs+=("${ours_env[@]}")
      mca=(--mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename prof)
      ;;
  esac
  case $app in
    lammps) cmd=(lmp -in "$work/in.melt" -log log.lammps -screen none) ;;
    hpcc)
      cp "$work/hpccinf.txt" "$dir/"
      cmd=(hpcc)
      ;;
    netpipe)
      ranks=2
      cmd=(NPopenmpi -l 1 -u 64 -p 0 -n "$netpipe_repeats" -o np.out)
      ;;
  esac
  # More ranks than cores: a waiting rank gives its core away.
  [[ $ranks -gt $(nproc) ]] && mca+=(--mca mpi_yield_when_idle 1)

  local load start end rc=0
  read -r load _ </proc/loadavg
  loads+=("$load")
  start=$(date +%s.%N)
  (cd "$dir" && exec "${envs[@]}" timeout "$run_timeout" mpirun.openmpi -np "$ranks" "${mca[@]}" "${cmd[@]}") \
    </dev/null >"$dir/log" 2>&1 &
  child=$!
  wait "$child" || rc=$?
  child=
  end=$(date +%s.%N)
  if [[ $rc -ne 0 ]]; then
    tail -n 15 "$dir/log" >&2
    note "$app ($config, repetition $rep) failed with exit status $rc (output above); not counted"
    failures+=("$app/$config/$rep: exit $rc")
    return
  fi

  # The component that monitored the run, by what it wrote.
  local job=0 profs
  [[ -e $dir/mpimon-job.txt ]] && job=1
  profs=$(find "$dir" -maxdepth 1 -name 'prof.*.prof' | wc -l)
  case $config:$job:$((profs > 0)) in
    none:0:0 | distro:0:1 | mpimon:1:*) ;;
    none:*) die "config 'none' ($app) was monitored (job file: $job, .prof files: $profs): is a monitoring variable set somewhere (an MCA parameter file)?" ;;
    distro:*) die "config 'distro' ($app): Open MPI's own components did not write .prof files (job file: $job, .prof files: $profs); see $dir/log" ;;
    mpimon:*) die "config 'mpimon' ($app): no mpimon-job.txt, our components did not monitor the run (try: ${ours_env[*]} ompi_info | grep monitoring)" ;;
  esac

  local wall
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", b - a}')
  record "$app" "wall time of mpirun" s lower "$config" "$rep" "$wall"
  # The paper's message counts (Table 1: messages per process and per second): the
  # point-to-point messages sent (E and I lines), as the monitored run's .prof files say.
  if [[ $config != none ]]; then
    awk -v app="$app" -v config="$config" -v rep="$rep" -v ranks="$ranks" -v wall="$wall" '
      ($1 == "E" || $1 == "I") { for (i = 2; i <= NF; i++) if ($i ~ /^msgs/) m += $(i - 1) }
      END { printf "%s\t%s\t%s\t%d\t%.0f\t%s\n", app, config, rep, ranks, m, wall }' "$dir"/prof.*.prof >>"$traffic"
  fi
  local value
  case $app in
    lammps)
      value=$(sed -n 's/^Loop time of \([0-9.eE+-]*\) on .*/\1/p' "$dir/log.lammps" 2>/dev/null | tail -n1)
      if [[ -n $value ]]; then record lammps "loop time (melt, $lammps_steps steps)" s lower "$config" "$rep" "$value"; else
        note "lammps ($config, $rep): no 'Loop time' in log.lammps; only its wall time counts"
      fi
      ;;
    hpcc)
      value=$(sed -n 's/^MPIRandomAccess_GUPs=//p' "$dir/hpccoutf.txt" 2>/dev/null | head -n1)
      if [[ -n $value ]]; then record hpcc "MPIRandomAccess" GUP/s higher "$config" "$rep" "$value"; else
        note "hpcc ($config, $rep): no MPIRandomAccess_GUPs in hpccoutf.txt; only its wall time counts"
      fi
      value=$(sed -n 's/^PTRANS_GBs=//p' "$dir/hpccoutf.txt" 2>/dev/null | head -n1)
      if [[ -n $value ]]; then record hpcc "PTRANS (n = $hpcc_ptrans_n)" GB/s higher "$config" "$rep" "$value"; else
        note "hpcc ($config, $rep): no PTRANS_GBs in hpccoutf.txt; only its wall time counts"
      fi
      ;;
    netpipe)
      # np.out: bytes, Mbps, one-way time in seconds printed to 10 ns only (0.00000017);
      # the time from the rate keeps its digits: bytes * 8 / Mbps microseconds. The median
      # over the sizes.
      value=$(awk 'NF == 3 && $2 > 0 {print $1 * 8 / $2}' "$dir/np.out" 2>/dev/null | sort -g |
        awk '{v[NR] = $1} END {if (NR) printf "%.4f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
      if [[ -n $value ]]; then record netpipe "latency, median of 1-64 B" us lower "$config" "$rep" "$value"; else
        note "netpipe ($config, $rep): no figures in np.out; only its wall time counts"
      fi
      ;;
  esac
  [[ ${MPIMON_BENCH_KEEP:-0} == 1 ]] || rm -rf "$dir"
}

# ---------------------------------------------------------------- the runs, interleaved
read -r load_before <<<"$(cut -d' ' -f1-3 /proc/loadavg)"
started=$(date -u +%FT%TZ)
seconds_start=$SECONDS
for ((rep = 1; rep <= reps; rep++)); do
  for app in "${apps[@]}"; do
    for config in "${configs[@]}"; do
      run_app "$app" "$config" "$rep"
    done
  done
  note "repetition $rep of $reps done ($((SECONDS - seconds_start)) s; load $(cut -d' ' -f1 /proc/loadavg))"
done
read -r load_after <<<"$(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- the report
[[ -s $results ]] || die "no run succeeded: nothing to report"
report=$work/report.md
load_seen=$(printf '%s\n' "${loads[@]}" | sort -g | awk '{v[NR] = $1} END {printf "min %s, median %s, max %s", v[1], v[int((NR + 1) / 2)], v[NR]}')
{
  echo "## Whole applications: none vs Open MPI's monitoring vs mpimon"
  echo
  echo "Open MPI ${ompi_version:-?}, $(nproc) cores, $reps interleaved repetitions ($(IFS=' '; echo "${configs[*]}"), ...), started $started, $((SECONDS - seconds_start)) s."
  echo "none: plain mpirun | distro: Open MPI's own monitoring, pml_monitoring_enable 2 | mpimon: \`mpimon env\` ($plugindir, copied at start), pml_monitoring_enable 2."
  echo "Monitored runs write .prof files at the end (pml_monitoring_enable_output 3); mpimon also its job file and time series (defaults)."
  echo "Overhead: cost(config) / cost(none) - 1 per repetition (cost: the time, or 1 / the rate), median [min, max] over the repetitions (mpimon vs distro: the same against distro's run); best runs: the best run of each configuration against the best of none (the load only slows runs down); CV: standard deviation / mean of the none runs; runs: successful runs per configuration."
  echo
  python3 "$here/app_overhead_table.py" "$results" "$traffic"
  echo
  echo "Load average (1, 5, 15 min): before $load_before; after $load_after; 1-min load at the start of each run: $load_seen."
  if [[ ${#failures[@]} -gt 0 ]]; then
    echo
    echo "Failed runs (not counted): ${failures[*]}"
  fi
} >"$report"
cat "$report"
if [[ -n $output ]]; then
  report_tmp=$(mktemp "$output.tmp.XXXXXX")
  cp "$report" "$report_tmp"
  chmod "$(printf '%o' $((0666 & ~$(umask))))" "$report_tmp" # mktemp's 0600 -> as a new file would be
  mv -f "$report_tmp" "$output"
  report_tmp=
  note "report written to $output"
fi
[[ ${#failures[@]} -eq 0 ]] || exit 1
