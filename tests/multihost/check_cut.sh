#!/usr/bin/env bash
# Runs cut_program on two hosts (one rank each, each streaming to the
# other), takes the second host's link down once both stream, and checks:
# - within BOUND seconds of the cut every rank process has ended (each
#   rank's flush fails with an MPI error after MPINOTIFY_PEER_TIMEOUT, and
#   it aborts), and the first host's rank said so;
# - once the link is back (the launcher cannot reach the cut host's daemon
#   before that), the job ends with a failure status, every rank reported
#   its MPI error and none reported a silent stall;
# - no process and no file of the library is left on any host.
# Usage: check_cut.sh openmpi|mpich PROGRAM
set -uo pipefail
mpi=$1
program=$2
bound=${BOUND:-60}
bed=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)/multihost.sh
out=$(mktemp)
job=

fail() {
  echo "check_cut: $*" >&2
  [ -f "$out" ] && cat "$out" >&2
  [ -n "$job" ] && kill "$job" 2>/dev/null
  exit 1
}

# The program's processes still alive on host $1.
ranks_on() {
  ip netns pids "$1" 2>/dev/null | xargs -r ps -o comm= -p 2>/dev/null | grep -c "^cut_program" || true
}

# Rank stalls longer than this print SILENT (no error, no progress).
"$bed" run "$mpi" 2 "$program" $((bound * 2)) >"$out" 2>&1 &
job=$!
for ((wait = 0; wait < 600; ++wait)); do
  [ "$(grep -c "^cut_program: rank [0-9]* streams" "$out")" -eq 2 ] && break
  kill -0 "$job" 2>/dev/null || fail "the job ended before both ranks streamed"
  sleep 0.1
done
[ "$(grep -c "^cut_program: rank [0-9]* streams" "$out")" -eq 2 ] || fail "the ranks did not stream within 60 s"

"$bed" cut mpnh1
cut_at=$SECONDS
until [ "$(ranks_on mpnh0)" -eq 0 ] && [ "$(ranks_on mpnh1)" -eq 0 ]; do
  [ $((SECONDS - cut_at)) -le "$bound" ] || {
    "$bed" mend mpnh1
    fail "rank processes still ran ${bound} s after the cut"
  }
  sleep 0.5
done
ended_after=$((SECONDS - cut_at))
grep -q "^cut_program: rank 0: MPI_Win_flush failed" "$out" ||
  fail "the rank on the uncut host ended without reporting an MPI error"

"$bed" mend mpnh1
mend_at=$SECONDS
while kill -0 "$job" 2>/dev/null; do
  [ $((SECONDS - mend_at)) -le 90 ] || fail "the launcher still ran 90 s after the link came back"
  sleep 0.5
done
wait "$job"
rc=$?
job=
cat "$out"
grep -q "SILENT" "$out" && fail "a rank stalled without an error"
failures=$(grep -c "^cut_program: rank [0-9]*: MPI_Win_flush failed" "$out")
[ "$failures" -eq 2 ] || fail "$failures of 2 ranks reported the MPI error"
[ "$rc" -ne 0 ] || fail "the job ended with success after a cut link"
echo "check_cut: every rank ended within ${ended_after} s of the cut; the launcher, cut off from" \
  "one host's daemon, ended $((SECONDS - mend_at)) s after the link came back, status $rc"
"$bed" leftovers || fail "the job left something behind"
