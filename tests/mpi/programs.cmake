# Stand-alone MPI test programs; see tests/mpi/CMakeLists.txt for mpinotify_add_mpi_test().

# Programs link mpinotify before the MPI library, as every application must.
function(mpinotify_test_program name source)
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE mpinotify MPI::MPI_C mpinotify_options)
endfunction()

# SEMANTICS 1: the C API from strict C99, every one of the 42 functions.
mpinotify_test_program(c_api_program c_api_program.c)
set_target_properties(c_api_program PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON
                                               C_EXTENSIONS OFF)
target_compile_options(c_api_program PRIVATE -pedantic -Werror)

# SEMANTICS 1: the header as strict C++11, every prototype checked.
mpinotify_test_program(cxx11_header_check cxx11_header_check.cpp)
set_target_properties(cxx11_header_check PROPERTIES CXX_STANDARD 11 CXX_STANDARD_REQUIRED ON
                                                    CXX_EXTENSIONS OFF)
target_compile_options(cxx11_header_check PRIVATE -pedantic -Werror)
mpinotify_add_mpi_test(cxx11_header_check.np1 1 COMMAND $<TARGET_FILE:cxx11_header_check>)

# SEMANTICS 6.1: errors are fatal by default, after a line naming the
# function and the cause.
mpinotify_test_program(fatal_error_program fatal_error_program.c)

# SEMANTICS 5.4: a forced backend that cannot serve the window.
mpinotify_test_program(backend_selection_program backend_selection_program.c)

foreach(backend IN LISTS MPINOTIFY_TEST_BACKENDS)
  foreach(np 1 2)
    mpinotify_add_mpi_test(c_api.${backend}.np${np} ${np}
      COMMAND $<TARGET_FILE:c_api_program> ENV MPINOTIFY_BACKEND=${backend})
    set_tests_properties(c_api.${backend}.np${np} PROPERTIES TIMEOUT 120)

    mpinotify_add_mpi_test(fatal_error.${backend}.np${np} ${np}
      COMMAND $<TARGET_FILE:fatal_error_program> ENV MPINOTIFY_BACKEND=${backend})
    set_tests_properties(fatal_error.${backend}.np${np} PROPERTIES
      PASS_REGULAR_EXPRESSION
        "mpinotify: MPI_Put_notify: MPI_ERR_RMA_NOTIFICATION: notification index 5 "
      FAIL_REGULAR_EXPRESSION "fatal_error_program: the error was not fatal"
      TIMEOUT 60)
  endforeach()
endforeach()

foreach(np 1 2)
  mpinotify_add_mpi_test(backend_selection.return.np${np} ${np}
    COMMAND $<TARGET_FILE:backend_selection_program> return ENV MPINOTIFY_BACKEND=nonexistent)
  set_tests_properties(backend_selection.return.np${np} PROPERTIES TIMEOUT 60)

  mpinotify_add_mpi_test(backend_selection.fatal.np${np} ${np}
    COMMAND $<TARGET_FILE:backend_selection_program> fatal ENV MPINOTIFY_BACKEND=nonexistent)
  set_tests_properties(backend_selection.fatal.np${np} PROPERTIES
    PASS_REGULAR_EXPRESSION
      "mpinotify: MPI_Win_allocate: MPI_ERR_UNSUPPORTED_OPERATION: MPINOTIFY_BACKEND=nonexistent"
    FAIL_REGULAR_EXPRESSION "backend_selection_program: creation did not fail fatally"
    TIMEOUT 60)
endforeach()

# SEMANTICS 3.9: a plain RMA program (no notifications) with the default
# backend, under the host's default and every other one-sided setting.
add_executable(plain_rma_program plain_rma_program.c)
target_link_libraries(plain_rma_program PRIVATE mpinotify MPI::MPI_C mpinotify_options)
foreach(setting IN ITEMS default LISTS MPINOTIFY_HOST_SETTINGS)
  foreach(np 1 2 3 4)
    mpinotify_add_mpi_test(plain_rma.${setting}.np${np} ${np}
      COMMAND $<TARGET_FILE:plain_rma_program> ENV ${MPINOTIFY_HOST_ENV_${setting}})
    set_tests_properties(plain_rma.${setting}.np${np} PROPERTIES TIMEOUT 60
      FAIL_REGULAR_EXPRESSION "plain_rma_program: rank")
  endforeach()
endforeach()

# SEMANTICS 4.6, 6.3: finalizing with windows open and a request pending.
mpinotify_test_program(finalize_program finalize_program.c)
foreach(backend IN LISTS MPINOTIFY_TEST_BACKENDS)
  foreach(np 1 3)
    mpinotify_add_mpi_test(finalize_open_windows.${backend}.np${np} ${np}
      COMMAND $<TARGET_FILE:finalize_program> ENV MPINOTIFY_BACKEND=${backend})
    set_tests_properties(finalize_open_windows.${backend}.np${np} PROPERTIES TIMEOUT 60)
  endforeach()
endforeach()

# SEMANTICS 6.3, sm backend: nothing left in /dev/shm after a SIGKILL.
mpinotify_test_program(sm_kill_program sm_kill_program.c)
if("sm" IN_LIST MPINOTIFY_TEST_BACKENDS)
  foreach(np 1 3)
    add_test(NAME sm.sigkill_leaves_no_segment.np${np}
      COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP=${np}
              -DPROGRAM=$<TARGET_FILE:sm_kill_program>
              -P ${CMAKE_CURRENT_SOURCE_DIR}/check_shm_cleanup.cmake)
    set_tests_properties(sm.sigkill_leaves_no_segment.np${np} PROPERTIES TIMEOUT 180
      ENVIRONMENT "${MPINOTIFY_TEST_ENV};MPINOTIFY_BACKEND=sm")
  endforeach()
endif()

# sm: counters placed after each rank's memory, with strides that differ
# between ranks (which must keep them elsewhere) or that pack them tightly.
mpinotify_test_program(sm_stride_program sm_stride_program.c)
if("sm" IN_LIST MPINOTIFY_TEST_BACKENDS)
  foreach(strides mixed narrow)
    mpinotify_add_mpi_test(sm.counter_stride.${strides}.np3 3
      COMMAND $<TARGET_FILE:sm_stride_program> ${strides} ENV MPINOTIFY_BACKEND=sm)
    set_tests_properties(sm.counter_stride.${strides}.np3 PROPERTIES TIMEOUT 60
      FAIL_REGULAR_EXPRESSION "sm_stride_program: rank")
  endforeach()
endif()

# sm: a shared window's memory is in every process's page tables right
# after creation (MPINOTIFY_PREFAULT), and is not with the parameter at 0.
mpinotify_test_program(sm_prefault_program sm_prefault_program.c)
if("sm" IN_LIST MPINOTIFY_TEST_BACKENDS)
  foreach(mode on off)
    set(budget "")
    if(mode STREQUAL "off")
      set(budget MPINOTIFY_PREFAULT=0)
    endif()
    mpinotify_add_mpi_test(sm.prefault.${mode}.np3 3
      COMMAND $<TARGET_FILE:sm_prefault_program> ${mode} ENV MPINOTIFY_BACKEND=sm ${budget})
    set_tests_properties(sm.prefault.${mode}.np3 PROPERTIES TIMEOUT 60
      FAIL_REGULAR_EXPRESSION "sm_prefault_program: rank")
  endforeach()
endif()
