#!/usr/bin/env bash
# The project's C and C++ files in the style of .clang-format (clang-format 14: other
# versions format differently).
#   scripts/format.sh           formats every file in place
#   scripts/format.sh --check   changes nothing; lists the files that are not formatted
#                               and exits 1 if there are any (ctest: Style.ClangFormatClean)
# Files: what git tracks (*.c, *.cpp, *.h), or, outside a git checkout, the same found on
# disk; never the build folders, the fuzzing corpus or the test data.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  *)
    echo "usage: scripts/format.sh [--check]" >&2
    exit 2
    ;;
esac

formatter=""
for candidate in clang-format-14 clang-format; do
  if command -v "$candidate" >/dev/null && "$candidate" --version | grep -q 'version 14\.'; then
    formatter=$candidate
    break
  fi
done
if [[ -z $formatter ]]; then
  # Debian 13 ships no clang-format 14 (its own formats differently): the check is Debian
  # 12's (CI's). There, or with --check elsewhere, a missing formatter is said and skipped
  # (77: ctest's skip code for Style.ClangFormatClean); on Debian 12 it is an error.
  . /etc/os-release 2>/dev/null || true
  if [[ $check == 1 && "${ID:-}:${VERSION_ID:-}" != debian:12 ]]; then
    echo "format.sh: skipped: clang-format 14 is not installed on ${PRETTY_NAME:-this system} (the style check runs on Debian 12, where scripts/setup.sh installs clang-format-14)" >&2
    exit 77
  fi
  echo "format.sh: clang-format 14 not found (scripts/setup.sh installs Debian's clang-format-14)" >&2
  exit 2
fi

cd "$here"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.c' '*.cpp' '*.h' ':!:test/fuzz/corpus/**' ':!:test/data/**')
else
  mapfile -t files < <(find . \( -path './build*' -o -path ./test/fuzz/corpus -o -path ./test/data \) -prune -o \
    -type f \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) -print | sed 's|^\./||' | sort)
fi

if ((check == 0)); then
  "$formatter" -i --style=file "${files[@]}"
  exit 0
fi

# One run over every file; each difference is reported as "<file>:<line>:<col>: error: ...".
report=$("$formatter" --style=file --dry-run --Werror "${files[@]}" 2>&1 >/dev/null) || true
mapfile -t unformatted < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$report" | sort -u)
if [[ -n $report && ${#unformatted[@]} -eq 0 ]]; then
  echo "format.sh: $formatter failed:" >&2
  echo "$report" >&2
  exit 2
fi
if ((${#unformatted[@]})); then
  echo "format.sh: ${#unformatted[@]} file(s) not formatted with .clang-format:"
  printf '  %s\n' "${unformatted[@]}"
  echo "Fix: scripts/format.sh   (or: $formatter -i --style=file <file>...)"
  exit 1
fi
echo "format.sh: ${#files[@]} files formatted with .clang-format"
