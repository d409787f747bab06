// SEMANTICS 3.9, what plain programs see of their windows: zero-size
// windows and zero-count operations, the window attributes, the
// displacement unit, MPI_Win_shared_query, error handlers of their own and
// MPI_Win_get_group. Each sequence runs on a reference window
// (mpinotify_disable) and on a served one; answers and traces must agree.
#include <cstdint>
#include <string>
#include <vector>

#include "plain_rma_helpers.hpp"

namespace mpitest::plain {
namespace {

using I64 = std::int64_t;

// Both windows of a side, made one after the other (collective).
struct RawPair {
  RawPair(Flavor f, MPI_Aint bytes, int disp_unit, MPI_Comm comm = MPI_COMM_WORLD)
      : reference(f, bytes, disp_unit, info_for(Side::reference).get(), comm),
        served(f, bytes, disp_unit, MPI_INFO_NULL, comm) {}
  RawWindow reference;
  RawWindow served;
};

class PlainRmaWinState : public FlavorTest {};

// Windows of size 0 on every rank, and on every odd rank: MPI_WIN_SIZE
// says 0 there, and zero-count puts, gets, accumulates and get_accumulates
// (request forms too) to every rank succeed in lock_all and fence epochs,
// next to real accumulates into the ranks that have memory.
TEST_P(PlainRmaWinState, ZeroSizeWindowsAndZeroCounts_3_9) {
  const int me = mpitest::rank();
  const int n = mpitest::size();
  for (const bool all_empty : {true, false}) {
    auto bytes_of = [&](int r) -> MPI_Aint { return all_empty || r % 2 == 1 ? 0 : 64; };
    RawPair pair(GetParam(), bytes_of(me), 1);
    const std::string layout = all_empty ? "size 0 everywhere" : "size 0 on odd ranks";
    on_both(pair.reference, pair.served, layout, [&](RawWindow &w, Trace &t) {
      const MPI_Win win = w.win();
      if (GetParam() != Flavor::dynamic) {
        MPI_Aint *size = nullptr;
        int flag = 0;
        PLAIN_OK(t, MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag));
        EXPECT_EQ(1, flag) << t.name();
        if (flag != 0) {
          EXPECT_EQ(bytes_of(me), *size) << t.name() << ", " << layout;
          t.value("MPI_WIN_SIZE", *size);
        }
      }
      fill(w, std::vector<I64>(bytes_of(me) > 0 ? 8 : 0, 0));  // collective
      I64 src = me + 1;
      I64 dst = -1;
      auto zero_counts = [&](bool requests) {
        for (int tgt = 0; tgt < n; ++tgt) {
          const MPI_Aint d = w.disp(tgt, 0);
          PLAIN_OK(t, MPI_Put(&src, 0, MPI_INT64_T, tgt, d, 0, MPI_INT64_T, win));
          PLAIN_OK(t, MPI_Get(&dst, 0, MPI_INT64_T, tgt, d, 0, MPI_INT64_T, win));
          if (!requests) continue;
          PLAIN_OK(t, MPI_Accumulate(&src, 0, MPI_INT64_T, tgt, d, 0, MPI_INT64_T, MPI_SUM, win));
          PLAIN_OK(t, MPI_Get_accumulate(&src, 0, MPI_INT64_T, &dst, 0, MPI_INT64_T, tgt, d, 0,
                                         MPI_INT64_T, MPI_SUM, win));
          MPI_Request req = MPI_REQUEST_NULL;
          PLAIN_OK(t, MPI_Rput(&src, 0, MPI_INT64_T, tgt, d, 0, MPI_INT64_T, win, &req));
          PLAIN_OK(t, MPI_Wait(&req, MPI_STATUS_IGNORE));
          PLAIN_OK(t, MPI_Rget(&dst, 0, MPI_INT64_T, tgt, d, 0, MPI_INT64_T, win, &req));
          PLAIN_OK(t, MPI_Wait(&req, MPI_STATUS_IGNORE));
          if (bytes_of(tgt) > 0) {
            PLAIN_OK(t, MPI_Accumulate(&src, 1, MPI_INT64_T, tgt, d, 1, MPI_INT64_T, MPI_SUM, win));
          }
        }
      };
      PLAIN_OK(t, MPI_Win_lock_all(0, win));
      zero_counts(true);
      PLAIN_OK(t, MPI_Win_flush_all(win));
      PLAIN_OK(t, MPI_Win_unlock_all(win));
      MPI_Barrier(MPI_COMM_WORLD);
      PLAIN_OK(t, MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
      zero_counts(false);
      PLAIN_OK(t, MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
      EXPECT_EQ(-1, dst) << t.name() << ": a zero-count read wrote its buffer";
      MPI_Barrier(MPI_COMM_WORLD);
      if (bytes_of(me) > 0) {
        const I64 sum = snapshot<I64>(w, 1)[0];
        EXPECT_EQ(I64{n} * (n + 1) / 2, sum) << t.name() << ", " << layout;
        t.value("sum", sum);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    });
  }
}

// MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR and
// MPI_WIN_MODEL answer what was asked for (sizes differ per rank,
// displacement unit 8) and what the reference window answers; a put at
// target_disp 1 lands at byte 8.
TEST_P(PlainRmaWinState, AttributesAndDisplacementUnit_3_9) {
  const int me = mpitest::rank();
  const Flavor flavor = GetParam();
  const bool dynamic = flavor == Flavor::dynamic;
  auto bytes_of = [](int r) -> MPI_Aint { return 8 * (r + 2); };
  RawPair pair(flavor, bytes_of(me), 8);
  on_both(pair.reference, pair.served, "attributes", [&](RawWindow &w, Trace &t) {
    const MPI_Win win = w.win();
    int flag = 0;
    void *base = nullptr;
    PLAIN_OK(t, MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    EXPECT_EQ(1, flag) << t.name();
    if (!dynamic) {
      EXPECT_EQ(static_cast<void *>(w.base()), base) << t.name() << ": MPI_WIN_BASE";
    }
    t.value("MPI_WIN_BASE is the window memory", base == w.base());
    t.value("MPI_WIN_BASE is null", base == nullptr);
    MPI_Aint *size = nullptr;
    PLAIN_OK(t, MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag));
    EXPECT_EQ(1, flag) << t.name();
    if (flag != 0) {
      if (!dynamic) {
        EXPECT_EQ(bytes_of(me), *size) << t.name() << ": MPI_WIN_SIZE";
      }
      t.value("MPI_WIN_SIZE", *size);
    }
    int *unit = nullptr;
    PLAIN_OK(t, MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
    EXPECT_EQ(1, flag) << t.name();
    if (flag != 0) {
      if (!dynamic) {
        EXPECT_EQ(8, *unit) << t.name() << ": MPI_WIN_DISP_UNIT";
      }
      t.value("MPI_WIN_DISP_UNIT", *unit);
    }
    int *created = nullptr;
    PLAIN_OK(t, MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &created, &flag));
    EXPECT_EQ(1, flag) << t.name();
    if (flag != 0) {
      EXPECT_EQ(flavor_constant(flavor), *created) << t.name() << ": MPI_WIN_CREATE_FLAVOR";
      t.value("MPI_WIN_CREATE_FLAVOR", *created);
    }
    int *model = nullptr;
    PLAIN_OK(t, MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    EXPECT_EQ(1, flag) << t.name();
    if (flag != 0) {
      EXPECT_TRUE(*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE) << *model;
      t.value("MPI_WIN_MODEL", *model);
    }

    fill(w, std::vector<I64>{0, 0});
    const int r = right();
    const I64 mark = 500 + me;
    // Dynamic windows address bytes (unit 1); the others scale by 8.
    const MPI_Aint disp = dynamic ? w.disp(r, 8) : 1;
    PLAIN_OK(t, MPI_Win_lock_all(0, win));
    PLAIN_OK(t, MPI_Put(&mark, 1, MPI_INT64_T, r, disp, 1, MPI_INT64_T, win));
    PLAIN_OK(t, MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    const std::vector<I64> mem = snapshot<I64>(w, 2);
    EXPECT_EQ(0, mem[0]) << t.name();
    EXPECT_EQ(500 + left(), mem[1]) << t.name() << ": the put at target_disp 1";
    t.values("memory", mem);
    MPI_Barrier(MPI_COMM_WORLD);
  });
}

// MPI_Win_shared_query for this rank, the right neighbour and
// MPI_PROC_NULL (rank 0 has no memory when there are others): on shared
// windows it answers every segment, and stores through the pointer it
// gives reach the neighbour; on every other flavor its class is the
// reference window's (on allocate windows: MPI_ERR_RMA_FLAVOR from MPICH
// and Open MPI's osc/rdma, MPI_ERR_WIN from Open MPI on one process).
TEST_P(PlainRmaWinState, SharedQueryAnswersAsTheHost_3_9) {
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const Flavor flavor = GetParam();
  auto bytes_of = [&](int r) -> MPI_Aint { return r == 0 && n > 1 ? 0 : 8 * (r + 1); };
  RawPair pair(flavor, bytes_of(me), 8);
  on_both(pair.reference, pair.served, "MPI_Win_shared_query", [&](RawWindow &w, Trace &t) {
    const MPI_Win win = w.win();
    const int r = right();
    I64 *right_memory = nullptr;
    for (const int q : {me, r, static_cast<int>(MPI_PROC_NULL)}) {
      MPI_Aint size = -1;
      int unit = -1;
      I64 *ptr = nullptr;
      const std::string who = q == MPI_PROC_NULL ? "MPI_PROC_NULL" : "rank " + std::to_string(q);
      const int rc =
          t.rc("MPI_Win_shared_query of " + who, MPI_Win_shared_query(win, q, &size, &unit, &ptr));
      if (flavor == Flavor::shared) {
        EXPECT_MPI_OK(rc) << t.name() << ": MPI_Win_shared_query of " << who;
        // MPI_PROC_NULL: the lowest rank with memory.
        const int owner = q != MPI_PROC_NULL ? q : (n > 1 ? 1 : 0);
        EXPECT_EQ(bytes_of(owner), size) << t.name() << ", " << who;
        EXPECT_EQ(8, unit) << t.name() << ", " << who;
        if (q == me && size > 0) {
          EXPECT_EQ(reinterpret_cast<I64 *>(w.base()), ptr) << t.name();
        }
        if (q == r && size > 0) right_memory = ptr;
      }
      if (rc == MPI_SUCCESS) {
        t.value(who + " size", size);
        t.value(who + " disp_unit", unit);
      }
    }
    if (flavor != Flavor::shared) return;
    // Direct stores into the neighbour's segment, made visible by
    // MPI_Win_sync on both sides of a barrier.
    fill(w, std::vector<I64>(bytes_of(me) > 0 ? 1 : 0, 0));  // collective
    PLAIN_OK(t, MPI_Win_lock_all(0, win));
    if (right_memory != nullptr) right_memory[0] = 700 + me;
    PLAIN_OK(t, MPI_Win_sync(win));
    MPI_Barrier(MPI_COMM_WORLD);
    PLAIN_OK(t, MPI_Win_sync(win));
    if (bytes_of(me) > 0) {
      const I64 got = reinterpret_cast<I64 *>(w.base())[0];
      EXPECT_EQ(700 + left(), got) << t.name() << ": a store through the shared pointer";
      t.value("stored by the left neighbour", got);
    }
    PLAIN_OK(t, MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
  });
}

// What the custom error handler saw.
struct Seen {
  int calls = 0;
  int last_class = MPI_SUCCESS;
  MPI_Win last_win = MPI_WIN_NULL;
};
Seen seen;

void record_error(MPI_Win *win, int *code, ...) {
  ++seen.calls;
  seen.last_class = error_class(*code);
  seen.last_win = *win;
}

// The flavor of the host window itself, past the library's view of it.
int host_flavor(MPI_Win win) {
  int *flavor = nullptr;
  int found = 0;
  PMPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &found);
  return found != 0 ? *flavor : -1;
}

// An error handler made with MPI_Win_create_errhandler and set on the
// window: MPI_Win_get_errhandler gives it back, and each erroneous call
// (invalid ranks to put, flush, flush_local and lock; synchronisation out
// of its epoch) calls it once, with the window and the class the call
// returns, the same as on the reference window. The window works after.
TEST_P(PlainRmaWinState, CustomErrorHandlerSeesEachError_3_9) {
  const int n = mpitest::size();
  RawPair pair(GetParam(), 64, 1);
  // sm may make an MPI_Win_allocate window as MPI_Win_allocate_shared
  // (docs/semantics.md, 3.9): calls that only some host components refuse
  // then answer as that component does, so they are compared only where
  // both windows have the same host flavor.
  const bool same_host_flavor = host_flavor(pair.served.win()) == host_flavor(pair.reference.win());
  on_both(pair.reference, pair.served, "error handler", [&](RawWindow &w, Trace &t) {
    const MPI_Win win = w.win();
    const int r = right();
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    PLAIN_OK(t, MPI_Win_create_errhandler(record_error, &handler));
    PLAIN_OK(t, MPI_Win_set_errhandler(win, handler));
    MPI_Errhandler current = MPI_ERRHANDLER_NULL;
    PLAIN_OK(t, MPI_Win_get_errhandler(win, &current));
    EXPECT_EQ(handler, current) << t.name();
    MPI_Errhandler_free(&current);
    fill(w, std::vector<I64>{0});
    const I64 src = 1;
    I64 dst = -1;
    // `must_fail`: erroneous by the standard, not just by this host.
    auto attempt = [&](const std::string &what, bool must_fail, auto &&call) {
      if (!must_fail && !same_host_flavor) return;
      seen = Seen{};
      const int rc = t.rc(what, call());
      t.value(what + ": handler calls", seen.calls);
      if (must_fail) {
        EXPECT_NE(MPI_SUCCESS, rc) << t.name() << ": " << what;
      }
      if (rc == MPI_SUCCESS) return;
      EXPECT_EQ(1, seen.calls) << t.name() << ": " << what;
      EXPECT_EQ(class_text(rc), class_text(seen.last_class)) << t.name() << ": " << what;
      EXPECT_EQ(win, seen.last_win) << t.name() << ": " << what;
    };
    PLAIN_OK(t, MPI_Win_lock_all(0, win));
    attempt("MPI_Put to rank size", true,
            [&] { return MPI_Put(&src, 1, MPI_INT64_T, n, 0, 1, MPI_INT64_T, win); });
    attempt("MPI_Get from rank size + 5", true,
            [&] { return MPI_Get(&dst, 1, MPI_INT64_T, n + 5, 0, 1, MPI_INT64_T, win); });
    attempt("MPI_Win_flush of rank size", true, [&] { return MPI_Win_flush(n, win); });
    attempt("MPI_Win_flush_local of rank size + 5", true,
            [&] { return MPI_Win_flush_local(n + 5, win); });
    PLAIN_OK(t, MPI_Win_unlock_all(win));
    attempt("MPI_Win_lock of rank size", true,
            [&] { return MPI_Win_lock(MPI_LOCK_SHARED, n, 0, win); });
    attempt("MPI_Win_flush outside an epoch", false, [&] { return MPI_Win_flush(r, win); });
    attempt("MPI_Win_unlock without a lock", false, [&] { return MPI_Win_unlock(r, win); });
    attempt("MPI_Win_complete without MPI_Win_start", false, [&] { return MPI_Win_complete(win); });
    PLAIN_OK(t, MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    PLAIN_OK(t, MPI_Errhandler_free(&handler));
    MPI_Barrier(MPI_COMM_WORLD);

    const I64 mark = 900 + mpitest::rank();
    PLAIN_OK(t, MPI_Win_lock_all(0, win));
    PLAIN_OK(t, MPI_Put(&mark, 1, MPI_INT64_T, r, w.disp(r, 0), 1, MPI_INT64_T, win));
    PLAIN_OK(t, MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    const I64 got = snapshot<I64>(w, 1)[0];
    EXPECT_EQ(900 + left(), got) << t.name() << ": the window after the errors";
    EXPECT_EQ(-1, dst) << t.name();
    t.value("after the errors", got);
    MPI_Barrier(MPI_COMM_WORLD);
  });
}

// The members of `group`, as MPI_COMM_WORLD ranks.
std::vector<int> world_ranks(MPI_Group group) {
  MPI_Group world = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int size = 0;
  MPI_Group_size(group, &size);
  std::vector<int> mine(static_cast<std::size_t>(size));
  std::vector<int> theirs(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) mine[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(group, size, mine.data(), world, theirs.data());
  MPI_Group_free(&world);
  return theirs;
}

// Collective over `comm`: whether the host itself makes windows of
// `flavor` over it on every rank (Open MPI 4.1.4 cannot make create or
// dynamic windows over one process).
bool host_can_create_over(Flavor flavor, MPI_Comm comm) {
  MPI_Comm dup = MPI_COMM_NULL;
  PMPI_Comm_dup(comm, &dup);
  PMPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  static char memory[16];
  MPI_Win win = MPI_WIN_NULL;
  void *base = nullptr;
  int rc = MPI_SUCCESS;
  switch (flavor) {
    case Flavor::create: rc = PMPI_Win_create(memory, 16, 1, MPI_INFO_NULL, dup, &win); break;
    case Flavor::allocate: rc = PMPI_Win_allocate(16, 1, MPI_INFO_NULL, dup, &base, &win); break;
    case Flavor::shared:
      rc = PMPI_Win_allocate_shared(16, 1, MPI_INFO_NULL, dup, &base, &win);
      break;
    case Flavor::dynamic: rc = PMPI_Win_create_dynamic(MPI_INFO_NULL, dup, &win); break;
  }
  if (win != MPI_WIN_NULL) PMPI_Win_free(&win);
  int mine = rc == MPI_SUCCESS ? 1 : 0;
  int all = 0;
  PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, dup);
  PMPI_Comm_free(&dup);
  return all == 1;
}

// Expects MPI_Win_get_group on windows over `comm` to give its group.
void expect_group_of_comm(Flavor flavor, MPI_Comm comm, const std::string &which) {
  RawPair pair(flavor, 16, 1, comm);
  on_both(pair.reference, pair.served, which, [&](RawWindow &w, Trace &t) {
    MPI_Group group = MPI_GROUP_NULL;
    MPI_Group expected = MPI_GROUP_NULL;
    PLAIN_OK(t, MPI_Win_get_group(w.win(), &group));
    MPI_Comm_group(comm, &expected);
    int result = MPI_UNEQUAL;
    MPI_Group_compare(group, expected, &result);
    EXPECT_EQ(MPI_IDENT, result) << t.name() << ": the group of a window over " << which;
    t.value("MPI_Group_compare", result);
    t.values("members", world_ranks(group));
    MPI_Group_free(&group);
    MPI_Group_free(&expected);
  });
}

// MPI_Win_get_group gives the communicator's group, in its order: over
// MPI_COMM_WORLD and over a split of it whose ranks run backwards (where
// the host can make windows over it). Host defect: Open MPI 4.1.4
// sporadically fails (MPI_ERR_WIN) to create windows over both halves of
// a split at the same time, without the library too, so the halves take
// turns.
TEST_P(PlainRmaWinState, GetGroupIsTheCommunicators_3_9) {
  const int me = mpitest::rank();
  const int n = mpitest::size();
  expect_group_of_comm(GetParam(), MPI_COMM_WORLD, "MPI_COMM_WORLD");
  MPI_Comm split = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &split);
  for (int turn = 0; turn < 2; ++turn) {
    if (me % 2 == turn && host_can_create_over(GetParam(), split))
      expect_group_of_comm(GetParam(), split, "a split communicator");
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Comm_free(&split);
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, PlainRmaWinState, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
}  // namespace mpitest::plain
