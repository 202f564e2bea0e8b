#!/usr/bin/env bash
# Formats C++ files in place with clang-format 14 and the repository's
# .clang-format: the files given, or every tracked *.h, *.cc and *.cpp file
# (git ls-files, so build folders and untracked files are never touched).
# With --check it changes nothing, names the files that differ and fails
# (scripts/check-format.sh, which CI runs, is that).
#
#   scripts/format.sh                          # every tracked C++ file
#   scripts/format.sh src/core/status.cc ...   # just these
#   scripts/format.sh --check [FILE...]
#
# Only clang-format 14 is accepted: other versions lay the same code out
# differently. CLANG_FORMAT names another binary of version 14.
set -euo pipefail

check=false
if [[ ${1:-} == --check ]]; then
  check=true
  shift
fi

export CLANG_FORMAT="${CLANG_FORMAT:-clang-format-14}"
if ! version=$("$CLANG_FORMAT" --version 2>/dev/null); then
  echo "format: $CLANG_FORMAT not found; scripts/install-deps.sh installs Debian's clang-format-14" >&2
  exit 2
fi
if [[ ! $version =~ version\ 14\. ]]; then
  echo "format: needs clang-format 14, $CLANG_FORMAT is: $version" >&2
  exit 2
fi

files=("$@")
if ((${#files[@]} == 0)); then
  cd "$(dirname "$0")/.."
  if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "format: not a git checkout; name the files to format or check" >&2
    exit 2
  fi
  while IFS= read -r -d '' f; do
    if [[ -f $f ]]; then files+=("$f"); fi  # a deleted file stays tracked until committed
  done < <(git ls-files -z -- '*.h' '*.cc' '*.cpp')
fi
((${#files[@]})) || exit 0

if ! $check; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 50 -P 2 "$CLANG_FORMAT" -i
  exit 0
fi

# Prints those of its files that clang-format would change. One process per
# batch of files, as one per file takes eight times as long.
unformatted_in() {
  local out
  out=$("$CLANG_FORMAT" --dry-run -Werror --ferror-limit=1 "$@" 2>&1) && return 0
  # Each file's first difference is reported as "FILE:LINE:COL: error: code should be clang-formatted".
  if ! sed -n 's/^\(.*\):[0-9][0-9]*:[0-9][0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$out" | grep .; then
    printf '%s\n' "$out" >&2
    return 255  # not a difference: clang-format itself failed, and xargs stops
  fi
}
export -f unformatted_in
if ! unformatted=$(printf '%s\0' "${files[@]}" | xargs -0 -n 50 -P 2 bash -c 'unformatted_in "$@"' _); then
  echo "check-format: clang-format failed (see above)" >&2
  exit 2
fi
if [[ -n $unformatted ]]; then
  sort <<<"$unformatted"
  echo "check-format: $(wc -l <<<"$unformatted") of ${#files[@]} C++ files differ from .clang-format;" \
    "fix them with scripts/format.sh (all files) or scripts/format.sh FILE..." >&2
  exit 1
fi
echo "check-format: ${#files[@]} C++ files checked, all match .clang-format"
