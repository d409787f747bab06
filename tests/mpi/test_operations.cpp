// SEMANTICS 3.1-3.5: the sixteen notified data-movement entry points (Put,
// Get, Accumulate, Get_accumulate; blocking and request forms; int and _c
// counts): the data they move, the one increment each makes, and the calls
// that must fail without moving anything.
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

enum class Kind { put, get, accumulate, get_accumulate };

// One of the 16 entry points.
struct Form {
  Kind kind;
  bool request;  // MPI_R..._notify
  bool large;    // ..._notify_c
};

const std::vector<Form> &all_forms() {
  static const std::vector<Form> forms = [] {
    std::vector<Form> v;
    for (Kind kind : {Kind::put, Kind::get, Kind::accumulate, Kind::get_accumulate}) {
      for (bool request : {false, true}) {
        for (bool large : {false, true}) v.push_back({kind, request, large});
      }
    }
    return v;
  }();
  return forms;
}

std::string form_name(const Form &f) {
  static const char *const blocking[] = {"Put", "Get", "Accumulate", "Get_accumulate"};
  static const char *const request[] = {"Rput", "Rget", "Raccumulate", "Rget_accumulate"};
  const int k = static_cast<int>(f.kind);
  return std::string("MPI_") + (f.request ? request[k] : blocking[k]) + "_notify" +
         (f.large ? "_c" : "");
}

bool has_origin(Kind kind) { return kind != Kind::get; }
bool has_result(Kind kind) { return kind == Kind::get || kind == Kind::get_accumulate; }
bool has_op(Kind kind) { return kind == Kind::accumulate || kind == Kind::get_accumulate; }

// The arguments of any of the 16 calls. For a get, `result` is the origin
// buffer (where the data lands).
struct Call {
  const void *origin = nullptr;
  MPI_Count origin_count = 0;
  MPI_Datatype origin_type = MPI_INT;
  void *result = nullptr;
  MPI_Count result_count = 0;
  MPI_Datatype result_type = MPI_INT;
  int target = 0;
  MPI_Aint disp = 0;
  MPI_Count target_count = 0;
  MPI_Datatype target_type = MPI_INT;
  MPI_Op op = MPI_SUM;
  int idx = 0;
};

int issue(const Form &f, const Call &c, MPI_Win win, MPI_Request *req) {
  const int oc = static_cast<int>(c.origin_count);
  const int rc = static_cast<int>(c.result_count);
  const int tc = static_cast<int>(c.target_count);
  switch (f.kind) {
    case Kind::put:
      if (f.large) {
        return f.request ? MPI_Rput_notify_c(c.origin, c.origin_count, c.origin_type, c.target,
                                             c.disp, c.target_count, c.target_type, c.idx, win, req)
                         : MPI_Put_notify_c(c.origin, c.origin_count, c.origin_type, c.target,
                                            c.disp, c.target_count, c.target_type, c.idx, win);
      }
      return f.request ? MPI_Rput_notify(c.origin, oc, c.origin_type, c.target, c.disp, tc,
                                         c.target_type, c.idx, win, req)
                       : MPI_Put_notify(c.origin, oc, c.origin_type, c.target, c.disp, tc,
                                        c.target_type, c.idx, win);
    case Kind::get:
      if (f.large) {
        return f.request ? MPI_Rget_notify_c(c.result, c.result_count, c.result_type, c.target,
                                             c.disp, c.target_count, c.target_type, c.idx, win, req)
                         : MPI_Get_notify_c(c.result, c.result_count, c.result_type, c.target,
                                            c.disp, c.target_count, c.target_type, c.idx, win);
      }
      return f.request ? MPI_Rget_notify(c.result, rc, c.result_type, c.target, c.disp, tc,
                                         c.target_type, c.idx, win, req)
                       : MPI_Get_notify(c.result, rc, c.result_type, c.target, c.disp, tc,
                                        c.target_type, c.idx, win);
    case Kind::accumulate:
      if (f.large) {
        return f.request ? MPI_Raccumulate_notify_c(c.origin, c.origin_count, c.origin_type,
                                                    c.target, c.disp, c.target_count, c.target_type,
                                                    c.op, c.idx, win, req)
                         : MPI_Accumulate_notify_c(c.origin, c.origin_count, c.origin_type,
                                                   c.target, c.disp, c.target_count, c.target_type,
                                                   c.op, c.idx, win);
      }
      return f.request ? MPI_Raccumulate_notify(c.origin, oc, c.origin_type, c.target, c.disp, tc,
                                                c.target_type, c.op, c.idx, win, req)
                       : MPI_Accumulate_notify(c.origin, oc, c.origin_type, c.target, c.disp, tc,
                                               c.target_type, c.op, c.idx, win);
    case Kind::get_accumulate:
      if (f.large) {
        return f.request
                   ? MPI_Rget_accumulate_notify_c(c.origin, c.origin_count, c.origin_type, c.result,
                                                  c.result_count, c.result_type, c.target, c.disp,
                                                  c.target_count, c.target_type, c.op, c.idx, win,
                                                  req)
                   : MPI_Get_accumulate_notify_c(c.origin, c.origin_count, c.origin_type, c.result,
                                                 c.result_count, c.result_type, c.target, c.disp,
                                                 c.target_count, c.target_type, c.op, c.idx, win);
      }
      return f.request ? MPI_Rget_accumulate_notify(c.origin, oc, c.origin_type, c.result, rc,
                                                    c.result_type, c.target, c.disp, tc,
                                                    c.target_type, c.op, c.idx, win, req)
                       : MPI_Get_accumulate_notify(c.origin, oc, c.origin_type, c.result, rc,
                                                   c.result_type, c.target, c.disp, tc,
                                                   c.target_type, c.op, c.idx, win);
  }
  return MPI_ERR_INTERN;
}

