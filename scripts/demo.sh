#!/usr/bin/env bash
# Installs what is needed, builds the library (Open MPI), and runs the
# pipeline demo: blocks flow from rank 0 through every rank on notified
# puts. Extra arguments go to the demo: [blocks] [block_bytes].
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_ROOT:-$root/build}/demo
"$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMPINOTIFY_BUILD_TESTS=OFF \
  -DMPI_C_COMPILER=mpicc.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi >/dev/null
cmake --build "$build" -j "${JOBS:-2}"

# Open MPI refuses root unless told, and needs leave to run more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$build/tools/mpinotify-info" | sed -n '1,2p'
for np in 2 4; do
  echo "--- mpirun -n $np pipeline $*"
  mpirun.openmpi -n "$np" "$build/examples/pipeline" "$@"
done
