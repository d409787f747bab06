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
for ((i = 0; i < hosts; ++i)); do
  # The launcher's daemons may take a moment to go after it returns.
  for ((wait = 0; wait < 20; ++wait)); do
    left=$(ip netns pids "mpnh$i" 2>/dev/null | wc -l)
    [ "$left" -eq 0 ] && break
    sleep 0.5
  done
  [ "$left" -eq 0 ] || fail "$left processes left on mpnh$i after 10 s"
  files=$("$bed" exec "mpnh$i" sh -c 'ls /dev/shm | grep "^mpinotify" || true')
  [ -z "$files" ] || fail "left in mpnh$i's /dev/shm: $files"
done
echo "check_kill: nothing left on $hosts hosts"