// Issues a call that should succeed; a request form's request is waited for.
int run(const Form &f, const Call &c, MPI_Win win) {
  MPI_Request req = MPI_REQUEST_NULL;
  const int code = issue(f, c, win, &req);
  if (f.request && code == MPI_SUCCESS) {
    EXPECT_MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE)) << form_name(f);
    EXPECT_EQ(MPI_REQUEST_NULL, req) << form_name(f) << ": the request was not freed by MPI_Wait";
  }
  return code;
}

// Issues a call that should fail: a request form must leave *request as it
// was (SEMANTICS 3.7).
int run_failing(const Form &f, const Call &c, MPI_Win win) {
  unsigned char pattern[sizeof(MPI_Request)];
  std::memset(pattern, 0x5a, sizeof pattern);
  MPI_Request req;
  std::memcpy(&req, pattern, sizeof req);
  const int code = issue(f, c, win, &req);
  if (code == MPI_SUCCESS) {
    if (f.request) MPI_Wait(&req, MPI_STATUS_IGNORE);
    return code;
  }
  if (f.request) {
    EXPECT_EQ(0, std::memcmp(&req, pattern, sizeof req))
        << form_name(f) << " wrote *request although it failed";
  }
  return code;
}

// Window contents: ints, in regions of kRegion, one region per slot.
constexpr int kWords = 1024;  // 4 KiB per rank
constexpr int kRegion = 32;
constexpr int kCount = 8;  // ints moved by one operation
constexpr MPI_Aint kBytes = kWords * static_cast<MPI_Aint>(sizeof(int));

// What rank `owner`'s window holds at int i before a test moves anything.
int initial(int owner, int i) { return (owner + 1) * 1000000 + i; }
// What `origin` sends in slot `slot`, element i: distinct per origin and slot.
int payload(int origin, int slot, int i) { return origin * 10000 + slot * 100 + i + 1; }

MPI_Aint region_offset(int slot) { return static_cast<MPI_Aint>(slot) * kRegion * sizeof(int); }

void fill_initial(const TestWindow &w) {
  int *mem = w.as<int>();
  for (int i = 0; i < kWords; ++i) mem[i] = initial(mpitest::rank(), i);
}

std::vector<int> payloads(int slot, int count) {
  std::vector<int> v(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    v[static_cast<std::size_t>(i)] = payload(mpitest::rank(), slot, i);
  return v;
}

// Expects this rank's window to hold its initial data, except in
// [from, from + len) ints, which the caller checked.
void expect_initial_except(const TestWindow &w, int from, int len) {
  const int *mem = w.as<int>();
  int wrong = 0;
  for (int i = 0; i < kWords; ++i) {
    if (i >= from && i < from + len) continue;
    if (mem[i] != initial(mpitest::rank(), i) && ++wrong <= 5) {
      ADD_FAILURE() << "int " << i << " of rank " << mpitest::rank() << "'s window is " << mem[i]
                    << ", was " << initial(mpitest::rank(), i) << " and nothing should write it";
    }
  }
  EXPECT_EQ(0, wrong) << "ints of the window written that should not be";
}

void expect_counter(MPI_Win win, int idx, MPI_Count expected, const std::string &what) {
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(win, idx, &v));
  EXPECT_EQ(expected, v) << "counter " << idx << " (" << what << ") on rank " << mpitest::rank();
}

