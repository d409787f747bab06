#!/usr/bin/env bash
# Builds the benchmarks (Release) and runs one suite on two ranks pinned to
# different cores, against Open MPI (default) or MPICH (--mpich).
#   bench/run.sh [--mpich] [--suite sm|sm-gap|wait|cycle|putflag|ucx-posix|ucx-tcp|ucx-hosts|ofi-shm|ofi-tcp|dynamic|plain|exchange]
#                [--np N] [--json] [--quick] [--limited] [--footprint] [--size=BYTES] [--kind=tag|notified]
#                [--interleaved] [--backends=LIST] [--only=VARIANT] [--plot DIR]
# sm (default): notify_bench, the sm backend against raw shared memory.
# sm-gap: sm_gap_bench, the sm put and poll swapped one at a time for the
# raw stores and loads they end in (where sm's one-way time goes).
# wait: wait_bench, the ways of waiting for a notification (poll,
# threshold + MPI_Wait, + an MPI_Test loop, MPI_Waitany over four) on every
# backend (ucx over posix, ofi over shm), against send/recv and put+flag,
# and MPI_Wait on a receive with a threshold request pending against the
# host's own; --np 4: two pairs on the two cores.
# cycle: cycle_bench, a ping-pong whose buffers cycle through a region
# larger than a cache (IMB-ASYNC's pattern), notified puts against
# send/recv, every size from 8 B to 4 MiB, with pages touched before and
# touched first in the timed loop.
# putflag: putflag_bench, MPI_Put + flush + flag accumulate + flush on
# plain MPI, built without the library and with it, five alternated
# launches of each: what the library adds to the pattern.
# ucx-posix, ucx-tcp: ucx_bench, the ucx backend against raw UCP, with UCX
# (and the host MPI's own transport) on shared memory or on tcp.
# ucx-hosts: ucx_bench with the two ranks on two hosts of the multi-host
# test bed (scripts/multihost.sh, root), everything over tcp on its bridge.
# ofi-shm, ofi-tcp: ofi_bench, the ofi backend against raw libfabric, ucx
# and pmpi, with that libfabric provider (and UCX, and the host MPI's own
# transport, on shared memory or on tcp to match).
# dynamic: dynamic_bench, puts on dynamic windows (their range check)
# against puts on MPI_Win_create windows, every backend.
# plain: plain_rma_bench, plain puts, gets, flushes and lock/unlock on
# windows of every backend against the host's own window.
# exchange: exchange_bench, the message exchange's shuffle, tag-based
# against notified, on the backend MPINOTIFY_BACKEND names (default: the
# library's choice); --np N ranks (above 2 they share the cores unbound);
# --limited: the shuffle under a 64 MiB receive limit; --footprint: the
# memory an exchange of each kind holds per rank and peer; --size=BYTES (may
# repeat): those payload sizes only; --kind=tag or notified: that one only;
# --interleaved: a round of each kind in turn (default: all of tag first).
# Prints a table with ratios against the floor and each baseline; with
# --json, one JSON object per result; with --plot DIR, the JSON results go
# to DIR/SUITE.json and bench/plot.py draws them as DIR/SUITE/METRIC.svg.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mpi=openmpi
suite=sm
np=2
plot=
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --mpich) mpi=mpich ;;
    --suite) suite=${2:-}; shift ;;
    --np) np=${2:-2}; shift ;;
    --plot) plot=${2:?--plot needs a directory}; shift ;;
    --json | --quick | --limited | --footprint | --interleaved | --size=* | --kind=* | --backends=* | --only=*)
      args+=("$1") ;;
    *) echo "usage: bench/run.sh [--mpich] [--suite sm|sm-gap|wait|cycle|putflag|ucx-posix|ucx-tcp|ucx-hosts|ofi-shm|ofi-tcp|dynamic|plain|exchange] [--np N] [--json] [--quick] [--limited] [--footprint] [--size=BYTES] [--kind=tag|notified] [--interleaved] [--backends=LIST] [--only=VARIANT] [--plot DIR]" >&2
       exit 2 ;;
  esac
  shift
done

