#!/usr/bin/env bash
# Fails when a C/C++ source differs from what clang-format makes of it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
clang-format --dry-run --Werror "${files[@]}"
echo "format: ${#files[@]} files clean"
