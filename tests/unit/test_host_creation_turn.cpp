// Which hosts need the library's turns for window creation.
#include <gtest/gtest.h>

#include "host_creation_turn.hpp"

namespace {

using mpinotify::host_shares_window_files;

TEST(HostCreationTurn, OpenMpiBeforeFiveNamesWindowFilesByContextId) {
  EXPECT_TRUE(host_shares_window_files(
      "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022"));
  EXPECT_TRUE(host_shares_window_files("Open MPI v3.1.6, package: Open MPI"));
  EXPECT_FALSE(host_shares_window_files("Open MPI v5.0.3, package: Open MPI, ident: 5.0.3"));
  EXPECT_FALSE(host_shares_window_files("Open MPI v10.0.0"));
  EXPECT_FALSE(host_shares_window_files("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7"));
  EXPECT_FALSE(host_shares_window_files(""));
  EXPECT_FALSE(host_shares_window_files("Open MPI v"));
}

}  // namespace
