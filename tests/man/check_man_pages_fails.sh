#!/usr/bin/env bash
# Shows that scripts/check-man-pages.sh can fail: on copies of the header
# and the pages, it must pass as they are, then fail, naming the fault,
# on each of six deliberate breakages.
# Usage: check_man_pages_fails.sh SOURCE_DIR SCRATCH_DIR
set -uo pipefail
src=$1
scratch=$2
failures=0

# fresh: a clean copy of what the check reads, in $scratch/tree.
fresh() {
  rm -rf "$scratch/tree"
  mkdir -p "$scratch/tree/scripts" "$scratch/tree/docs" "$scratch/tree/include"
  cp "$src/scripts/check-man-pages.sh" "$scratch/tree/scripts/"
  cp -r "$src/docs/man" "$scratch/tree/docs/"
  cp "$src/include/mpi_notify.h" "$scratch/tree/include/"
}
# expect_failure NAME PATTERN [RENDER]: the check fails and says PATTERN
# (rendering the pages only where RENDER is yes).
expect_failure() {
  local out rc
  out=$(CHECK_MAN_PAGES_RENDER=${3:-no} bash "$scratch/tree/scripts/check-man-pages.sh" \
    "$scratch/tree" 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "FAIL: $1: the check passed"
    failures=$((failures + 1))
  elif ! grep -q -- "$2" <<<"$out"; then
    echo "FAIL: $1: the check failed without saying '$2':"
    echo "$out"
    failures=$((failures + 1))
  else
    echo "ok: $1"
  fi
}

# (Rendering every page is the man_pages test's part: here only the
# breakage that needs it renders.)
fresh
if ! CHECK_MAN_PAGES_RENDER=no bash "$scratch/tree/scripts/check-man-pages.sh" "$scratch/tree"; then
  echo "FAIL: the check fails on the untouched copy"
  exit 1
fi
man3=$scratch/tree/docs/man/man3

fresh
rm "$man3/MPI_Win_notify_threshold.3"
expect_failure "a function without a page" "MPI_Win_notify_threshold is declared in mpi_notify.h but has no page"

fresh
echo ".so man3/MPI_Get_notify_typo.3" >"$man3/PMPI_Get_notify.3"
expect_failure "a link to no page" "links to man3/MPI_Get_notify_typo.3, which does not exist"

fresh
sed -i 's/MPI_Count \\fIthreshold\\fP/int \\fIthreshold\\fP/' "$man3/MPI_Win_notify_threshold.3"
expect_failure "a synopsis unlike the header" "MPI_Win_notify_threshold: the synopsis of man3/MPI_Win_notify_threshold.3 differs"

fresh
printf '.SH NOTES\nA bad escape: \\[nosuchglyph].\n' >>"$man3/MPI_Get_notify.3"
expect_failure "a page groff warns about" "man3/MPI_Get_notify.3: man exited" yes

fresh
sed 's/Win_get_num_notify/Win_get_num_notes/g' "$man3/MPI_Win_get_num_notify.3" >"$man3/MPI_Win_get_num_notes.3"
expect_failure "a page of no function" "documents MPI_Win_get_num_notes, which mpi_notify.h does not declare"

fresh
sed -i 's/^MPINOTIFY_DECLARE_PAIR(Win_get_num_notify,/MPINOTIFY_DECLARE_PAIR(Win_get_num_notes, (MPI_Win win, int *count))\n&/' \
  "$scratch/tree/include/mpi_notify.h"
expect_failure "a function added to the header" "MPI_Win_get_num_notes is declared in mpi_notify.h but has no page"

rm -rf "$scratch/tree"
if [ $failures -ne 0 ]; then
  echo "man-pages check self-test: $failures failure(s)"
  exit 1
fi
echo "man-pages check self-test: passes on the pages, fails on each of six breakages"
