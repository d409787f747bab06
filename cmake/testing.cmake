# How MPI tests are registered: mpiexec with a TIMEOUT, so a stuck rank
# fails the test instead of hanging the run.

# Environment of every MPI test: Open MPI as root and oversubscribed (both
# harmless to MPICH), the counter memory limit the out-of-memory tests
# rely on, and GoogleTest's brief output (failures and the summary only),
# so that a failing run's log shows its failure rather than a list of
# passed tests.
set(MPINOTIFY_TEST_ENV
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  MPINOTIFY_COUNTER_MEMORY_LIMIT=67108864 GTEST_BRIEF=1)
if(MPINOTIFY_SANITIZE MATCHES "address")
  # Leak checking on: the host MPI's own leaks are suppressed by module name,
  # which needs its components kept mapped (nodlclose) and full unwinding.
  add_library(mpinotify_nodlclose SHARED ${PROJECT_SOURCE_DIR}/tests/support/nodlclose.c)
  list(APPEND MPINOTIFY_TEST_ENV
    "LD_PRELOAD=$<TARGET_FILE:mpinotify_nodlclose>"
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp:print_suppressions=0"
    "ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0:fast_unwind_on_malloc=0"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endif()

if(MPINOTIFY_SANITIZE MATCHES "thread")
  # UCX's memory hooks (libucm) intercept madvise, which glibc calls while a
  # thread exits, after ThreadSanitizer has released that thread's state.
  list(APPEND MPINOTIFY_TEST_ENV
    "TSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/tsan.supp:halt_on_error=1:report_signal_unsafe=0"
    UCX_MEM_MMAP_HOOK_MODE=none)
endif()

# Which MPI runs the tests: some host limitations call for extra runs.
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE launcher_version
                ERROR_QUIET RESULT_VARIABLE launcher_result)
if(launcher_version MATCHES "Open MPI|OpenRTE")
  set(MPINOTIFY_HOST_OPENMPI ON)
else()
  set(MPINOTIFY_HOST_OPENMPI OFF)
endif()

# Whether the host's PMIx client is a libpmix of its own installation (Open
# MPI 4 built with an external PMIx: its pmix component is ext<N>x), which
# the library finds initialised where it links the same one. With Open MPI's
# internal PMIx the library falls back to exchanging addresses, and a test
# that demands the store would fail. (Open MPI 5 lists no pmix component:
# the test is not registered there.)
set(MPINOTIFY_HOST_EXTERNAL_PMIX OFF)
if(MPINOTIFY_HOST_OPENMPI)
  get_filename_component(launcher_dir "${MPIEXEC_EXECUTABLE}" DIRECTORY)
  # The launcher's own first: another installation's may be earlier in PATH.
  find_program(MPINOTIFY_OMPI_INFO ompi_info PATHS "${launcher_dir}" NO_DEFAULT_PATH)
  find_program(MPINOTIFY_OMPI_INFO ompi_info)
  if(MPINOTIFY_OMPI_INFO)
    execute_process(COMMAND ${MPINOTIFY_OMPI_INFO} OUTPUT_VARIABLE ompi_components ERROR_QUIET
                    RESULT_VARIABLE ompi_info_result TIMEOUT 60)
    if(ompi_info_result EQUAL 0 AND ompi_components MATCHES "MCA pmix: ext[0-9]+x")
      set(MPINOTIFY_HOST_EXTERNAL_PMIX ON)
    endif()
  endif()
endif()

# Host settings a program may run under, which the library must not
# disturb (SEMANTICS 3.9): Open MPI's choice of one-sided component.
# osc/pt2pt refuses MPI_THREAD_MULTIPLE, so programs run there at
# MPI_THREAD_SERIALIZED. The osc/ucx setting needs pml/ucx, which Debian's
# defaults disable.
set(MPINOTIFY_HOST_SETTINGS)
if(MPINOTIFY_HOST_OPENMPI AND MPINOTIFY_TEST_HOST_SETTINGS)
  set(MPINOTIFY_HOST_SETTINGS osc_pt2pt osc_sm_pt2pt osc_rdma osc_ucx)
  set(MPINOTIFY_HOST_ENV_osc_pt2pt OMPI_MCA_osc=pt2pt)
  set(MPINOTIFY_HOST_ENV_osc_sm_pt2pt OMPI_MCA_osc=sm,pt2pt)
  set(MPINOTIFY_HOST_ENV_osc_rdma OMPI_MCA_osc=rdma)
  set(MPINOTIFY_HOST_ENV_osc_ucx OMPI_MCA_osc=ucx,sm OMPI_MCA_pml=ucx OMPI_MCA_pml_ucx_tls=any
                                 OMPI_MCA_pml_ucx_devices=any)
endif()

