// SEMANTICS 2.5-2.9, 3.1-3.4, 3.8 under random input: seeded argument
// tuples (ranks, displacements at and past the window's ends, counts near
// the limits, derived types with holes and a negative lower bound, indices
// near INT_MIN and INT_MAX, the int and _c forms, blocking and request
// forms) against the 16 notified data-movement entry points and the
// counter procedures, every flavor.
// Every call has at most one bad argument, so the class it must return is
// known. Every rank draws the same sequence and keeps a model of every
// window and counter: after each call the target compares its whole memory
// (guard bytes around a dynamic window's region included) and its counter
// with the model, and the origin its result buffer. A refused call changes
// nothing; an accepted one does what its base operation does.
//
// MPITEST_FUZZ_SEED (default 20261201) and MPITEST_FUZZ_CALLS (default
// 120 per flavor) reproduce a run or make it longer.
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

using mpitest::Flavor;

constexpr int kWords = 32;  // int64 words of window memory per rank
constexpr MPI_Aint kBytes = kWords * 8;
constexpr int kGuardWords = 8;  // dynamic windows: words of guard on each side
constexpr std::int64_t kGuardValue = 0x5A5A5A5A5A5A5A5ALL;

std::uint64_t env_number(const char *name, std::uint64_t fallback) {
  const char *text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 10) : fallback;
}

// Datatypes of int64 elements, so that any two can describe the same data
// and MPI_SUM applies: one element, two contiguous, two with a hole
// (vector), and one whose data lies 8 bytes before its start.
struct TypeSet {
  MPI_Datatype types[4] = {MPI_INT64_T, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  int elements[4] = {1, 2, 2, 1};
  // In words: extent, true lower bound, true extent.
  int extent[4] = {1, 2, 3, 1};
  int lower[4] = {0, 0, 0, -1};
  int true_extent[4] = {1, 2, 3, 1};
  TypeSet() {
    MPI_Type_contiguous(2, MPI_INT64_T, &types[1]);
    MPI_Type_vector(2, 1, 2, MPI_INT64_T, &types[2]);
    int one = 1;
    MPI_Aint back = -8;
    MPI_Type_create_hindexed(1, &one, &back, MPI_INT64_T, &types[3]);
    for (int t = 1; t < 4; ++t) MPI_Type_commit(&types[t]);
  }
  ~TypeSet() {
    for (int t = 1; t < 4; ++t) MPI_Type_free(&types[t]);
  }
  TypeSet(const TypeSet &) = delete;
  TypeSet &operator=(const TypeSet &) = delete;
};

enum class Kind { put, get, accumulate, get_accumulate };
enum class Fault { none, index, rank, count, type, disp, range, overflow, op };

// One call, drawn identically on every rank.
struct Call {
  int origin = 0;
  int target = 0;  // MPI_PROC_NULL, or out of the group for Fault::rank
  Kind kind = Kind::put;
  bool request = false;
  bool big = false;  // the _c form
  int ttype = 0;
  int otype = 0;
  MPI_Count tcount = 0;
  MPI_Count ocount = 0;
  MPI_Aint disp = 0;  // in words (bytes for dynamic windows: see at())
  int idx = 0;
  MPI_Op op = MPI_SUM;
  Fault fault = Fault::none;
};

class Fuzzer {
 public:
  Fuzzer(Flavor flavor, std::uint64_t seed)
      : flavor_(flavor), random_(seed), me_(mpitest::rank()), n_(mpitest::size()) {}

  void run(int calls) {
    if (!make_window()) return;
    for (int c = 0; c < calls && !testing::Test::HasFailure(); ++c) step(c);
    free_window();
  }

 private:
  int draw(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random_); }
  static int counters_of(int rank) { return 2 + rank % 3; }
  std::int64_t fill(int rank, int i) const { return rank * 1000 + i + 1; }

