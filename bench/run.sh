#!/usr/bin/env bash
# Builds the benchmarks (Release) and runs them on two ranks pinned to
# different cores, against Open MPI (default) or MPICH (--mpich).
#   bench/run.sh [--mpich] [--json] [--quick]
# Prints a table with ratios against the raw shared-memory floor and each
# baseline; with --json, one JSON object per result.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mpi=openmpi
args=()
for a in "$@"; do
  case "$a" in
    --mpich) mpi=mpich ;;
    --json | --quick) args+=("$a") ;;
    *) echo "usage: bench/run.sh [--mpich] [--json] [--quick]" >&2; exit 2 ;;
  esac
done

"$root/scripts/setup.sh" >&2
build=${BUILD_ROOT:-$root/build}/bench-$mpi
if [ "$mpi" = mpich ]; then
  cmake_mpi=(-DMPI_C_COMPILER=mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich)
  launch=(mpiexec.mpich -n 2 -bind-to core)
else
  cmake_mpi=(-DMPI_C_COMPILER=mpicc.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi)
  launch=(mpirun.openmpi -n 2 --bind-to core --map-by core)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMPINOTIFY_BUILD_TESTS=OFF \
  -DMPINOTIFY_BUILD_EXAMPLES=OFF "${cmake_mpi[@]}" >&2
cmake --build "$build" --target notify_bench -j "${JOBS:-2}" >&2
"${launch[@]}" "$build/bench/notify_bench" "${args[@]}"
