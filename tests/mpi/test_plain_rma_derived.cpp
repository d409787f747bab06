// SEMANTICS 3.9, plain RMA with derived datatypes: vector, indexed and
// struct types on either side of put, get, accumulate and get_accumulate.
// The sequence runs on a reference window (mpinotify_disable) and on a
// served one; data and traces must agree.
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "plain_rma_helpers.hpp"

namespace mpitest::plain {
namespace {

class PlainRmaDerived : public FlavorTest {};

// Region k of the derived-type window: ints [32k, 32k + 32).
constexpr int kRegionInts = 32;
int derived_initial(int owner, int i) { return owner * 1000 + i; }
MPI_Aint region(const TestWindow &w, int target, int k) {
  return w.disp(target,
                static_cast<MPI_Aint>(k * kRegionInts) * static_cast<MPI_Aint>(sizeof(int)));
}

// A struct of an int, a double and a short, as a C struct.
struct Mixed {
  int i;
  double d;
  short s;
};

struct DerivedTypes {
  MPI_Datatype vector = MPI_DATATYPE_NULL;   // 4 blocks of 2 ints, stride 3
  MPI_Datatype indexed = MPI_DATATYPE_NULL;  // ints {0}, {4,5,6}, {9,10}
  MPI_Datatype ints = MPI_DATATYPE_NULL;     // struct: ints {0,1} and {3}, extent 4 ints
  MPI_Datatype mixed = MPI_DATATYPE_NULL;    // struct Mixed
  DerivedTypes() {
    MPI_Type_vector(4, 2, 3, MPI_INT, &vector);
    const int lengths[3] = {1, 3, 2};
    const int displs[3] = {0, 4, 9};
    MPI_Type_indexed(3, lengths, displs, MPI_INT, &indexed);
    const int int_lengths[2] = {2, 1};
    const MPI_Aint int_displs[2] = {0, 3 * sizeof(int)};
    const MPI_Datatype int_types[2] = {MPI_INT, MPI_INT};
    MPI_Datatype packed = MPI_DATATYPE_NULL;
    MPI_Type_create_struct(2, int_lengths, int_displs, int_types, &packed);
    MPI_Type_create_resized(packed, 0, 4 * sizeof(int), &ints);
    MPI_Type_free(&packed);
    const int mixed_lengths[3] = {1, 1, 1};
    const MPI_Aint mixed_displs[3] = {offsetof(Mixed, i), offsetof(Mixed, d), offsetof(Mixed, s)};
    const MPI_Datatype mixed_types[3] = {MPI_INT, MPI_DOUBLE, MPI_SHORT};
    MPI_Datatype raw = MPI_DATATYPE_NULL;
    MPI_Type_create_struct(3, mixed_lengths, mixed_displs, mixed_types, &raw);
    MPI_Type_create_resized(raw, 0, sizeof(Mixed), &mixed);
    MPI_Type_free(&raw);
    for (MPI_Datatype *d : {&vector, &indexed, &ints, &mixed}) MPI_Type_commit(d);
  }
  ~DerivedTypes() {
    for (MPI_Datatype *d : {&vector, &indexed, &ints, &mixed}) MPI_Type_free(d);
  }
  DerivedTypes(const DerivedTypes &) = delete;
  DerivedTypes &operator=(const DerivedTypes &) = delete;
};
constexpr int kVectorInts[8] = {0, 1, 3, 4, 6, 7, 9, 10};
constexpr int kIndexedInts[6] = {0, 4, 5, 6, 9, 10};
constexpr int kIntsInts[6] = {0, 1, 3, 4, 5, 7};  // two of `ints`

// Derived types on both sides of put, get and accumulate; then, last (see
// below), get_accumulate into a vector. Fresh windows: Open MPI 4.1.4's
// osc/rdma returns zeros from MPI_Get_accumulate on MPI_Win_create windows
// once any derived type was used on that window (sticky), which would
// spoil the other tests' shared windows.
TEST_P(PlainRmaDerived, PutGetAccumulate_3_9) {
  const DerivedTypes dt;
  bool host_defect = false;  // the reference's get_accumulate came back wrong
  auto sequence = [&](TestWindow &w, Trace &t) {
    const int me = mpitest::rank();
    const int r = right();
    const int l = left();
    const MPI_Win win = w.win();
    constexpr int kInts = 8 * kRegionInts;
    std::vector<int> mine(kInts);
    for (int i = 0; i < kInts; ++i) mine[static_cast<std::size_t>(i)] = derived_initial(me, i);
    fill(w, mine);
    auto value = [](int origin, int i) { return -(origin * 100 + i + 1); };
    std::vector<int> contiguous(16);
    for (int i = 0; i < 16; ++i) contiguous[static_cast<std::size_t>(i)] = value(me, i);
    // Origin side of a vector (and of `ints`): element k at kVectorInts[k].
    auto spread_of = [&](int origin) {
      std::vector<int> v(16, 0);
      for (int k = 0; k < 8; ++k)
        v[static_cast<std::size_t>(kVectorInts[k])] = value(origin, 20 + k);
      return v;
    };
    const std::vector<int> spread = spread_of(me);
    auto mixed_of = [&](int origin) {
      return Mixed{value(origin, 40), 0.5 + origin, static_cast<short>(origin + 3)};
    };
    const Mixed m = mixed_of(me);
    std::vector<int> got_indexed(6, -1);
    Mixed got_mixed{-1, -1.0, -1};

    PLAIN_OK(t, MPI_Win_lock_all(0, win));
    // Region 0: contiguous origin, vector target.
    PLAIN_OK(t, MPI_Put(contiguous.data(), 8, MPI_INT, r, region(w, r, 0), 1, dt.vector, win));
    // Region 1: indexed target read into contiguous.
    PLAIN_OK(t, MPI_Get(got_indexed.data(), 6, MPI_INT, r, region(w, r, 1), 1, dt.indexed, win));
    // Region 2: vector origin, contiguous target.
    PLAIN_OK(t, MPI_Put(spread.data(), 1, dt.vector, r, region(w, r, 2), 8, MPI_INT, win));
    // Region 3: SUM into an indexed target.
    PLAIN_OK(t, MPI_Accumulate(contiguous.data(), 6, MPI_INT, r, region(w, r, 3), 1, dt.indexed,
                               MPI_SUM, win));
    // Region 4: REPLACE with the int struct on both sides (count 2).
    PLAIN_OK(t, MPI_Accumulate(spread.data(), 2, dt.ints, r, region(w, r, 4), 2, dt.ints,
                               MPI_REPLACE, win));
    // Regions 5, 6: the mixed struct put, and read back from the left.
    PLAIN_OK(t, MPI_Put(&m, 1, dt.mixed, r, region(w, r, 5), 1, dt.mixed, win));
    PLAIN_OK(t, MPI_Get(&got_mixed, 1, dt.mixed, l, region(w, l, 6), 1, dt.mixed, win));
    PLAIN_OK(t, MPI_Win_unlock_all(win));

    for (int k = 0; k < 6; ++k) {
      EXPECT_EQ(derived_initial(r, kRegionInts + kIndexedInts[k]),
                got_indexed[static_cast<std::size_t>(k)])
          << t.name() << ": MPI_Get with an indexed target, element " << k;
    }
    // The mixed struct read from the left's untouched region 6: its fields
    // are bytes of the initial ints there.
    std::vector<int> left6(kRegionInts);
    for (int i = 0; i < kRegionInts; ++i)
      left6[static_cast<std::size_t>(i)] = derived_initial(l, 6 * kRegionInts + i);
    const char *left6_bytes = reinterpret_cast<const char *>(left6.data());
    Mixed want{};
    std::memcpy(&want.i, left6_bytes + offsetof(Mixed, i), sizeof want.i);
    std::memcpy(&want.d, left6_bytes + offsetof(Mixed, d), sizeof want.d);
    std::memcpy(&want.s, left6_bytes + offsetof(Mixed, s), sizeof want.s);
    EXPECT_EQ(want.i, got_mixed.i) << t.name() << ": MPI_Get of the mixed struct";
    EXPECT_EQ(text(want.d), text(got_mixed.d)) << t.name() << ": MPI_Get of the mixed struct";
    EXPECT_EQ(want.s, got_mixed.s) << t.name() << ": MPI_Get of the mixed struct";
    t.values("MPI_Get indexed", got_indexed);
    t.values("MPI_Get mixed",
             std::vector<std::string>{text(got_mixed.i), text(got_mixed.d), text(got_mixed.s)});

    std::vector<int> expected = mine;
    auto at = [&](int k, int i) -> int & {
      return expected[static_cast<std::size_t>(k * kRegionInts + i)];
    };
    const std::vector<int> left_spread = spread_of(l);
    for (int k = 0; k < 8; ++k) at(0, kVectorInts[k]) = value(l, k);
    for (int k = 0; k < 8; ++k) at(2, k) = value(l, 20 + k);
    for (int k = 0; k < 6; ++k) at(3, kIndexedInts[k]) += value(l, k);
    for (int i : kIntsInts) at(4, i) = left_spread[static_cast<std::size_t>(i)];
    // Region 5: the left's struct fields; its padding keeps the initial ints.
    const Mixed left_m = mixed_of(l);
    char *e5 = reinterpret_cast<char *>(&at(5, 0));
    std::memcpy(e5 + offsetof(Mixed, i), &left_m.i, sizeof left_m.i);
    std::memcpy(e5 + offsetof(Mixed, d), &left_m.d, sizeof left_m.d);
    std::memcpy(e5 + offsetof(Mixed, s), &left_m.s, sizeof left_m.s);
    MPI_Barrier(MPI_COMM_WORLD);
    std::vector<int> mem = snapshot<int>(w, static_cast<std::size_t>(kInts));
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(expected[i], mem[i])
          << t.name() << ": int " << i << " (region " << i / kRegionInts << ")";
    }
    t.values("memory", mem);
    MPI_Barrier(MPI_COMM_WORLD);  // read before the next epoch writes

    // Region 7: get_accumulate SUM into a vector, last on this window.
    // Open MPI 4.1.4 (host defect, see above) returns zeros or stale heap
    // bytes here on the reference window: the old values then say nothing
    // and are compared on neither window (the update of the target still
    // is).
    std::vector<int> old(8, -1);
    PLAIN_OK(t, MPI_Win_lock_all(0, win));
    PLAIN_OK(t, MPI_Get_accumulate(contiguous.data(), 8, MPI_INT, old.data(), 8, MPI_INT, r,
                                   region(w, r, 7), 1, dt.vector, MPI_SUM, win));
    PLAIN_OK(t, MPI_Win_unlock_all(win));
    bool right_values = true;
    for (int k = 0; k < 8; ++k) {
      right_values = right_values && old[static_cast<std::size_t>(k)] ==
                                         derived_initial(r, 7 * kRegionInts + kVectorInts[k]);
    }
    if (t.side() == Side::reference) host_defect = !right_values;
    if (!host_defect) {
      EXPECT_TRUE(right_values) << t.name() << ": MPI_Get_accumulate with a vector target returned "
                                << testing::PrintToString(old);
      t.values("MPI_Get_accumulate old", old);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const std::vector<int> after = snapshot<int>(w, static_cast<std::size_t>(kInts));
    for (int k = 0; k < 8; ++k) {
      const int i = 7 * kRegionInts + kVectorInts[k];
      EXPECT_EQ(mine[static_cast<std::size_t>(i)] + value(l, k), after[static_cast<std::size_t>(i)])
          << t.name() << ": MPI_Get_accumulate target int " << i;
    }
    t.values("memory after MPI_Get_accumulate", after);
  };
  const Info ref_info = info_for(Side::reference);
  TestWindow reference_window(GetParam(), 8 * kRegionInts * sizeof(int), ref_info.get());
  TestWindow served_window(GetParam(), 8 * kRegionInts * sizeof(int));
  on_both(reference_window, served_window, "derived types", sequence);
  if (!all_ranks(!host_defect) && mpitest::rank() == 0) {
    std::printf(
        "note: host defect: MPI_Get_accumulate returned wrong old values on the reference "
        "%s window (known Open MPI 4.1.4 osc/rdma defect)\n",
        mpitest::flavor_name(GetParam()).c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, PlainRmaDerived, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
}  // namespace mpitest::plain