void expect_untouched(const std::vector<int> &buffer, const std::string &what) {
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    EXPECT_EQ(-1, buffer[i]) << what << ": buffer element " << i << " was written";
    if (buffer[i] != -1) break;
  }
}

class Operations : public mpitest::FlavorTest {};

// One operation of the main test: an entry point, the op it uses, and the
// slot (region and counter) it owns.
struct Slot {
  Form form;
  MPI_Op op;
};

std::vector<Slot> every_form_slots() {
  std::vector<Slot> slots;
  for (const Form &f : all_forms()) slots.push_back({f, MPI_SUM});
  for (const Form &f : all_forms()) {
    if (f.kind == Kind::get_accumulate) slots.push_back({f, MPI_NO_OP});
  }
  return slots;
}

std::string slot_name(const Slot &s) {
  return form_name(s.form) + (s.op == MPI_NO_OP ? " with MPI_NO_OP" : "");
}

bool reads_target(const Slot &s) { return has_result(s.form.kind); }

// SEMANTICS 3.1: each of the 16 entry points (and Get_accumulate with
// MPI_NO_OP) moves what its base operation would and increments the
// target's counter exactly once; once the target sees the increment, the
// data is there, and a get's read is over (the target may overwrite the
// memory and the origin still gets the old data).
TEST_P(Operations, EveryFormMovesItsDataAndNotifiesOnce_3_1) {
  TestWindow w(GetParam(), kBytes);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const int origin = (me + n - 1) % n;
  const std::vector<Slot> slots = every_form_slots();
  const int nslots = static_cast<int>(slots.size());
  fill_initial(w);
  w.set_num_notify(nslots);
  MPI_Barrier(MPI_COMM_WORLD);

  std::vector<std::vector<int>> sent(slots.size());
  std::vector<std::vector<int>> got(slots.size(), std::vector<int>(kCount, -1));
  MPI_Win_lock_all(0, w.win());
  for (int s = 0; s < nslots; ++s) {
    const std::size_t us = static_cast<std::size_t>(s);
    sent[us] = payloads(s, kCount);
    Call c;
    c.origin = sent[us].data();
    c.origin_count = kCount;
    c.result = got[us].data();
    c.result_count = kCount;
    c.target = target;
    c.disp = w.disp(target, region_offset(s));
    c.target_count = kCount;
    c.op = slots[us].op;
    c.idx = s;
    EXPECT_MPI_OK(run(slots[us].form, c, w.win())) << slot_name(slots[us]);
  }
  MPI_Win_unlock_all(w.win());

  // As the target of `origin`.
  int *mem = w.as<int>();
  for (int s = 0; s < nslots; ++s) {
    const Slot &slot = slots[static_cast<std::size_t>(s)];
    EXPECT_EQ(1, mpitest::wait_for_counter(w.win(), s, 1)) << slot_name(slot);
    const int base = s * kRegion;
    for (int i = 0; i < kRegion; ++i) {
      int expected = initial(me, base + i);
      if (i < kCount) {
        switch (slot.form.kind) {
          case Kind::put: expected = payload(origin, s, i); break;
          case Kind::get: break;
          case Kind::accumulate: expected += payload(origin, s, i); break;
          case Kind::get_accumulate:
            if (slot.op == MPI_SUM) expected += payload(origin, s, i);
            break;
        }
      }
      EXPECT_EQ(expected, mem[base + i])
          << slot_name(slot) << " from rank " << origin << ", int " << i << " of its region";
    }
    // The read is over: the target may reuse the memory.
    if (reads_target(slot)) {
      for (int i = 0; i < kRegion; ++i) mem[base + i] = -7;
    }
  }
  expect_initial_except(w, 0, nslots * kRegion);
  MPI_Barrier(MPI_COMM_WORLD);

  // As the origin: gets returned the target's data from before.
  for (int s = 0; s < nslots; ++s) {
    const Slot &slot = slots[static_cast<std::size_t>(s)];
    if (!reads_target(slot)) continue;
    for (int i = 0; i < kCount; ++i) {
      EXPECT_EQ(initial(target, s * kRegion + i),
                got[static_cast<std::size_t>(s)][static_cast<std::size_t>(i)])
          << slot_name(slot) << " to rank " << target << ", element " << i;
    }
  }
  // Exactly one increment each, now that every origin has finished.
  for (int s = 0; s < nslots; ++s)
    expect_counter(w.win(), s, 1, slot_name(slots[static_cast<std::size_t>(s)]));
}

