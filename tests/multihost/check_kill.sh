#!/usr/bin/env bash
# Runs kill_program across the hosts that are up (one rank kills itself
# with SIGKILL) and checks: every rank reported, the job ended within
# BOUND seconds with a failure status (the launcher's abort), no process is
# left on any host, and no file of the library is left in any host's
# /dev/shm. Usage: check_kill.sh openmpi|mpich NP HOSTS PROGRAM
set -uo pipefail
mpi=$1
np=$2
hosts=$3
program=$4
bound=${BOUND:-60}
bed=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)/multihost.sh

fail() {
  echo "check_kill: $*" >&2
  exit 1
}

out=$(mktemp)
start=$SECONDS
timeout "$bound" "$bed" run --hosts "$hosts" "$mpi" "$np" "$program" >"$out" 2>&1
rc=$?
took=$((SECONDS - start))
cat "$out"
reported=$(grep -c "^kill_program: rank" "$out")
[ "$reported" -eq "$np" ] || fail "$reported of $np ranks reported"
grep "^kill_program: rank" "$out" | grep -q "spanning sm" && fail "sm served a window across hosts"
grep "^kill_program: rank" "$out" | grep -q "local sm" || fail "no host-local window was sm's"
[ "$rc" -ne 124 ] || fail "the job was still running after ${bound} s"
[ "$rc" -ne 0 ] || fail "the job ended with success after a SIGKILL"
echo "check_kill: the job ended after ${took} s with status $rc"
"$bed" leftovers || fail "the job left something behind"
