#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test: the unit tests and
# the conformance suite against Open MPI (also under its other one-sided
# components) and against MPICH, then the suite again under
# AddressSanitizer+UBSan (Open MPI; the memory-safety tests with MPICH
# too), the threaded tests under ThreadSanitizer, and the format check.
# Exits non-zero if anything failed. Build trees go to $BUILD_ROOT (build/).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_root=${BUILD_ROOT:-$root/build}
jobs=${JOBS:-2}
"$root/scripts/setup.sh" || exit 1

failed=()
summary=()

# run_suite <name> <cmake args...>: configure, build, ctest.
run_suite() {
  local name=$1
  shift
  local dir=$build_root/$name
  local start=$SECONDS
  echo "=== $name: configure and build"
  if ! cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
         -DMPINOTIFY_WERROR=ON "$@" >"$dir.configure.log" 2>&1; then
    cat "$dir.configure.log"
    failed+=("$name (configure)")
    return
  fi
  if ! cmake --build "$dir" -j "$jobs"; then
    failed+=("$name (build)")
    return
  fi
  echo "=== $name: test"
  if ! (cd "$dir" && ctest --output-on-failure --no-tests=error); then
    failed+=("$name (tests)")
  fi
  summary+=("$name: $((SECONDS - start)) s")
}

mkdir -p "$build_root"
# The suite across hosts (scripts/multihost.sh) needs network namespaces.
multihost=-DMPINOTIFY_TEST_MULTIHOST=ON
if ! why=$("$root/scripts/multihost.sh" available 2>&1); then
  echo "!!! SKIPPING the multi-host suite: $why"
  multihost=-DMPINOTIFY_TEST_MULTIHOST=OFF
  summary+=("multi-host suite SKIPPED: $why")
fi
# The network backends' repeats over tcp stop at three processes (over
# shared memory, with the same code of the library, they run at four);
# the whole suite under osc/pt2pt runs at three.
run_suite openmpi -DMPI_C_COMPILER=mpicc.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi \
  -DMPINOTIFY_TEST_TRANSPORT_NP="1;2;3" -DMPINOTIFY_TEST_HOST_SETTING_NP=3 "$multihost"
"$root/scripts/multihost.sh" down 2>/dev/null || true
# MPICH's ranks poll without yielding: four of them on two cores take
# longer than the rest of CI, so its suite runs at two and three (one
# process only targets itself, which the others do too; Open MPI runs it
# at one), and the network backends, whose transports are the library's
# own and the same under either MPI (Open MPI runs them at 1-4), at two,
# as do the runs where a peer stops answering. At three, where every
# collective waits for a rank the scheduler left out, only pmpi runs (its
# data and counters are MPICH's own RMA), without the tests of one pair
# at a time (threads, wait forms, datatypes, many windows), which run at
# two. The manual pages do not depend on the MPI: the Open MPI suite
# checks them.
run_suite mpich -DMPI_C_COMPILER=mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich \
  -DMPINOTIFY_TEST_NP="2;3" -DMPINOTIFY_TEST_NETWORK_NP=2 -DMPINOTIFY_TEST_PEER_TIMEOUT_NP=2 \
  -DMPINOTIFY_TEST_CROWDED_NP=3 -DMPINOTIFY_TEST_CROWDED_CONFIGS=pmpi \
  "-DMPINOTIFY_TEST_CROWDED_EXCLUDE=*Threads*:*WaitForms*:*Datatypes*:ManyLiveWindows*:PlainRmaMany*" \
  -DMPINOTIFY_BUILD_BENCH=OFF -DMPINOTIFY_TEST_MAN_PAGES=OFF
# Under AddressSanitizer: three processes (every test that runs at fewer
# runs there too, with more peers at once), the repeats over tcp and the
# runs where a peer stops answering at two.
run_suite asan -DMPI_C_COMPILER=mpicc.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi \
  -DMPINOTIFY_SANITIZE=address,undefined -DMPINOTIFY_TEST_NP=3 -DMPINOTIFY_TEST_TRANSPORT_NP=2 \
  -DMPINOTIFY_TEST_PEER_TIMEOUT_NP=2 \
  -DMPINOTIFY_BUILD_EXAMPLES=OFF -DMPINOTIFY_BUILD_BENCH=OFF -DMPINOTIFY_TEST_HOST_SETTINGS=OFF \
  -DMPINOTIFY_TEST_MAN_PAGES=OFF

# The memory-safety tests under AddressSanitizer with MPICH too: it frees
# generalized requests at other moments than Open MPI does. Only their
# files are built.
memory_safety_files="test_request_lifetimes.cpp;test_bad_input.cpp;test_thresholds.cpp"
memory_safety_files+=";test_threads.cpp;test_dynamic_ranges.cpp;test_fuzz.cpp;test_sync_targets.cpp"
memory_safety_files+=";test_wait_forms.cpp"
run_suite asan-mpich -DMPI_C_COMPILER=mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich \
  -DMPINOTIFY_SANITIZE=address,undefined -DMPINOTIFY_TEST_NP="2;3" -DMPINOTIFY_TEST_NETWORK_NP=2 \
  "-DMPINOTIFY_TEST_FILTER=*RequestLifetimes*:*BadInput*:*Threshold*:*DynamicRanges*:*Fuzz*:*SyncTargets*:*WaitForms*" \
  "-DMPINOTIFY_TEST_SOURCES=$memory_safety_files" \
  -DMPINOTIFY_BUILD_EXAMPLES=OFF -DMPINOTIFY_BUILD_BENCH=OFF -DMPINOTIFY_BUILD_TOOLS=OFF

# ThreadSanitizer on the MPI_THREAD_MULTIPLE tests (the network backends
# at two processes).
run_suite tsan -DMPI_C_COMPILER=mpicc.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi \
  -DMPINOTIFY_SANITIZE=thread -DMPINOTIFY_TEST_NP="2;3" -DMPINOTIFY_TEST_NETWORK_NP=2 \
  "-DMPINOTIFY_TEST_FILTER=*Thread*" \
  -DMPINOTIFY_TEST_SOURCES=test_threads.cpp \
  -DMPINOTIFY_BUILD_EXAMPLES=OFF -DMPINOTIFY_BUILD_BENCH=OFF -DMPINOTIFY_TEST_HOST_SETTINGS=OFF

echo "=== format check"
if ! "$root/scripts/check-format.sh"; then failed+=("format")
fi

echo "=== summary"
for line in "${summary[@]}"; do echo "  $line"; done
if [ ${#failed[@]} -ne 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all passed"
