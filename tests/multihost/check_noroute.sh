#!/usr/bin/env bash
# Runs noroute_program on two hosts with the library's UCX (or, where the
# ctest entry forces ofi, libfabric's tcp provider: FI_TCP_IFACE=eth1) on
# a second network (eth1): first with every route in place, then after
# the second host lost its route there. Each run must end within BOUND
# seconds with every rank ok; then no process and no file of the library
# may be left.
# Usage: check_noroute.sh openmpi|mpich PROGRAM
set -uo pipefail
mpi=$1
program=$2
bound=${BOUND:-90}
bed=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)/multihost.sh
export MPINOTIFY_UCX_NET_DEVICES=eth1 MPINOTIFY_UCX_TLS=tcp,self
export MPINOTIFY_PEER_TIMEOUT=${MPINOTIFY_PEER_TIMEOUT:-10}

fail() {
  echo "check_noroute: $*" >&2
  exit 1
}

run() {
  local out
  out=$(mktemp)
  local start=$SECONDS
  timeout "$bound" "$bed" run "$mpi" 2 "$program" "$1" >"$out" 2>&1
  local rc=$?
  cat "$out"
  [ "$rc" -ne 124 ] || fail "$1: the job still ran after ${bound} s"
  [ "$(grep -c "^noroute_program: rank [0-9]*: ok" "$out")" -eq 2 ] ||
    fail "$1: not every rank was ok"
  [ "$rc" -eq 0 ] || fail "$1: the job ended with status $rc"
  echo "check_noroute: $1: every rank ok after $((SECONDS - start)) s"
}

"$bed" add-net || fail "cannot add the second network"
run reachable
"$bed" unroute mpnh1 || fail "cannot take mpnh1's route away"
run unreachable
"$bed" leftovers || fail "the job left something behind"
