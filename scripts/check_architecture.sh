#!/usr/bin/env bash
# The rules of docs/architecture.md that a machine can check (ctest: Architecture.Rules):
#   1. only Open MPI glue (files named *_ompi.*, runtime/ompi_glue.h, and the per-series
#      adapter folders runtime/ompi-<major>.<minor>/, which exist to hold it) in
#      ompi/mca/common/monitoring includes MPI's or Open MPI's headers: the engine,
#      formats, files, analyses and readers compile without them;
#   2. the runtime library every MPI process loads holds no reader: no function defined by
#      the readers library is in libmpimon_monitoring.so;
#   3. the user-side command never links Open MPI;
#   4. every other library an MPI process loads (our plugins, libmpimon_reorder.so, the event
#      logger, the events library) exports only its interface (a plugin: its component
#      symbol; reorder: mpimon_reorder*; the logger: MPI_*) and links none of the tools'
#      libraries (Scotch): tool-side code reaches an MPI process only as the static, hidden
#      readers and placement core inside libmpimon_reorder.so; nor SQLite (the site index is
#      the mpimon command's: docs/site-deployment.md), not even libmpimon_monitoring.so.
# Usage: scripts/check_architecture.sh <libmpimon_monitoring.so> <libmpimon_readers.a> <mpimon> [<in-process library>...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 3 ]]; then
  echo "usage: scripts/check_architecture.sh <libmpimon_monitoring.so> <libmpimon_readers.a> <mpimon> [<in-process library>...]" >&2
  exit 2
fi
runtime_library=$1 readers_library=$2 tool=$3
shift 3
in_process=("$@")
for f in "$runtime_library" "$readers_library" "$tool" "${in_process[@]}"; do
  [[ -f $f ]] || { echo "check_architecture.sh: $f does not exist (build it first)" >&2; exit 2; }
done
failed=0

# 1. Open MPI only in the glue.
root=$here/ompi/mca/common/monitoring
glue_include='#include[[:space:]]*(<mpi\.h>|<ompi[/_]|<opal/|<pmix|"runtime/ompi_glue\.h"|"mpit_events_producer\.h"|"[^"]*_ompi\.h")'
while IFS= read -r file; do
  name=$(basename "$file")
  [[ $name == *_ompi.* || $name == ompi_glue.h ]] && continue
  [[ $file == "$root"/runtime/ompi-[0-9]*.[0-9]*/* ]] && continue
  if grep -Eq "$glue_include" "$file"; then
    echo "rule 1: ${file#"$here"/} includes Open MPI or MPI but is not named *_ompi.*:"
    grep -En "$glue_include" "$file" | sed 's/^/    /'
    failed=1
  fi
done < <(find "$root" -type f \( -name '*.h' -o -name '*.cpp' \) | sort)

# 2. No reader in the runtime library.
readers=$(nm -C --defined-only "$readers_library" 2>/dev/null | awk '$2 == "T" { $1 = ""; $2 = ""; sub(/^  /, ""); print }' | sort -u)
[[ -n $readers ]] || { echo "check_architecture.sh: no function found in $readers_library" >&2; exit 2; }
runtime=$(nm -C --defined-only "$runtime_library" | awk '$2 == "T" || $2 == "t" { $1 = ""; $2 = ""; sub(/^  /, ""); print }' | sort -u)
both=$(comm -12 <(echo "$readers") <(echo "$runtime"))
if [[ -n $both ]]; then
  echo "rule 2: $(basename "$runtime_library") holds reader functions (link them into mpimon_readers only):"
  sed 's/^/    /' <<<"$both"
  failed=1
fi

# 3. The tools never link Open MPI.
if linked=$(ldd "$tool" | grep -E 'lib(mpi|open-pal|open-rte)\.so'); then
  echo "rule 3: $(basename "$tool") links Open MPI:"
  sed 's/^/    /' <<<"$linked"
  failed=1
fi

# 4. What else an MPI process loads exports only its interface, and no tool library.
for library in "${in_process[@]}"; do
  name=$(basename "$library")
  case $name in
    mca_*_*.so)
      component=${name%.so}
      allowed="^${component}_component\$" ;;
    libmpimon_reorder.so*) allowed='^(mpimon_reorder[a-z0-9_]*|__mpimon_MOD_[a-z0-9_]+)$' ;;
    libmpimon_event_logger.so*) allowed='^MPI_[A-Za-z0-9_]+$' ;;
    *) allowed='' ;;  # shared by our plugins (the engine, the events library): any export
  esac
  if [[ -n $allowed ]]; then
    extra=$(nm -D --defined-only "$library" | awk '$2 ~ /^[TDBRVWi]$/ { print $3 }' | grep -Ev "$allowed" | sort -u || true)
    if [[ -n $extra ]]; then
      echo "rule 4: $name exports more than its interface:"
      head -20 <<<"$extra" | sed 's/^/    /'
      failed=1
    fi
  fi
  if linked=$(ldd "$library" | grep -E 'libscotch|libCLI11|libsqlite3'); then
    echo "rule 4: $name, loaded by MPI processes, links a tool library:"
    sed 's/^/    /' <<<"$linked"
    failed=1
  fi
done

if linked=$(ldd "$runtime_library" | grep -E 'libsqlite3'); then
  echo "rule 4: $(basename "$runtime_library"), loaded by MPI processes, links SQLite:"
  sed 's/^/    /' <<<"$linked"
  failed=1
fi

if ((failed)); then
  echo "See docs/architecture.md (Rules)."
  exit 1
fi
echo "check_architecture.sh: the glue naming rule, no reader in $(basename "$runtime_library") ($(wc -l <<<"$readers") reader functions checked), $(basename "$tool") without Open MPI, ${#in_process[@]} in-process libraries export only their interface: OK"