case "$suite" in
  sm) program=notify_bench ;;
  sm-gap) program=sm_gap_bench ;;
  wait) program=wait_bench; export UCX_TLS=posix,cma,self MPINOTIFY_OFI_PROVIDER=shm ;;
  cycle) program=cycle_bench ;;
  putflag) program=putflag_bench_host ;;
  ucx-posix) program=ucx_bench; export UCX_TLS=posix,cma,self ;;
  dynamic) program=dynamic_bench; export UCX_TLS=posix,cma,self ;;
  plain) program=plain_rma_bench; export UCX_TLS=posix,cma,self ;;
  exchange) program=exchange_bench ;;
  ucx-tcp)
    program=ucx_bench
    export UCX_TLS=tcp,self
    # Open MPI's own RMA and messages over tcp too (its shared-memory
    # one-sided component would otherwise serve the host baselines).
    export OMPI_MCA_btl=tcp,self OMPI_MCA_osc=pt2pt
    ;;
  ofi-shm) program=ofi_bench; export MPINOTIFY_OFI_PROVIDER=shm UCX_TLS=posix,cma,self ;;
  ofi-tcp)
    program=ofi_bench
    export MPINOTIFY_OFI_PROVIDER=tcp UCX_TLS=tcp,self
    export OMPI_MCA_btl=tcp,self OMPI_MCA_osc=pt2pt
    ;;
  ucx-hosts)
    program=ucx_bench
    export UCX_TLS=tcp,self
    # Debian's Open MPI has no one-sided component for windows across hosts
    # by default (docs/usage.md, "Across hosts").
    export OMPI_MCA_osc=sm,pt2pt
    ;;
  *) echo "bench/run.sh: unknown suite '$suite'" >&2; exit 2 ;;
esac

"$root/scripts/setup.sh" >&2
build=${BUILD_ROOT:-$root/build}/bench-$mpi
if [ "$mpi" = mpich ]; then
  cmake_mpi=(-DMPI_C_COMPILER=mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich)
  binding=(-bind-to core)
  [ "$np" -gt 2 ] && binding=(-bind-to none)
  launch=(mpiexec.mpich -n "$np" "${binding[@]}")
else
  cmake_mpi=(-DMPI_C_COMPILER=mpicc.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi)
  binding=(--bind-to core --map-by core)
  [ "$np" -gt 2 ] && binding=(--bind-to none --oversubscribe)
  # (Local ranks inherit the environment set above.)
  launch=(mpirun.openmpi -n "$np" "${binding[@]}")
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMPINOTIFY_BUILD_TESTS=OFF \
  -DMPINOTIFY_BUILD_EXAMPLES=OFF "${cmake_mpi[@]}" >&2
cmake --build "$build" --target "$program" -j "${JOBS:-2}" >&2
if [ "$suite" = putflag ]; then
  cmake --build "$build" --target putflag_bench_library -j "${JOBS:-2}" >&2
  for ((i = 0; i < 5; i++)); do
    for variant in host library; do
      echo "$variant $("${launch[@]}" "$build/bench/putflag_bench_$variant" "${args[@]}")"
    done
  done | python3 -c '
import collections, statistics, sys
runs = collections.defaultdict(lambda: collections.defaultdict(list))
for line in sys.stdin:
    words = line.split()
    for name, value in zip(words[1::2], words[2::2]):
        runs[words[0]][name].append(float(value))
for name in ("putflag_us", "sendrecv_us"):
    host = statistics.median(runs["host"][name])
    library = statistics.median(runs["library"][name])
    print(f"{name:12} host {host:8.3f}  library {library:8.3f}  library/host {library / host:.2f}")
'
  exit
fi
run() {
  if [ "$suite" = ucx-hosts ]; then
    "$root/scripts/multihost.sh" with 2 -- \
      "$root/scripts/multihost.sh" run "$mpi" 2 "$build/bench/$program" "$@"
  else
    "${launch[@]}" "$build/bench/$program" "$@"
  fi
}
if [ -z "$plot" ]; then
  run "${args[@]}"
  exit
fi
mkdir -p "$plot"
run "${args[@]}" --json | tee "$plot/$suite.json"
python3 "$root/bench/plot.py" "$plot/$suite" "$suite=$plot/$suite.json"
