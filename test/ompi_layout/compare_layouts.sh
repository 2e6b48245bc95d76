#!/usr/bin/env bash
# compare_layouts.sh <layout_facts built one way> <built the other way>: equal outputs,
# and enough of them to mean something (test/ompi_layout/CMakeLists.txt).
set -euo pipefail
a="$("$1")"
b="$("$2")"
lines="$(printf '%s\n' "$a" | wc -l)"
if ((lines < 50)); then
  echo "only $lines lines from $1" >&2
  exit 1
fi
if [ "$a" != "$b" ]; then
  echo "layouts differ (< from the source tree's headers, > from the installed ones):"
  diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") || true
  exit 1
fi
echo "$lines sizes and offsets equal, e.g.:"
printf '%s\n' "$a" | grep -E '^(OPAL_ENABLE_DEBUG|sizeof\((opal_object_t|ompi_request_t|ompi_communicator_t)\))'
