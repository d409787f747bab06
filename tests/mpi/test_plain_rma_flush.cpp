// SEMANTICS 3.9: a flush completes every plain RMA call, whichever form it
// took. The library skips the host's flush where the program issued no
// plain call to the target since the last one (osc_core/sync.cpp), so each
// call here follows a flush that left nothing owed: only the call's own
// mark can make the next flush reach the host. Results are read right
// after MPI_Win_flush_local, data at the target before the epoch ends.
// Under Open MPI's osc/pt2pt (a host setting of the suite) neither is
// there without the host's flush.
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "plain_rma_helpers.hpp"

namespace mpitest::plain {
namespace {

using I64 = std::int64_t;

// Slots: one per call below, then one per rank for the flush_all round.
constexpr std::size_t kCalls = 24;
std::size_t slots() { return kCalls + static_cast<std::size_t>(mpitest::size()); }
I64 init(int owner, std::size_t i) { return (owner + 1) * 1000 + static_cast<I64>(i); }
I64 mark(int origin, std::size_t i) { return (origin + 1) * 100000 + static_cast<I64>(i); }

std::vector<I64> initial() {
  std::vector<I64> v(slots());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = init(mpitest::rank(), i);
  return v;
}

// One plain call to `target`'s slot `at`: `value` is what it sends, `result`
// where a fetching call puts what it read, `request` set by request forms.
struct Call {
  const char *name;
  bool fetches;  // its result is checked after MPI_Win_flush_local
  std::function<int(MPI_Win, int target, MPI_Aint at, const I64 *value, I64 *result,
                    MPI_Request *request)>
      issue;
  // The target's slot after the call, from its initial value and `value`.
  I64 (*after)(I64 initial, I64 value);
};

I64 replaced(I64, I64 value) { return value; }
I64 added(I64 initial, I64 value) { return initial + value; }
I64 kept(I64 initial, I64) { return initial; }

std::vector<Call> every_call() {
  const MPI_Datatype t = MPI_INT64_T;
  std::vector<Call> calls = {
      {"MPI_Put", false,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *, MPI_Request *) {
         return MPI_Put(v, 1, t, r, at, 1, t, w);
       },
       replaced},
      {"MPI_Rput", false,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *, MPI_Request *q) {
         return MPI_Rput(v, 1, t, r, at, 1, t, w, q);
       },
       replaced},
      {"MPI_Accumulate", false,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *, MPI_Request *) {
         return MPI_Accumulate(v, 1, t, r, at, 1, t, MPI_SUM, w);
       },
       added},
      {"MPI_Raccumulate", false,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *, MPI_Request *q) {
         return MPI_Raccumulate(v, 1, t, r, at, 1, t, MPI_SUM, w, q);
       },
       added},
      {"MPI_Get", true,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *, I64 *res, MPI_Request *) {
         return MPI_Get(res, 1, t, r, at, 1, t, w);
       },
       kept},
      {"MPI_Rget", true,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *, I64 *res, MPI_Request *q) {
         return MPI_Rget(res, 1, t, r, at, 1, t, w, q);
       },
       kept},
      {"MPI_Get_accumulate", true,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *res, MPI_Request *) {
         return MPI_Get_accumulate(v, 1, t, res, 1, t, r, at, 1, t, MPI_SUM, w);
       },
       added},
      {"MPI_Rget_accumulate", true,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *res, MPI_Request *q) {
         return MPI_Rget_accumulate(v, 1, t, res, 1, t, r, at, 1, t, MPI_SUM, w, q);
       },
       added},
      {"MPI_Fetch_and_op", true,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *res, MPI_Request *) {
         return MPI_Fetch_and_op(v, res, t, r, at, MPI_SUM, w);
       },
       added},
  };
#if MPI_VERSION >= 4
  const std::vector<Call> large = {
      {"MPI_Put_c", false,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *, MPI_Request *) {
         return MPI_Put_c(v, 1, t, r, at, 1, t, w);
       },
       replaced},
      {"MPI_Rput_c", false,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *, MPI_Request *q) {
         return MPI_Rput_c(v, 1, t, r, at, 1, t, w, q);
       },
       replaced},
      {"MPI_Accumulate_c", false,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *, MPI_Request *) {
         return MPI_Accumulate_c(v, 1, t, r, at, 1, t, MPI_SUM, w);
       },
       added},
      {"MPI_Raccumulate_c", false,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *, MPI_Request *q) {
         return MPI_Raccumulate_c(v, 1, t, r, at, 1, t, MPI_SUM, w, q);
       },
       added},
      {"MPI_Get_c", true,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *, I64 *res, MPI_Request *) {
         return MPI_Get_c(res, 1, t, r, at, 1, t, w);
       },
       kept},
      {"MPI_Rget_c", true,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *, I64 *res, MPI_Request *q) {
         return MPI_Rget_c(res, 1, t, r, at, 1, t, w, q);
       },
       kept},
      {"MPI_Get_accumulate_c", true,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *res, MPI_Request *) {
         return MPI_Get_accumulate_c(v, 1, t, res, 1, t, r, at, 1, t, MPI_SUM, w);
       },
       added},
      {"MPI_Rget_accumulate_c", true,
       [=](MPI_Win w, int r, MPI_Aint at, const I64 *v, I64 *res, MPI_Request *q) {
         return MPI_Rget_accumulate_c(v, 1, t, res, 1, t, r, at, 1, t, MPI_SUM, w, q);
       },
       added},
  };
  calls.insert(calls.end(), large.begin(), large.end());
