# Installs the build tree into a scratch prefix, checks that man finds the
# manual pages there, then builds and runs a program against it twice:
# through find_package(mpinotify) and through pkg-config; and a C++
# program of the exchange through find_package.
# Arguments: -DBUILD_DIR -DSOURCE_DIR -DWORK_DIR -DMPIEXEC -DMPICC
#            -DMPI_C_COMPILER
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# The manual pages, links resolved from the installed tree by man itself.
foreach(page man3/MPI_Put_notify.3 man3/PMPI_Rget_accumulate_notify_c.3 man7/mpinotify.7
             man1/mpinotify-info.1)
  if(NOT EXISTS ${prefix}/share/man/${page})
    message(FATAL_ERROR "not installed: share/man/${page}")
  endif()
endforeach()
find_program(MAN man)
if(MAN)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env MANPATH=${prefix}/share/man MAN_DISABLE_SECCOMP=1
                          ${MAN} -P cat 3 PMPI_Put_notify_c
                  RESULT_VARIABLE rc OUTPUT_VARIABLE page ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT page MATCHES "MPI_Put_notify_c")
    message(FATAL_ERROR "man 3 PMPI_Put_notify_c from the installed tree failed (${rc}): ${err}")
  endif()
endif()

# find_package(mpinotify) -> mpinotify::mpinotify, mpinotify::exchange
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${WORK_DIR}/cmake-build
    -DCMAKE_PREFIX_PATH=${prefix} -DMPI_C_COMPILER=${MPI_C_COMPILER}
    -DCMAKE_BUILD_RPATH=${prefix}/lib)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-build)
run(${MPIEXEC} -n 2 ${WORK_DIR}/cmake-build/consumer)
run(${MPIEXEC} -n 2 ${WORK_DIR}/cmake-build/exchange_consumer)

# pkg-config mpinotify, with the MPI compiler wrapper
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
execute_process(COMMAND pkg-config --cflags --libs mpinotify OUTPUT_VARIABLE flags
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config does not know mpinotify")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${MPI_C_COMPILER} ${SOURCE_DIR}/consumer/consumer.c ${flags} -Wl,-rpath,${prefix}/lib
    -o ${WORK_DIR}/consumer-pkgconfig)
run(${MPIEXEC} -n 2 ${WORK_DIR}/consumer-pkgconfig)
message(STATUS "installed package works through find_package and pkg-config")