// SEMANTICS 3.1 and 3.3: a zero-count operation moves nothing and still
// increments; an operation to MPI_PROC_NULL succeeds (a request form gives
// a request that completes) and does nothing at all.
TEST_P(Operations, ZeroCountNotifiesProcNullDoesNothing_3_1_3_3) {
  TestWindow w(GetParam(), kBytes);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const std::vector<Form> &forms = all_forms();
  const int nforms = static_cast<int>(forms.size());
  fill_initial(w);
  w.set_num_notify(2 * nforms);
  MPI_Barrier(MPI_COMM_WORLD);

  const std::vector<int> sent = payloads(0, kCount);
  std::vector<std::vector<int>> got(2 * forms.size(), std::vector<int>(kCount, -1));
  MPI_Win_lock_all(0, w.win());
  for (int k = 0; k < nforms; ++k) {
    const Form &f = forms[static_cast<std::size_t>(k)];
    Call zero;
    zero.origin = sent.data();
    zero.result = got[static_cast<std::size_t>(k)].data();
    zero.target = target;
    zero.disp = w.disp(target, region_offset(k));
    zero.idx = k;
    EXPECT_MPI_OK(run(f, zero, w.win())) << form_name(f) << " with count 0";
    Call null = zero;
    null.origin_count = kCount;
    null.result_count = kCount;
    null.target_count = kCount;
    null.result = got[static_cast<std::size_t>(nforms + k)].data();
    null.target = MPI_PROC_NULL;
    null.disp = 0;
    null.idx = nforms + k;
    EXPECT_MPI_OK(run(f, null, w.win())) << form_name(f) << " to MPI_PROC_NULL";
  }
  MPI_Win_unlock_all(w.win());
  MPI_Barrier(MPI_COMM_WORLD);

  for (int k = 0; k < nforms; ++k) {
    const std::string name = form_name(forms[static_cast<std::size_t>(k)]);
    expect_counter(w.win(), k, 1, name + " with count 0");
    expect_counter(w.win(), nforms + k, 0, name + " to MPI_PROC_NULL");
    expect_untouched(got[static_cast<std::size_t>(k)], name + " with count 0");
    expect_untouched(got[static_cast<std::size_t>(nforms + k)], name + " to MPI_PROC_NULL");
  }
  expect_initial_except(w, 0, 0);
}

// SEMANTICS 3.2: an index outside the TARGET's attached count (counts
// differ per rank here) fails with MPI_ERR_RMA_NOTIFICATION before anything
// moves: target memory, every counter and the origin's buffers stay as they
// were. The target's last index works, even where it is past the origin's
// own count.
TEST_P(Operations, IndexOutsideTargetCountFailsAndChangesNothing_3_2) {
  TestWindow w(GetParam(), kBytes);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const int origin = (me + n - 1) % n;
  const int mine = 1 + me;
  const int theirs = 1 + target;
  const std::vector<Form> &forms = all_forms();
  const int nforms = static_cast<int>(forms.size());
  fill_initial(w);
  EXPECT_MPI_OK(MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, mine));
  MPI_Barrier(MPI_COMM_WORLD);

  const std::vector<int> sent = payloads(0, kCount);
  std::vector<std::vector<int>> got(forms.size(), std::vector<int>(kCount, -1));
  MPI_Win_lock_all(0, w.win());
  for (int k = 0; k < nforms; ++k) {
    const Form &f = forms[static_cast<std::size_t>(k)];
    for (int bad : {theirs, theirs + 7, -1, INT_MIN, INT_MAX}) {
      Call c;
      c.origin = sent.data();
      c.origin_count = kCount;
      c.result = got[static_cast<std::size_t>(k)].data();
      c.result_count = kCount;
      c.target = target;
      c.disp = w.disp(target, region_offset(k));
      c.target_count = kCount;
      c.idx = bad;
      EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION, run_failing(f, c, w.win()))
          << form_name(f) << " with index " << bad << " to rank " << target << " which has "
          << theirs << " counters";
      if (f.kind == Kind::get_accumulate) {
        c.op = MPI_NO_OP;
        EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION, run_failing(f, c, w.win()))
            << form_name(f) << " (MPI_NO_OP) with index " << bad;
      }
    }
  }
  // The target's last counter is fine.
  const std::vector<int> control = payloads(nforms, kCount);
  EXPECT_MPI_OK(MPI_Put_notify(control.data(), kCount, MPI_INT, target,
                               w.disp(target, region_offset(nforms)), kCount, MPI_INT, theirs - 1,
                               w.win()));
  MPI_Win_unlock_all(w.win());
  MPI_Barrier(MPI_COMM_WORLD);

  for (int idx = 0; idx < mine; ++idx) {
    expect_counter(w.win(), idx, idx == mine - 1 ? 1 : 0, "after out-of-range indices");
  }
  const int *mem = w.as<int>();
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(payload(origin, nforms, i), mem[nforms * kRegion + i]) << "control put, int " << i;
  }
  expect_initial_except(w, nforms * kRegion, kCount);
  for (int k = 0; k < nforms; ++k) {
    expect_untouched(got[static_cast<std::size_t>(k)],
                     form_name(forms[static_cast<std::size_t>(k)]));
  }
}

