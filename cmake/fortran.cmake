# SPDX-License-Identifier: BSD-3-Clause
#
# The mpi_f08 bindings (src/bindings_f08, module mpi_notify_f08), built
# where gfortran and the MPI's mpi_f08 module are found: the Fortran MPI
# is found through the wrapper next to MPI_C_COMPILER (mpicc.mpich ->
# mpifort.mpich), so that both languages use the same MPI. Sets
# MPINOTIFY_FORTRAN and, when ON, the targets mpinotify_f08 and
# mpinotify_fortran_options (warnings for the project's Fortran code).
option(MPINOTIFY_BUILD_FORTRAN
       "Build the mpi_f08 bindings (module mpi_notify_f08) where a Fortran compiler and mpi_f08 exist" ON)
set(MPINOTIFY_FORTRAN OFF)

# Why the bindings cannot be built here (empty when they can). A chain of
# steps in file scope, as enable_language must be.
set(mpinotify_fortran_obstacle "")
if(NOT MPINOTIFY_BUILD_FORTRAN)
  set(mpinotify_fortran_obstacle "MPINOTIFY_BUILD_FORTRAN is OFF")
else()
  include(CheckLanguage)
  check_language(Fortran)
  if(NOT CMAKE_Fortran_COMPILER)
    set(mpinotify_fortran_obstacle "no Fortran compiler found")
  else()
    enable_language(Fortran)
  endif()
endif()
# interpose.c follows gfortran's calling conventions; TS 29113 since 9.
if(NOT mpinotify_fortran_obstacle AND (NOT CMAKE_Fortran_COMPILER_ID STREQUAL "GNU"
                                       OR CMAKE_Fortran_COMPILER_VERSION VERSION_LESS 9))
  set(mpinotify_fortran_obstacle
      "they need GNU Fortran 9 or later, not ${CMAKE_Fortran_COMPILER_ID} ${CMAKE_Fortran_COMPILER_VERSION}")
endif()
if(NOT mpinotify_fortran_obstacle)
  include(CheckIncludeFile)
  check_include_file(ISO_Fortran_binding.h MPINOTIFY_HAVE_ISO_FORTRAN_BINDING_H)
  if(NOT MPINOTIFY_HAVE_ISO_FORTRAN_BINDING_H)
    set(mpinotify_fortran_obstacle "the C compiler does not find ISO_Fortran_binding.h")
  endif()
endif()
if(NOT mpinotify_fortran_obstacle)
  if(NOT MPI_Fortran_COMPILER AND MPI_C_COMPILER MATCHES "mpicc([^/]*)$")
    get_filename_component(mpinotify_wrapper_dir "${MPI_C_COMPILER}" DIRECTORY)
    find_program(MPINOTIFY_MPI_Fortran_WRAPPER NAMES mpifort${CMAKE_MATCH_1} mpif90${CMAKE_MATCH_1}
                 HINTS "${mpinotify_wrapper_dir}")
    if(MPINOTIFY_MPI_Fortran_WRAPPER)
      set(MPI_Fortran_COMPILER "${MPINOTIFY_MPI_Fortran_WRAPPER}" CACHE FILEPATH
          "The MPI Fortran compiler wrapper (by default the one next to MPI_C_COMPILER)")
    endif()
  endif()
  find_package(MPI QUIET COMPONENTS Fortran)
  if(NOT MPI_Fortran_FOUND)
    set(mpinotify_fortran_obstacle "the MPI's Fortran interface was not found (set MPI_Fortran_COMPILER)")
  elseif(NOT MPI_Fortran_HAVE_F08_MODULE)
    set(mpinotify_fortran_obstacle "the MPI has no mpi_f08 module usable by ${CMAKE_Fortran_COMPILER}")
  else()
    # The C library's MPI must be the Fortran one's.
    foreach(library IN LISTS MPI_C_LIBRARIES)
      if(NOT library IN_LIST MPI_Fortran_LIBRARIES)
        set(mpinotify_fortran_obstacle
            "${MPI_Fortran_COMPILER} belongs to another MPI than ${MPI_C_COMPILER} (set MPI_Fortran_COMPILER)")
      endif()
    endforeach()
  endif()
endif()

if(mpinotify_fortran_obstacle)
  message(STATUS "Not building the Fortran bindings: ${mpinotify_fortran_obstacle}")
else()
  message(STATUS "Building the Fortran bindings (mpi_notify_f08) with ${MPI_Fortran_COMPILER}")
  set(MPINOTIFY_FORTRAN ON)
  # Warnings for the project's Fortran: the MPIs' mpi_f08 modules are
  # quiet under -Wall -Wextra. The sanitizers as for the C and C++ code.
  add_library(mpinotify_fortran_options INTERFACE)
  target_compile_options(mpinotify_fortran_options INTERFACE
    "$<$<COMPILE_LANGUAGE:Fortran>:-Wall;-Wextra;-fimplicit-none>"
    "$<$<AND:$<COMPILE_LANGUAGE:Fortran>,$<BOOL:${MPINOTIFY_WERROR}>>:-Werror>")
  if(MPINOTIFY_SANITIZE)
    target_compile_options(mpinotify_fortran_options INTERFACE
      "$<$<COMPILE_LANGUAGE:Fortran>:-fsanitize=${MPINOTIFY_SANITIZE};-fno-omit-frame-pointer>")
    target_link_options(mpinotify_fortran_options INTERFACE -fsanitize=${MPINOTIFY_SANITIZE})
  endif()
  add_subdirectory(${PROJECT_SOURCE_DIR}/src/bindings_f08 ${PROJECT_BINARY_DIR}/src/bindings_f08)
endif()
