// SEMANTICS 3.4 under bad input: sizes that overflow an MPI_Count of bytes
// are refused with MPI_ERR_COUNT before anything moves, in the int and the
// _c forms, on every flavor; the target window and every counter stay as
// they were. (Run under AddressSanitizer in CI.)
#include <cstdint>
#include <cstring>
#include <vector>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

class BadInput : public mpitest::FlavorTest {};

constexpr MPI_Aint kBytes = 64;
constexpr unsigned char kCanary = 0xA5;

// Collective: every rank's window filled with the canary and its counter 0
// at zero, in a lock_all epoch.
void prepare(TestWindow &w) {
  std::memset(w.base(), kCanary, static_cast<std::size_t>(kBytes));
  w.set_num_notify(1);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, w.win());
}

// Collective: closes the epoch, then checks on every rank (the target of
// its left neighbour) that no byte and no counter moved.
void expect_untouched(TestWindow &w, const char *what) {
  MPI_Win_unlock_all(w.win());
  MPI_Barrier(MPI_COMM_WORLD);
  int changed = 0;
  for (MPI_Aint i = 0; i < kBytes; ++i)
    changed += static_cast<unsigned char>(w.base()[i]) != kCanary;
  EXPECT_EQ(0, changed) << what << ": bytes of rank " << mpitest::rank() << "'s window changed";
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &v));
  EXPECT_EQ(0, v) << what << ": a refused operation notified rank " << mpitest::rank();
}

// SEMANTICS 3.4: 2^62 elements of 8 bytes, on the target, the origin or
// the result side, in every _c entry point.
TEST_P(BadInput, CountOverflowIsRefused_3_4) {
  TestWindow w(GetParam(), kBytes);
  const int t = (mpitest::rank() + 1) % mpitest::size();
  const MPI_Aint at = w.disp(t, 0);
  const MPI_Count huge = MPI_Count{1} << 62;
  const MPI_Datatype i64 = MPI_INT64_T;
  std::int64_t buf[8] = {};
  std::int64_t res[8] = {};
  MPI_Request r = MPI_REQUEST_NULL;
  prepare(w);
  const int rcs[] = {
      MPI_Put_notify_c(buf, huge, i64, t, at, huge, i64, 0, w.win()),
      MPI_Put_notify_c(buf, huge, i64, t, at, 1, i64, 0, w.win()),
      MPI_Put_notify_c(buf, 1, i64, t, at, huge, i64, 0, w.win()),
      MPI_Get_notify_c(res, huge, i64, t, at, 1, i64, 0, w.win()),
      MPI_Get_notify_c(res, 1, i64, t, at, huge, i64, 0, w.win()),
      MPI_Accumulate_notify_c(buf, huge, i64, t, at, huge, i64, MPI_SUM, 0, w.win()),
      MPI_Get_accumulate_notify_c(buf, 1, i64, res, huge, i64, t, at, 1, i64, MPI_SUM, 0, w.win()),
      MPI_Get_accumulate_notify_c(nullptr, 0, i64, res, 1, i64, t, at, huge, i64, MPI_NO_OP, 0,
                                  w.win()),
      MPI_Rput_notify_c(buf, huge, i64, t, at, huge, i64, 0, w.win(), &r),
      MPI_Rget_notify_c(res, huge, i64, t, at, huge, i64, 0, w.win(), &r),
      MPI_Raccumulate_notify_c(buf, 1, i64, t, at, huge, i64, MPI_SUM, 0, w.win(), &r),
      MPI_Rget_accumulate_notify_c(buf, huge, i64, res, 1, i64, t, at, 1, i64, MPI_SUM, 0, w.win(),
                                   &r)};
  int call = 0;
  for (const int rc : rcs) EXPECT_MPI_CLASS(MPI_ERR_COUNT, rc) << "call " << call++;
  EXPECT_EQ(MPI_REQUEST_NULL, r) << "a refused request form wrote its request";
  for (const std::int64_t value : res) EXPECT_EQ(0, value) << "a refused get wrote its buffer";
  expect_untouched(w, "2^62 elements");
}

// SEMANTICS 3.4: int counts of a derived type whose byte size overflows:
// 2^21 elements of 2^43 bytes (a contiguous type of contiguous types).
TEST_P(BadInput, DerivedTypeSizeOverflowIsRefused_3_4) {
  TestWindow w(GetParam(), kBytes);
  const int t = (mpitest::rank() + 1) % mpitest::size();
  const MPI_Aint at = w.disp(t, 0);
  MPI_Datatype inner = MPI_DATATYPE_NULL;
  MPI_Datatype big = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(1 << 20, MPI_INT64_T, &inner);
  MPI_Type_contiguous(1 << 20, inner, &big);
  MPI_Type_commit(&big);
  std::int64_t buf[1] = {};
  prepare(w);
  const int count = 1 << 21;
  EXPECT_MPI_CLASS(MPI_ERR_COUNT, MPI_Put_notify(buf, count, big, t, at, count, big, 0, w.win()));
  EXPECT_MPI_CLASS(MPI_ERR_COUNT, MPI_Get_notify(buf, count, big, t, at, count, big, 0, w.win()));
  EXPECT_MPI_CLASS(MPI_ERR_COUNT,
                   MPI_Put_notify(buf, count, big, t, at, 1, MPI_INT64_T, 0, w.win()));
  expect_untouched(w, "2^21 elements of 2^43 bytes");
  MPI_Type_free(&big);
  MPI_Type_free(&inner);
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, BadInput, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
