#!/usr/bin/env bash
# Fails when a tracked C++ file (or one of the files given) differs from what
# clang-format 14 makes of it with .clang-format, and names those files;
# scripts/format.sh fixes them. CI runs it first: it takes a few seconds.
exec "$(dirname "$0")/format.sh" --check "$@"