#endif
  return calls;
}

class PlainRmaFlush : public PairedWindowTest<PlainRmaFlush> {
 public:
  static MPI_Aint window_bytes() { return static_cast<MPI_Aint>(slots() * sizeof(I64)); }
};

// Each call alone after a flush that owed nothing; MPI_Compare_and_swap
// last, on a slot of its own; then MPI_Win_flush_all after a put to every
// rank and MPI_Win_flush_local_all after a get from every rank.
TEST_P(PlainRmaFlush, EveryCallIsCompleteAtTheNextFlush_3_9) {
  const std::vector<Call> calls = every_call();
  ASSERT_LT(calls.size(), kCalls);
  on_both(reference(), served(), "flush after each call", [&](TestWindow &w, Trace &t) {
    const int me = mpitest::rank();
    const int r = right();
    const int l = left();
    const MPI_Win win = w.win();
    fill(w, initial());
    PLAIN_OK(t, MPI_Win_lock_all(0, win));
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const Call &c = calls[i];
      const I64 value = mark(me, i);
      I64 result = -1;
      MPI_Request request = MPI_REQUEST_NULL;
      PLAIN_OK(t, MPI_Win_flush(r, win));
      t.rc(c.name, c.issue(win, r, elem<I64>(w, r, i), &value, &result, &request));
      if (c.fetches) {
        PLAIN_OK(t, MPI_Win_flush_local(r, win));
        EXPECT_EQ(init(r, i), result) << t.name() << ": " << c.name << " after flush_local";
        t.value(c.name, result);
      }
      PLAIN_OK(t, MPI_Win_flush(r, win));
      if (request != MPI_REQUEST_NULL) {
        PLAIN_OK(t, MPI_Wait(&request, MPI_STATUS_IGNORE));
      }
    }
    // On a 32-bit integer at the slot's start: Open MPI 4.1's osc/rdma
    // crashes the target of a 64-bit one on MPI_Win_allocate windows.
    const std::size_t cas = calls.size();
    const auto swap = static_cast<std::int32_t>(mark(me, cas));
    std::int32_t compare = 0;
    const I64 target_initial = init(r, cas);
    std::memcpy(&compare, &target_initial, sizeof compare);
    std::int32_t old = -1;
    PLAIN_OK(t, MPI_Win_flush(r, win));
    PLAIN_OK(
        t, MPI_Compare_and_swap(&swap, &compare, &old, MPI_INT32_T, r, elem<I64>(w, r, cas), win));
    PLAIN_OK(t, MPI_Win_flush_local(r, win));
    EXPECT_EQ(compare, old) << t.name() << ": MPI_Compare_and_swap after flush_local";
    PLAIN_OK(t, MPI_Win_flush(r, win));

    // Complete at the target before the epoch ends.
    MPI_Barrier(MPI_COMM_WORLD);
    PLAIN_OK(t, MPI_Win_sync(win));
    const I64 *mine = w.as<I64>();
    for (std::size_t i = 0; i < calls.size(); ++i) {
      EXPECT_EQ(calls[i].after(init(me, i), mark(l, i)), mine[i])
          << t.name() << ": " << calls[i].name << " from rank " << l << " after MPI_Win_flush";
    }
    std::int32_t swapped = 0;
    std::memcpy(&swapped, &mine[cas], sizeof swapped);
    EXPECT_EQ(static_cast<std::int32_t>(mark(l, cas)), swapped)
        << t.name() << ": MPI_Compare_and_swap after flush";
    MPI_Barrier(MPI_COMM_WORLD);

    // Every rank puts into its own slot at every rank, one flush_all; then
    // reads another slot of every rank, one flush_local_all.
    PLAIN_OK(t, MPI_Win_flush_all(win));
    const I64 mine_mark = mark(me, kCalls);
    for (int target = 0; target < mpitest::size(); ++target) {
      PLAIN_OK(t, MPI_Put(&mine_mark, 1, MPI_INT64_T, target,
                          elem<I64>(w, target, kCalls + static_cast<std::size_t>(me)), 1,
                          MPI_INT64_T, win));
    }
    PLAIN_OK(t, MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    PLAIN_OK(t, MPI_Win_sync(win));
    for (int origin = 0; origin < mpitest::size(); ++origin) {
      EXPECT_EQ(mark(origin, kCalls), mine[kCalls + static_cast<std::size_t>(origin)])
          << t.name() << ": the put of rank " << origin << " after MPI_Win_flush_all";
    }
    MPI_Barrier(MPI_COMM_WORLD);
    PLAIN_OK(t, MPI_Win_flush_local_all(win));
    const std::size_t read = kCalls - 1;
    std::vector<I64> got(static_cast<std::size_t>(mpitest::size()), -1);
    for (int target = 0; target < mpitest::size(); ++target) {
      PLAIN_OK(t, MPI_Get(&got[static_cast<std::size_t>(target)], 1, MPI_INT64_T, target,
                          elem<I64>(w, target, read), 1, MPI_INT64_T, win));
    }
    PLAIN_OK(t, MPI_Win_flush_local_all(win));
    for (int target = 0; target < mpitest::size(); ++target) {
      EXPECT_EQ(init(target, read), got[static_cast<std::size_t>(target)])
          << t.name() << ": the get from rank " << target << " after MPI_Win_flush_local_all";
    }
    t.values("fetched", got);
    PLAIN_OK(t, MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    t.values("memory", snapshot<I64>(w, slots()));
  });
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, PlainRmaFlush, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
}  // namespace mpitest::plain