void user_sum(void *in, void *inout, int *len, MPI_Datatype * /*type*/) {
  const int *a = static_cast<const int *>(in);
  int *b = static_cast<int *>(inout);
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}

// A way to spoil the arguments of a call, and the error class it must give.
struct BadArgument {
  std::string what;
  int error_class;
  bool (*applies)(const Form &, Flavor);
  void (*spoil)(Call &, MPI_Op user_op);
};

bool any_form(const Form &, Flavor) { return true; }
bool origin_forms(const Form &f, Flavor) { return has_origin(f.kind); }
bool result_forms(const Form &f, Flavor) { return has_result(f.kind); }
bool op_forms(const Form &f, Flavor) { return has_op(f.kind); }
bool accumulate_forms(const Form &f, Flavor) { return f.kind == Kind::accumulate; }
bool fixed_windows(const Form &, Flavor flavor) { return flavor != Flavor::dynamic; }
bool large_forms_fixed_windows(const Form &f, Flavor flavor) {
  return f.large && flavor != Flavor::dynamic;
}

std::vector<BadArgument> bad_arguments() {
  std::vector<BadArgument> v;
  v.push_back({"negative origin_count", MPI_ERR_COUNT, origin_forms,
               [](Call &c, MPI_Op) { c.origin_count = -1; }});
  v.push_back({"negative target_count", MPI_ERR_COUNT, any_form,
               [](Call &c, MPI_Op) { c.target_count = -1; }});
  v.push_back({"negative result/get origin count", MPI_ERR_COUNT, result_forms,
               [](Call &c, MPI_Op) { c.result_count = -2; }});
  v.push_back({"origin MPI_DATATYPE_NULL", MPI_ERR_TYPE, origin_forms,
               [](Call &c, MPI_Op) { c.origin_type = MPI_DATATYPE_NULL; }});
  v.push_back({"target MPI_DATATYPE_NULL", MPI_ERR_TYPE, any_form,
               [](Call &c, MPI_Op) { c.target_type = MPI_DATATYPE_NULL; }});
  v.push_back({"result/get origin MPI_DATATYPE_NULL", MPI_ERR_TYPE, result_forms,
               [](Call &c, MPI_Op) { c.result_type = MPI_DATATYPE_NULL; }});
  v.push_back(
      {"user-defined op", MPI_ERR_OP, op_forms, [](Call &c, MPI_Op user_op) { c.op = user_op; }});
  v.push_back({"MPI_OP_NULL", MPI_ERR_OP, op_forms, [](Call &c, MPI_Op) { c.op = MPI_OP_NULL; }});
  v.push_back({"MPI_NO_OP in accumulate", MPI_ERR_OP, accumulate_forms,
               [](Call &c, MPI_Op) { c.op = MPI_NO_OP; }});
  v.push_back({"target_rank == size", MPI_ERR_RANK, any_form,
               [](Call &c, MPI_Op) { c.target = mpitest::size(); }});
  v.push_back({"target_rank == size + 5", MPI_ERR_RANK, any_form,
               [](Call &c, MPI_Op) { c.target = mpitest::size() + 5; }});
  v.push_back({"target_rank == -5", MPI_ERR_RANK, any_form, [](Call &c, MPI_Op) {
                 static_assert(MPI_PROC_NULL != -5, "-5 must not be MPI_PROC_NULL");
                 c.target = -5;
               }});
  v.push_back(
      {"negative target_disp", MPI_ERR_DISP, fixed_windows, [](Call &c, MPI_Op) { c.disp = -4; }});
  v.push_back(
      {"target range 4 bytes past the end", MPI_ERR_RMA_RANGE, fixed_windows, [](Call &c, MPI_Op) {
         c.disp = kBytes - 4;
         c.origin_count = c.result_count = c.target_count = 2;
       }});
  v.push_back(
      {"target range starting at the end", MPI_ERR_RMA_RANGE, fixed_windows, [](Call &c, MPI_Op) {
         c.disp = kBytes;
         c.origin_count = c.result_count = c.target_count = 1;
       }});
  v.push_back(
      {"target count one past the window", MPI_ERR_RMA_RANGE, fixed_windows, [](Call &c, MPI_Op) {
         c.disp = 0;
         c.origin_count = c.result_count = c.target_count = kWords + 1;
       }});
  // A count that wraps to 8 if cut to 32 bits: must be seen whole.
  v.push_back({"target count 2^32 + 8 (_c)", MPI_ERR_RMA_RANGE, large_forms_fixed_windows,
               [](Call &c, MPI_Op) {
                 c.disp = 0;
                 c.origin_count = c.result_count = c.target_count = (MPI_Count{1} << 32) + 8;
               }});
  return v;
}