# The configurations the suite runs in, per backend: a name, its
# environment and its process counts (the network backends' may be fewer:
# MPINOTIFY_TEST_NETWORK_NP, and MPINOTIFY_TEST_TRANSPORT_NP for their
# repeats over tcp). ucx runs twice: with hardware-style atomics over
# shared memory, and with atomics emulated over tcp (peers then need
# progress); ofi with each provider CI has, shm (one node) and
# tcp;ofi_rxm, and with its atomic notifications over tcp (libfabric's
# shm cannot take them: docs/usage.md).
# MPICH 4.0.2 over UCX 1.13 with UCX_TLS=tcp,self hangs in MPI_Finalize in
# about half of 4-process runs of a plain MPI program (UCX's tcp transport
# stops progressing endpoints the host is still flushing), so under MPICH
# the tcp setting goes to this library's context alone (MPINOTIFY_UCX_TLS).
set(MPINOTIFY_TEST_CONFIGS)
# A backend this build lacks (src/CMakeLists.txt says why) is not tested.
foreach(absent IN LISTS MPINOTIFY_ABSENT_BACKENDS)
  string(REGEX REPLACE ":.*" "" absent_name "${absent}")
  if(absent_name IN_LIST MPINOTIFY_TEST_BACKENDS)
    message(STATUS "Not testing the ${absent_name} backend: ${absent}")
    list(REMOVE_ITEM MPINOTIFY_TEST_BACKENDS ${absent_name})
  endif()
endforeach()
set(tcp_tls_variable UCX_TLS)
if(NOT MPINOTIFY_HOST_OPENMPI)
  set(tcp_tls_variable MPINOTIFY_UCX_TLS)
endif()
foreach(backend IN LISTS MPINOTIFY_TEST_BACKENDS)
  if(backend STREQUAL "ucx")
    list(APPEND MPINOTIFY_TEST_CONFIGS ucx-posix ucx-tcp)
    set(MPINOTIFY_CONFIG_ENV_ucx-posix "MPINOTIFY_BACKEND=ucx" "UCX_TLS=posix,cma,self")
    set(MPINOTIFY_CONFIG_ENV_ucx-tcp "MPINOTIFY_BACKEND=ucx" "${tcp_tls_variable}=tcp,self")
    set(MPINOTIFY_CONFIG_NP_ucx-posix ${MPINOTIFY_TEST_NETWORK_NP})
    set(MPINOTIFY_CONFIG_NP_ucx-tcp ${MPINOTIFY_TEST_TRANSPORT_NP})
  elseif(backend STREQUAL "ofi")
    list(APPEND MPINOTIFY_TEST_CONFIGS ofi-shm ofi-tcp ofi-atomic)
    set(MPINOTIFY_CONFIG_ENV_ofi-shm "MPINOTIFY_BACKEND=ofi" "MPINOTIFY_OFI_PROVIDER=shm")
    set(MPINOTIFY_CONFIG_ENV_ofi-tcp "MPINOTIFY_BACKEND=ofi" "MPINOTIFY_OFI_PROVIDER=tcp")
    set(MPINOTIFY_CONFIG_ENV_ofi-atomic "MPINOTIFY_BACKEND=ofi" "MPINOTIFY_OFI_PROVIDER=tcp"
                                        "MPINOTIFY_OFI_NOTIFY=atomic")
    set(MPINOTIFY_CONFIG_NP_ofi-shm ${MPINOTIFY_TEST_NETWORK_NP})
    set(MPINOTIFY_CONFIG_NP_ofi-tcp ${MPINOTIFY_TEST_TRANSPORT_NP})
    # (Up to three processes: its puts each wait for a round trip, which
    # four oversubscribed ranks make slow.)
    set(MPINOTIFY_CONFIG_NP_ofi-atomic ${MPINOTIFY_TEST_TRANSPORT_NP})
    list(REMOVE_ITEM MPINOTIFY_CONFIG_NP_ofi-atomic 4)
  else()
    list(APPEND MPINOTIFY_TEST_CONFIGS ${backend})
    set(MPINOTIFY_CONFIG_ENV_${backend} "MPINOTIFY_BACKEND=${backend}")
  endif()
endforeach()
foreach(config IN LISTS MPINOTIFY_TEST_CONFIGS)
  if(NOT DEFINED MPINOTIFY_CONFIG_NP_${config})
    set(MPINOTIFY_CONFIG_NP_${config} ${MPINOTIFY_TEST_NP})
  endif()
endforeach()

# mpinotify_add_mpi_test(<name> <np> COMMAND <program> [args...] [ENV var=value...])
function(mpinotify_add_mpi_test name np)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "COMMAND;ENV")
  add_test(NAME ${name}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS}
            ${arg_COMMAND} ${MPIEXEC_POSTFLAGS})
  set_tests_properties(${name} PROPERTIES
    TIMEOUT ${MPINOTIFY_TEST_TIMEOUT}
    PROCESSORS ${np}
    ENVIRONMENT "${MPINOTIFY_TEST_ENV};${arg_ENV}")
endfunction()
