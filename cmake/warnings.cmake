# Compiler warnings and sanitizers for the project's own targets.
add_library(mpinotify_options INTERFACE)
target_compile_options(mpinotify_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual>)
if(MPINOTIFY_WERROR)
  target_compile_options(mpinotify_options INTERFACE -Werror)
endif()
if(MPINOTIFY_SANITIZE)
  target_compile_options(mpinotify_options INTERFACE
    -fsanitize=${MPINOTIFY_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(mpinotify_options INTERFACE -fsanitize=${MPINOTIFY_SANITIZE})
  if(MPINOTIFY_SANITIZE MATCHES "thread")
    # GCC warns that TSan does not model atomic_thread_fence; the fences stay
    # (they order the hardware), the warning goes.
    target_compile_options(mpinotify_options INTERFACE -Wno-tsan)
  endif()
endif()
# The project's C++ never uses the deprecated MPI C++ bindings.
target_compile_definitions(mpinotify_options INTERFACE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