// SEMANTICS 3.4 and 3.5: arguments are checked as MPI checks them for the
// base operation, and a target range outside a (non-dynamic) window gives
// MPI_ERR_RMA_RANGE; a failed call writes nothing anywhere and increments
// nothing (accumulates included). A valid call in the same epoch shows the
// counter and data would have been seen.
TEST_P(Operations, BadArgumentsFailAndChangeNothing_3_4_3_5) {
  TestWindow w(GetParam(), kBytes);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const int origin = (me + n - 1) % n;
  constexpr int kControlSlot = 20;
  MPI_Op user_op = MPI_OP_NULL;
  EXPECT_MPI_OK(MPI_Op_create(user_sum, 1, &user_op));
  fill_initial(w);
  w.set_num_notify(2);
  MPI_Barrier(MPI_COMM_WORLD);

  const std::vector<int> sent = payloads(0, kWords + 1);
  std::vector<int> got(kWords + 1, -1);
  MPI_Win_lock_all(0, w.win());
  for (const BadArgument &bad : bad_arguments()) {
    for (const Form &f : all_forms()) {
      if (!bad.applies(f, GetParam())) continue;
      Call c;
      c.origin = sent.data();
      c.origin_count = kCount;
      c.result = got.data();
      c.result_count = kCount;
      c.target = target;
      c.disp = w.disp(target, 0);
      c.target_count = kCount;
      c.idx = 1;
      bad.spoil(c, user_op);
      EXPECT_MPI_CLASS(bad.error_class, run_failing(f, c, w.win()))
          << form_name(f) << " with " << bad.what;
    }
  }
  const std::vector<int> control = payloads(kControlSlot, kCount);
  EXPECT_MPI_OK(MPI_Accumulate_notify(control.data(), kCount, MPI_INT, target,
                                      w.disp(target, region_offset(kControlSlot)), kCount, MPI_INT,
                                      MPI_SUM, 0, w.win()));
  MPI_Win_unlock_all(w.win());
  MPI_Barrier(MPI_COMM_WORLD);

  expect_counter(w.win(), 0, 1, "the valid accumulate");
  expect_counter(w.win(), 1, 0, "every failed call");
  const int *mem = w.as<int>();
  const int base = kControlSlot * kRegion;
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(initial(me, base + i) + payload(origin, kControlSlot, i), mem[base + i])
        << "valid accumulate, int " << i;
  }
  expect_initial_except(w, base, kCount);
  expect_untouched(got, "failed gets and get_accumulates");
  if (user_op != MPI_OP_NULL) MPI_Op_free(&user_op);
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, Operations, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
