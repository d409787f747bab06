// The internal status type and its mapping to MPI error classes (SEMANTICS
// 6.1). MPI_ERR_* are constants of the host's header: no MPI run time.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "mpi_host.hpp"
#include "status.hpp"

namespace {

using mpinotify::Errc;
using mpinotify::errc_name;
using mpinotify::error;
using mpinotify::Status;
using mpinotify::to_mpi_error;

TEST(Status, DefaultIsSuccess_6_1) {
  const Status st;
  EXPECT_TRUE(st.ok());
  EXPECT_TRUE(static_cast<bool>(st));
  EXPECT_EQ(Errc::ok, st.code());
  EXPECT_TRUE(st.message().empty());
  EXPECT_FALSE(st.reported());
  EXPECT_EQ(MPI_SUCCESS, to_mpi_error(st));
}

TEST(Status, ErrorKeepsCodeAndMessage_6_1) {
  const Status st = error(Errc::rma_range, "target range leaves the window");
  EXPECT_FALSE(st.ok());
  EXPECT_FALSE(static_cast<bool>(st));
  EXPECT_EQ(Errc::rma_range, st.code());
  EXPECT_EQ("target range leaves the window", st.message());
  EXPECT_FALSE(st.reported());
}

TEST(Status, HostErrorKeepsTheHostCode_6_1) {
  const Status mine = Status::from_host(MPI_ERR_WIN, false, "MPI_Win_allocate failed");
  EXPECT_EQ(Errc::host, mine.code());
  EXPECT_EQ(MPI_ERR_WIN, mine.host_code());
  EXPECT_FALSE(mine.reported());
  EXPECT_EQ(MPI_ERR_WIN, to_mpi_error(mine));
  const Status reported = Status::from_host(MPI_ERR_RMA_SYNC, true, "MPI_Win_flush failed");
  EXPECT_TRUE(reported.reported());
  EXPECT_EQ(MPI_ERR_RMA_SYNC, to_mpi_error(reported));
}

// Each Errc maps to its MPI error class.
TEST(ToMpiError, EveryCodeMapsToItsClass_6_1) {
  const struct {
    Errc code;
    int mpi;
  } table[] = {
      {Errc::ok, MPI_SUCCESS},
      {Errc::other, MPI_ERR_OTHER},
      {Errc::intern, MPI_ERR_INTERN},
      {Errc::unsupported, MPI_ERR_UNSUPPORTED_OPERATION},
      {Errc::rma_sync, MPI_ERR_RMA_SYNC},
      {Errc::rma_flavor, MPI_ERR_RMA_FLAVOR},
      {Errc::rma_range, MPI_ERR_RMA_RANGE},
      {Errc::request, MPI_ERR_REQUEST},
      {Errc::no_mem, MPI_ERR_NO_MEM},
      {Errc::win, MPI_ERR_WIN},
      {Errc::rank, MPI_ERR_RANK},
      {Errc::count, MPI_ERR_COUNT},
      {Errc::type, MPI_ERR_TYPE},
      {Errc::op, MPI_ERR_OP},
      {Errc::disp, MPI_ERR_DISP},
      {Errc::info, MPI_ERR_INFO},
      {Errc::arg, MPI_ERR_ARG},
  };
  for (const auto &row : table) {
    const Status st = row.code == Errc::ok ? Status() : error(row.code, "x");
    EXPECT_EQ(row.mpi, to_mpi_error(st)) << errc_name(row.code);
  }
}

// Before the library registers its error class, notification errors map
// to MPI_ERR_OTHER; afterwards to the registered class itself.
TEST(ToMpiError, NotificationUsesTheRegisteredClass_6_1) {
  const Status st = error(Errc::notification, "index 9 outside [0, 3)");
  EXPECT_EQ(MPI_ERR_OTHER, to_mpi_error(st));
  mpinotify::set_notification_class(MPI_ERR_LASTCODE + 7);
  EXPECT_EQ(MPI_ERR_LASTCODE + 7, to_mpi_error(st));
  mpinotify::set_notification_class(MPI_ERR_OTHER);
  EXPECT_EQ(MPI_ERR_OTHER, to_mpi_error(st));
}

TEST(ErrcName, NamesEveryCode_6_1) {
  EXPECT_STREQ("MPI_SUCCESS", errc_name(Errc::ok));
  EXPECT_STREQ("MPI_ERR_OTHER", errc_name(Errc::other));
  EXPECT_STREQ("MPI_ERR_INTERN", errc_name(Errc::intern));
  EXPECT_STREQ("host MPI error", errc_name(Errc::host));
  EXPECT_STREQ("MPI_ERR_UNSUPPORTED_OPERATION", errc_name(Errc::unsupported));
  EXPECT_STREQ("MPI_ERR_RMA_SYNC", errc_name(Errc::rma_sync));
  EXPECT_STREQ("MPI_ERR_RMA_FLAVOR", errc_name(Errc::rma_flavor));
  EXPECT_STREQ("MPI_ERR_RMA_RANGE", errc_name(Errc::rma_range));
  EXPECT_STREQ("MPI_ERR_REQUEST", errc_name(Errc::request));
  EXPECT_STREQ("MPI_ERR_NO_MEM", errc_name(Errc::no_mem));
  EXPECT_STREQ("MPI_ERR_WIN", errc_name(Errc::win));
  EXPECT_STREQ("MPI_ERR_RANK", errc_name(Errc::rank));
  EXPECT_STREQ("MPI_ERR_COUNT", errc_name(Errc::count));
  EXPECT_STREQ("MPI_ERR_TYPE", errc_name(Errc::type));
  EXPECT_STREQ("MPI_ERR_OP", errc_name(Errc::op));
  EXPECT_STREQ("MPI_ERR_DISP", errc_name(Errc::disp));
  EXPECT_STREQ("MPI_ERR_RMA_NOTIFICATION", errc_name(Errc::notification));
  EXPECT_STREQ("MPI_ERR_INFO", errc_name(Errc::info));
  EXPECT_STREQ("MPI_ERR_ARG", errc_name(Errc::arg));
}

TEST(ErrcName, NamesAreDistinct_6_1) {
  std::set<std::string> names;
  for (int c = 0; c < mpinotify::kErrcCount; ++c) names.insert(errc_name(static_cast<Errc>(c)));
  EXPECT_EQ(static_cast<std::size_t>(mpinotify::kErrcCount), names.size());
  EXPECT_EQ(19, mpinotify::kErrcCount);
}

Status fails_then_continues(bool fail, int &reached) {
  MPINOTIFY_TRY(fail ? error(Errc::count, "negative") : Status());
  ++reached;
  return {};
}

TEST(Status, TryPropagatesTheFirstError_6_1) {
  int reached = 0;
  const Status st = fails_then_continues(true, reached);
  EXPECT_EQ(Errc::count, st.code());
  EXPECT_EQ("negative", st.message());
  EXPECT_EQ(0, reached);
  EXPECT_TRUE(fails_then_continues(false, reached).ok());
  EXPECT_EQ(1, reached);
}

}  // namespace