  bool make_window() {
    memory_.assign(static_cast<std::size_t>(kWords + 2 * kGuardWords), kGuardValue);
    std::int64_t *mem = memory_.data() + kGuardWords;
    void *base = nullptr;
    int rc = MPI_SUCCESS;
    switch (flavor_) {
      case Flavor::create:
        rc = MPI_Win_create(mem, kBytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win_);
        break;
      case Flavor::allocate:
        rc = MPI_Win_allocate(kBytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win_);
        break;
      case Flavor::shared:
        rc = MPI_Win_allocate_shared(kBytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win_);
        break;
      case Flavor::dynamic:
        rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win_);
        if (rc == MPI_SUCCESS) rc = MPI_Win_attach(win_, mem, kBytes);
        break;
    }
    EXPECT_MPI_OK(rc);
    if (!mpitest::all_ranks(rc == MPI_SUCCESS)) return false;
    MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN);
    words_ = base != nullptr ? static_cast<std::int64_t *>(base) : mem;
    for (int i = 0; i < kWords; ++i) words_[i] = fill(me_, i);
    MPI_Aint address = 0;
    MPI_Get_address(mem, &address);
    addresses_.assign(static_cast<std::size_t>(n_), 0);
    MPI_Allgather(&address, 1, MPI_AINT, addresses_.data(), 1, MPI_AINT, MPI_COMM_WORLD);
    EXPECT_MPI_OK(MPI_Win_set_num_notify(win_, MPI_INFO_NULL, counters_of(me_)));
    model_.assign(static_cast<std::size_t>(n_), std::vector<std::int64_t>(kWords));
    counts_.assign(static_cast<std::size_t>(n_), std::vector<MPI_Count>(4, 0));
    for (int r = 0; r < n_; ++r)
      for (int i = 0; i < kWords; ++i) model_[r][static_cast<std::size_t>(i)] = fill(r, i);
    MPI_Win_lock_all(0, win_);
    MPI_Barrier(MPI_COMM_WORLD);
    return true;
  }

  void free_window() {
    MPI_Win_unlock_all(win_);
    MPI_Barrier(MPI_COMM_WORLD);
    if (flavor_ == Flavor::dynamic) MPI_Win_detach(win_, memory_.data() + kGuardWords);
    MPI_Win_free(&win_);
  }

  // target_disp of word `word` at `target`.
  MPI_Aint at(int target, MPI_Aint word) const {
    if (flavor_ != Flavor::dynamic) return word;
    return addresses_[static_cast<std::size_t>(target)] + word * 8;
  }

  Call draw_call(int c) {
    Call call;
    call.origin = c % n_;
    call.target = draw(0, n_ - 1);
    call.kind = static_cast<Kind>(draw(0, 3));
    call.request = draw(0, 3) == 0;
    call.big = draw(0, 1) == 1;
    call.ttype = draw(0, 3);
    call.tcount = draw(0, 3);
    // Open MPI 4.1.4's osc/rdma answers MPI_Get_accumulate with zeros on
    // MPI_Win_create windows once any of its types is derived, with or
    // without the library (docs/usage.md): predefined types there.
    if (call.kind == Kind::get_accumulate) call.ttype = 0;
    const MPI_Count elements = call.tcount * types_.elements[call.ttype];
    // An origin type whose elements divide the target's data.
    do {
      call.otype = call.kind == Kind::get_accumulate ? 0 : draw(0, 3);
    } while (elements % types_.elements[call.otype] != 0);
    call.ocount = elements / types_.elements[call.otype];
    // A displacement where the target range fits in the window.
    call.disp = draw(first_disp(call), last_disp(call));
    call.idx = draw(0, counters_of(call.target) - 1);
    if (call.kind == Kind::get_accumulate && draw(0, 4) == 0) call.op = MPI_NO_OP;
    if (draw(0, 2) == 0) inject_fault(call);
    if (draw(0, 15) == 0 && call.fault == Fault::none) call.target = MPI_PROC_NULL;
    return call;
  }

  // Words [lower, upper) that `count` elements of type `t` touch, from the
  // displacement; empty for count 0.
  int lower_words(int t, MPI_Count count) const { return count == 0 ? 0 : types_.lower[t]; }
  int upper_words(int t, MPI_Count count) const {
    if (count == 0) return 0;
    return static_cast<int>(count - 1) * types_.extent[t] + types_.lower[t] + types_.true_extent[t];
  }
  int first_disp(const Call &call) const { return -lower_words(call.ttype, call.tcount); }
  int last_disp(const Call &call) const {
    return std::max(first_disp(call), kWords - upper_words(call.ttype, call.tcount));
  }
  // At least one element on both sides, of the target's type.
  void at_least_one(Call &call) const {
    call.tcount = std::max<MPI_Count>(call.tcount, 1);
    call.otype = call.ttype;
    call.ocount = call.tcount;
  }

  void inject_fault(Call &call) {
    call.fault = static_cast<Fault>(draw(1, 8));
    switch (call.fault) {
      case Fault::index: {
        const int choices[] = {-1, counters_of(call.target), INT_MAX, INT_MIN};
        call.idx = choices[draw(0, 3)];
        break;
      }
      case Fault::rank: call.target = draw(0, 1) == 0 ? -100 : n_; break;  // not MPI_PROC_NULL
      case Fault::count:
        (draw(0, 1) == 0 ? call.tcount : call.ocount) = -draw(1, 3);
        if (call.kind == Kind::get_accumulate && call.op == MPI_NO_OP) call.tcount = -1;
        break;
      case Fault::type:
        (draw(0, 1) == 0 || (call.kind == Kind::get_accumulate && call.op == MPI_NO_OP)
             ? call.ttype
             : call.otype) = -1;
        break;
      case Fault::disp:
        if (flavor_ == Flavor::dynamic) {
          // Addresses may be anything: below the region is out of range.
          call.fault = Fault::range;
          at_least_one(call);
          call.disp = first_disp(call) - draw(1, kGuardWords - 1);
        } else {
          call.disp = -draw(1, 1 << 20);
        }
        break;
      case Fault::range:
        at_least_one(call);
        // Past the end by up to the guard, or, for the type with data
        // before its start, below the start.
        call.disp = call.ttype == 3 && draw(0, 1) == 0
                        ? 0
                        : kWords - upper_words(call.ttype, call.tcount) + draw(1, kGuardWords - 1);
        break;
      case Fault::overflow:
        call.big = true;
        call.otype = call.ttype;
        call.tcount = MPI_Count{1} << 62;
        call.ocount = call.tcount;
        break;
      case Fault::op:
        if (call.kind == Kind::accumulate) {
          call.op = MPI_NO_OP;
        } else {
          call.fault = Fault::none;
        }
        break;
      case Fault::none: break;
    }
  }

  static int expected_class(const Call &call) {
    switch (call.fault) {
      case Fault::none: return MPI_SUCCESS;
      case Fault::index: return MPI_ERR_RMA_NOTIFICATION;
      case Fault::rank: return MPI_ERR_RANK;
      case Fault::count:
      case Fault::overflow: return MPI_ERR_COUNT;
      case Fault::type: return MPI_ERR_TYPE;
      case Fault::disp: return MPI_ERR_DISP;
      case Fault::range: return MPI_ERR_RMA_RANGE;
      case Fault::op: return MPI_ERR_OP;
    }
    return MPI_ERR_INTERN;
  }

  // get_accumulate's result: as many MPI_INT64_T as the origin describes
  // (a bad origin count stays bad there).
  MPI_Count result_elements(const Call &call) const {
    if (call.otype < 0 || call.ocount < 0 || call.fault == Fault::overflow) return call.ocount;
    return call.ocount * types_.elements[call.otype];
  }

  MPI_Datatype type(int index) const { return index < 0 ? MPI_DATATYPE_NULL : types_.types[index]; }

  // The origin's call; returns the code.
  int issue(const Call &call, std::vector<std::int64_t> &origin,
            std::vector<std::int64_t> &result) {
    const MPI_Datatype ot = type(call.otype);
    const MPI_Datatype tt = type(call.ttype);
    // Types with a negative lower bound address data before the buffer.
    std::int64_t *o = origin.data() + 1;
    std::int64_t *r = result.data() + 1;
    const int target = call.target;
    const MPI_Aint disp = target >= 0 && target < n_ ? at(target, call.disp) : at(0, call.disp);
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Request *rq = call.request ? &req : nullptr;
    const int oc = static_cast<int>(call.ocount);
    const int tc = static_cast<int>(call.tcount);
    int rc = MPI_ERR_INTERN;
    switch (call.kind) {
      case Kind::put:
        rc = call.big ? (rq ? MPI_Rput_notify_c(o, call.ocount, ot, target, disp, call.tcount, tt,
                                                call.idx, win_, rq)
                            : MPI_Put_notify_c(o, call.ocount, ot, target, disp, call.tcount, tt,
                                               call.idx, win_))
                      : (rq ? MPI_Rput_notify(o, oc, ot, target, disp, tc, tt, call.idx, win_, rq)
                            : MPI_Put_notify(o, oc, ot, target, disp, tc, tt, call.idx, win_));
        break;
      case Kind::get:
        rc = call.big ? (rq ? MPI_Rget_notify_c(r, call.ocount, ot, target, disp, call.tcount, tt,
                                                call.idx, win_, rq)
                            : MPI_Get_notify_c(r, call.ocount, ot, target, disp, call.tcount, tt,
                                               call.idx, win_))
                      : (rq ? MPI_Rget_notify(r, oc, ot, target, disp, tc, tt, call.idx, win_, rq)
                            : MPI_Get_notify(r, oc, ot, target, disp, tc, tt, call.idx, win_));
        break;
      case Kind::accumulate:
        rc = call.big ? (rq ? MPI_Raccumulate_notify_c(o, call.ocount, ot, target, disp,
                                                       call.tcount, tt, call.op, call.idx, win_, rq)
                            : MPI_Accumulate_notify_c(o, call.ocount, ot, target, disp, call.tcount,
                                                      tt, call.op, call.idx, win_))
                      : (rq ? MPI_Raccumulate_notify(o, oc, ot, target, disp, tc, tt, call.op,
                                                     call.idx, win_, rq)
                            : MPI_Accumulate_notify(o, oc, ot, target, disp, tc, tt, call.op,
                                                    call.idx, win_));
        break;
      case Kind::get_accumulate: {
        // The result as plain elements (the origin's are plain too).
        const MPI_Count rcount = result_elements(call);
        const MPI_Datatype rtype = call.otype < 0 ? MPI_DATATYPE_NULL : MPI_INT64_T;
        const int rc_int = static_cast<int>(rcount);
        rc =
            call.big
                ? (rq ? MPI_Rget_accumulate_notify_c(o, call.ocount, ot, r, rcount, rtype, target,
                                                     disp, call.tcount, tt, call.op, call.idx, win_,
                                                     rq)
                      : MPI_Get_accumulate_notify_c(o, call.ocount, ot, r, rcount, rtype, target,
                                                    disp, call.tcount, tt, call.op, call.idx, win_))
                : (rq ? MPI_Rget_accumulate_notify(o, oc, ot, r, rc_int, rtype, target, disp, tc,
                                                   tt, call.op, call.idx, win_, rq)
                      : MPI_Get_accumulate_notify(o, oc, ot, r, rc_int, rtype, target, disp, tc, tt,
                                                  call.op, call.idx, win_));
        break;
      }
    }
    if (rq != nullptr && rc == MPI_SUCCESS) {
      EXPECT_MPI_OK(MPI_Wait(rq, MPI_STATUS_IGNORE));
    } else if (rq != nullptr) {
      EXPECT_EQ(MPI_REQUEST_NULL, req) << "a failed call wrote its request";
    }
    return rc;
  }

  // The elements `count` of `type` describe, from `buffer` (word 0 is the
  // type's start), packed; or written back from `packed`.
  std::vector<std::int64_t> gather(const std::int64_t *buffer, MPI_Count count, int type_index) {
    const int e = static_cast<int>(count) * types_.elements[type_index];
    std::vector<std::int64_t> packed(static_cast<std::size_t>(e));
    int position = 0;
    MPI_Pack(buffer, static_cast<int>(count), types_.types[type_index], packed.data(), e * 8,
             &position, MPI_COMM_WORLD);
    return packed;
  }
  void scatter(const std::vector<std::int64_t> &packed, std::int64_t *buffer, MPI_Count count,
               int type_index) {
    int position = 0;
    MPI_Unpack(packed.data(), static_cast<int>(packed.size() * 8), &position, buffer,
               static_cast<int>(count), types_.types[type_index], MPI_COMM_WORLD);
  }

  // What an accepted call does to the model; returns the result buffer.
  std::vector<std::int64_t> apply(const Call &call, const std::vector<std::int64_t> &origin,
                                  std::vector<std::int64_t> result) {
    if (call.target == MPI_PROC_NULL) return result;
    std::vector<std::int64_t> &window = model_[static_cast<std::size_t>(call.target)];
    std::int64_t *at_disp = window.data() + call.disp;  // the type's start
    std::vector<std::int64_t> old = gather(at_disp, call.tcount, call.ttype);
    switch (call.kind) {
      case Kind::put:
        scatter(gather(origin.data() + 1, call.ocount, call.otype), at_disp, call.tcount,
                call.ttype);
        break;
      case Kind::get: scatter(old, result.data() + 1, call.ocount, call.otype); break;
      case Kind::accumulate:
      case Kind::get_accumulate: {
        if (call.kind == Kind::get_accumulate)
          scatter(old, result.data() + 1, static_cast<MPI_Count>(old.size()), 0);
        if (call.op == MPI_NO_OP) break;
        std::vector<std::int64_t> sum = old;
        const std::vector<std::int64_t> add = gather(origin.data() + 1, call.ocount, call.otype);
        for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += add[i];
        scatter(sum, at_disp, call.tcount, call.ttype);
        break;
      }
    }
    counts_[static_cast<std::size_t>(call.target)][static_cast<std::size_t>(call.idx)] += 1;
    return result;
  }

  static std::string describe(const Call &call) {
    auto n = [](auto v) { return std::to_string(v); };
    return "(kind " + n(static_cast<int>(call.kind)) + ", fault " +
           n(static_cast<int>(call.fault)) + ", origin " + n(call.origin) + ", target " +
           n(call.target) + ", types " + n(call.otype) + "/" + n(call.ttype) + ", counts " +
           n(call.ocount) + "/" + n(call.tcount) + ", disp " + n(call.disp) + ", idx " +
           n(call.idx) + (call.op == MPI_NO_OP ? ", MPI_NO_OP" : "") +
           (call.request ? ", request form" : "") + (call.big ? ", _c form" : "") + ")";
  }

  // One of the counter procedures, on the origin's own counters, with a
  // drawn index (a bad one now and then), threshold or rank.
  void counter_step(int c) {
    const int origin = c % n_;
    const int procedure = draw(0, 3);
    const int own = counters_of(origin);
    const int indices[] = {draw(0, own - 1), -1, own, INT_MAX, INT_MIN};
    const int idx = indices[draw(0, 2) == 0 ? draw(1, 4) : 0];
    const bool good_idx = idx >= 0 && idx < own;
    const int ranks[] = {draw(0, n_ - 1), -1, n_, INT_MIN};
    const int rank = ranks[draw(0, 2) == 0 ? draw(1, 3) : 0];
    const MPI_Count offsets[] = {-1, 0, 1};
    const MPI_Count offset = offsets[draw(0, 2)];
    // (Every rank draws all of it: the sequence must stay the same.)
    const bool negative_threshold = good_idx && draw(0, 3) == 0;
    const std::string what = "call " + std::to_string(c) + " (counter procedure " +
                             std::to_string(procedure) + ", origin " + std::to_string(origin) +
                             ", idx " + std::to_string(idx) + ", rank " + std::to_string(rank) +
                             ")";
    if (me_ != origin) return;
    MPI_Count &model =
        counts_[static_cast<std::size_t>(me_)][static_cast<std::size_t>(good_idx ? idx : 0)];
    MPI_Count v = -5;
    switch (procedure) {
      case 0:
        EXPECT_MPI_CLASS(good_idx ? MPI_SUCCESS : MPI_ERR_RMA_NOTIFICATION,
                         MPI_Win_get_notify_value(win_, idx, &v))
            << what;
        EXPECT_EQ(good_idx ? model : -5, v) << what;
        break;
      case 1:
        EXPECT_MPI_CLASS(good_idx ? MPI_SUCCESS : MPI_ERR_RMA_NOTIFICATION,
                         MPI_Win_reset_notify_value(win_, idx, &v))
            << what;
        EXPECT_EQ(good_idx ? model : -5, v) << what;
        if (good_idx) model = 0;
        break;
      case 2: {
        // A threshold below, at or above the counter, or negative.
        const MPI_Count threshold =
            negative_threshold ? -1 : std::max<MPI_Count>(0, model + offset);
        MPI_Request r = MPI_REQUEST_NULL;
        const int expected = !good_idx       ? MPI_ERR_RMA_NOTIFICATION
                             : threshold < 0 ? MPI_ERR_ARG
                                             : MPI_SUCCESS;
        EXPECT_MPI_CLASS(expected, MPI_Win_notify_threshold(win_, idx, threshold, &r)) << what;
        if (expected != MPI_SUCCESS) {
          EXPECT_EQ(MPI_REQUEST_NULL, r) << what;
          break;
        }
        int done = 0;
        EXPECT_MPI_OK(MPI_Test(&r, &done, MPI_STATUS_IGNORE));
        EXPECT_EQ(threshold <= model ? 1 : 0, done) << what << ": threshold " << threshold;
        if (done == 0) {
          MPI_Cancel(&r);
          MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        break;
      }
      default: {
        int count = -5;
        const bool good_rank = rank >= 0 && rank < n_;
        EXPECT_MPI_CLASS(good_rank ? MPI_SUCCESS : MPI_ERR_RANK,
                         MPI_Win_get_num_notify(win_, rank, &count))
            << what;
        EXPECT_EQ(good_rank ? counters_of(rank) : -5, count) << what;
      }
    }
  }

  void step(int c) {
    if (draw(0, 4) == 0) {
      counter_step(c);
      MPI_Barrier(MPI_COMM_WORLD);
      expect_model("after a counter procedure");
      MPI_Barrier(MPI_COMM_WORLD);
      return;
    }
    const Call call = draw_call(c);
    const std::string what = "call " + std::to_string(c) + " " + describe(call);
    // Origin and result buffers with a word before their start (for the
    // type with a negative lower bound), drawn the same on every rank.
    const std::size_t words = static_cast<std::size_t>(2 * kWords + 2);
    std::vector<std::int64_t> origin(words);
    for (std::size_t i = 0; i < words; ++i) origin[i] = draw(-1000, 1000);
    std::vector<std::int64_t> result(words, -7);
    if (me_ == call.origin) {
      std::vector<std::int64_t> issued_result = result;
      const int rc = issue(call, origin, issued_result);
      EXPECT_EQ(mpitest::class_name(expected_class(call)),
                mpitest::class_name(mpitest::error_class(rc)))
          << what;
      EXPECT_MPI_OK(MPI_Win_flush_all(win_));
      if (call.fault == Fault::none) result = apply(call, origin, result);
      for (std::size_t i = 0; i < words; ++i)
        EXPECT_EQ(result[i], issued_result[i]) << what << ": result word " << i;
    } else if (call.fault == Fault::none) {
      (void)apply(call, origin, result);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win_);
    expect_model(what);
    MPI_Barrier(MPI_COMM_WORLD);
  }

  void expect_model(const std::string &what) {
    const std::vector<std::int64_t> &mine = model_[static_cast<std::size_t>(me_)];
    int wrong = 0;
    for (int i = 0; i < kWords; ++i) wrong += words_[i] != mine[static_cast<std::size_t>(i)];
    EXPECT_EQ(0, wrong) << what << ": words of rank " << me_ << " differ from the model";
    if (flavor_ == Flavor::dynamic || flavor_ == Flavor::create) {
      for (int g = 0; g < kGuardWords; ++g) {
        EXPECT_EQ(kGuardValue, memory_[static_cast<std::size_t>(g)]) << what << ": guard " << g;
        EXPECT_EQ(kGuardValue, memory_[static_cast<std::size_t>(kGuardWords + kWords + g)])
            << what << ": guard after, " << g;
      }
    }
    for (int idx = 0; idx < counters_of(me_); ++idx) {
      MPI_Count v = -1;
      EXPECT_MPI_OK(MPI_Win_get_notify_value(win_, idx, &v));
      EXPECT_EQ(counts_[static_cast<std::size_t>(me_)][static_cast<std::size_t>(idx)], v)
          << what << ": counter " << idx << " of rank " << me_;
    }
  }

  Flavor flavor_;
  std::mt19937_64 random_;
  int me_;
  int n_;
  TypeSet types_;
  MPI_Win win_ = MPI_WIN_NULL;
  std::vector<std::int64_t> memory_;              // guards, then the create/dynamic memory
  std::int64_t *words_ = nullptr;                 // this rank's window memory
  std::vector<MPI_Aint> addresses_;               // dynamic windows: each rank's memory
  std::vector<std::vector<std::int64_t>> model_;  // every rank's window
  std::vector<std::vector<MPI_Count>> counts_;    // every rank's counters
};

class Fuzz : public mpitest::FlavorTest {};

TEST_P(Fuzz, RandomArgumentsChangeOnlyWhatTheyShould_3_4) {
  const std::uint64_t seed = env_number("MPITEST_FUZZ_SEED", 20261201);
  const auto calls = static_cast<int>(env_number("MPITEST_FUZZ_CALLS", 120));
  Fuzzer fuzzer(GetParam(), seed + static_cast<std::uint64_t>(GetParam()));
  fuzzer.run(calls);
  if (HasFailure() && mpitest::rank() == 0)
    std::fprintf(stderr, "reproduce with MPITEST_FUZZ_SEED=%llu\n",
                 static_cast<unsigned long long>(seed));
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, Fuzz, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
