# Stand-alone MPI test programs; see tests/mpi/CMakeLists.txt for mpinotify_add_mpi_test().
