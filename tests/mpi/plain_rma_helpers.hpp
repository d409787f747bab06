// Helpers of the plain-RMA regression suite (test_plain_rma_*.cpp,
// SEMANTICS 3.9): every test runs the same sequence of plain MPI calls on a
// reference window the library leaves to the host (mpinotify_disable=
// "true") and on a window the library serves, checks the data of each, and
// expects both to give the same trace of return codes, fetched values and
// final memory.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness.hpp"

namespace mpitest::plain {

// The ring: a rank targets its right neighbour (itself on one process).
inline int right() { return (mpitest::rank() + 1) % mpitest::size(); }
inline int left() { return (mpitest::rank() + mpitest::size() - 1) % mpitest::size(); }

// An MPI_Info with one key (none if key is null), freed on destruction.
class Info {
 public:
  Info(const char *key, const char *value) {
    if (key == nullptr) return;
    MPI_Info_create(&info_);
    MPI_Info_set(info_, key, value);
  }
  ~Info() {
    if (info_ != MPI_INFO_NULL) MPI_Info_free(&info_);
  }
  Info(const Info &) = delete;
  Info &operator=(const Info &) = delete;
  MPI_Info get() const { return info_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

enum class Side { reference, served };
inline const char *side_name(Side s) {
  return s == Side::reference ? "reference (mpinotify_disable) window" : "served window";
}

// Creation info of a window of that side: the reference one is the host's.
inline Info info_for(Side s) {
  return Info(s == Side::reference ? MPINOTIFY_INFO_KEY_DISABLE : nullptr, "true");
}

// The MPI pair types' C layout (MPI_SHORT_INT is struct { short; int; }...).
template <class V>
struct Pair {
  V value;
  int index;
  bool operator==(const Pair &o) const { return value == o.value && index == o.index; }
};

// Exact text of a value, for traces and messages: integers in decimal,
// floating point in hex (no rounding hides a difference).
template <class T>
std::string text(const T &v) {
  std::ostringstream os;
  if constexpr (std::is_floating_point_v<T>) {
    os << std::hexfloat << v;
  } else if constexpr (std::is_signed_v<T>) {
    os << static_cast<long long>(v);
  } else {
    os << static_cast<unsigned long long>(v);
  }
  return os.str();
}
inline std::string text(const std::string &s) { return s; }
template <class V>
std::string text(const Pair<V> &p) {
  return "{" + text(p.value) + ", " + text(p.index) + "}";
}

// Name of the class of an MPI return code, the RMA classes included.
inline std::string class_text(int code) {
  const int cls = error_class(code);
  struct Known {
    int cls;
    const char *name;
  };
  static const Known rma[] = {{MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR"},
                              {MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED"},
                              {MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH"},
                              {MPI_ERR_RMA_CONFLICT, "MPI_ERR_RMA_CONFLICT"},
                              {MPI_ERR_BASE, "MPI_ERR_BASE"},
                              {MPI_ERR_SIZE, "MPI_ERR_SIZE"},
                              {MPI_ERR_DISP, "MPI_ERR_DISP"},
                              {MPI_ERR_GROUP, "MPI_ERR_GROUP"},
                              {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
                              {MPI_ERR_PENDING, "MPI_ERR_PENDING"},
                              {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS"},
                              {MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE"},
                              {MPI_ERR_ASSERT, "MPI_ERR_ASSERT"}};
  for (const Known &k : rma) {
    if (k.cls == cls) return k.name;
  }
  return class_name(cls);
}

// MPI_Error_string of a code.
inline std::string error_text(int code) {
  char text[MPI_MAX_ERROR_STRING + 1] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  return text;
}

// What one run of a sequence returned and left behind, as labelled text.
class Trace {
 public:
  explicit Trace(Side side) : side_(side) {}
  Side side() const { return side_; }
  const char *name() const { return side_name(side_); }
  // Records the class of an MPI return code; returns the code.
  int rc(const std::string &what, int code) {
    entries_.emplace_back(what, class_text(code));
    return code;
  }
  template <class T>
  void value(const std::string &what, const T &v) {
    entries_.emplace_back(what, text(v));
  }
  template <class T>
  void values(const std::string &what, const std::vector<T> &v) {
    for (std::size_t i = 0; i < v.size(); ++i) value(what + "[" + std::to_string(i) + "]", v[i]);
  }
  const std::vector<std::pair<std::string, std::string>> &entries() const { return entries_; }

 private:
  Side side_;
  std::vector<std::pair<std::string, std::string>> entries_;
};

// Records the call's return code in the trace and expects MPI_SUCCESS.
#define PLAIN_OK(trace, call) \
  EXPECT_MPI_OK((trace).rc(#call, (call))) << (trace).name() << " on rank " << ::mpitest::rank()

// Expects the served window's trace to equal the reference's, entry by
// entry, reporting the first few differences.
inline void expect_same(const Trace &reference, const Trace &served, const std::string &context) {
  const auto &r = reference.entries();
  const auto &s = served.entries();
  EXPECT_EQ(r.size(), s.size()) << context << ": the traces differ in length on rank "
                                << mpitest::rank();
  int wrong = 0;
  for (std::size_t i = 0; i < std::min(r.size(), s.size()); ++i) {
    if (r[i] != s[i] && ++wrong <= 6) {
      ADD_FAILURE() << context << ", rank " << mpitest::rank() << ", step " << i << ": reference "
                    << r[i].first << " = " << r[i].second << ", served " << s[i].first << " = "
                    << s[i].second;
    }
  }
  EXPECT_EQ(0, wrong) << context << ": the served window differs from the reference on rank "
                      << mpitest::rank();
}

// Results where the reference window itself departs from the standard
// (a host defect): the served window is then held to the reference's
// result (through the traces) instead of the standard's.
class HostDefects {
 public:
  // Checks `got` against the standard's `want`. On the reference window a
  // wrong result that is `excusable` (a known host defect, named where the
  // caller passes it) is noted, not failed; on the served window a result
  // the reference got wrong is left to the trace comparison.
  void check(const Trace &t, const std::string &label, const std::string &want,
             const std::string &got, bool excusable) {
    if (want == got) return;
    if (t.side() == Side::reference && excusable) {
      seen_.insert(label);
      return;
    }
    if (t.side() == Side::served && seen_.count(label) != 0) return;
    ADD_FAILURE() << t.name() << ", rank " << mpitest::rank() << ": " << label << " is " << got
                  << ", expected " << want;
  }
  // Prints, on rank 0, which results the host got wrong.
  void note(const std::string &what) const {
    if (seen_.empty() || mpitest::rank() != 0) return;
    std::printf("note: host defect: the reference window got %zu %s result(s) wrong, e.g. %s\n",
                seen_.size(), what.c_str(), seen_.begin()->c_str());
  }

 private:
  std::set<std::string> seen_;
};

// Whether Open MPI's one-sided component `name` may serve windows here:
// some of its defects crash a process, so tests leave those calls out.
// Its default choice is rdma or sm; OMPI_MCA_osc narrows it.
inline bool host_may_use_ompi_osc(const std::string &name) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(version, &len);
  if (std::string(version).find("Open MPI") == std::string::npos) return false;
  const char *osc = std::getenv("OMPI_MCA_osc");
  if (osc == nullptr) return name == "rdma" || name == "sm";
  return std::string(osc).find(name) != std::string::npos;
}

// Collective: sets this rank's window memory to `values` from byte 0, under
// an exclusive lock of itself (so the public copy has them), then meets the
// other ranks so every later epoch sees them.
template <class T, class W>
void fill(const W &w, const std::vector<T> &values) {
  if (!values.empty()) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mpitest::rank(), 0, w.win());
    std::memcpy(w.base(), values.data(), values.size() * sizeof(T));
    MPI_Win_unlock(mpitest::rank(), w.win());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// This rank's window memory as `count` T from byte 0, read under a shared
// lock of itself; call after the epochs writing it ended and a barrier.
template <class T, class W>
std::vector<T> snapshot(const W &w, std::size_t count) {
  std::vector<T> v(count);
  MPI_Win_lock(MPI_LOCK_SHARED, mpitest::rank(), 0, w.win());
  std::memcpy(v.data(), w.base(), count * sizeof(T));
  MPI_Win_unlock(mpitest::rank(), w.win());
  return v;
}

// target_disp of element `i` of T in `target`'s window.
template <class T, class W>
MPI_Aint elem(const W &w, int target, std::size_t i) {
  return w.disp(target, static_cast<MPI_Aint>(i * sizeof(T)));
}

// A window of any size (0 included) and displacement unit, made by the
// flavor's own constructor; a dynamic one attaches `bytes` bytes (nothing
// if 0). Errors return. Collective; check rc() on every rank.
class RawWindow {
 public:
  RawWindow(Flavor flavor, MPI_Aint bytes, int disp_unit, MPI_Info info,
            MPI_Comm comm = MPI_COMM_WORLD)
      : flavor_(flavor), bytes_(bytes) {
    if (flavor == Flavor::create || flavor == Flavor::dynamic) {
      base_ = static_cast<char *>(std::calloc(static_cast<std::size_t>(bytes) + 1, 1));
      owned_ = base_;
    }
    switch (flavor) {
      case Flavor::create: rc_ = MPI_Win_create(base_, bytes, disp_unit, info, comm, &win_); break;
      case Flavor::allocate:
        rc_ = MPI_Win_allocate(bytes, disp_unit, info, comm, &base_, &win_);
        break;
      case Flavor::shared:
        rc_ = MPI_Win_allocate_shared(bytes, disp_unit, info, comm, &base_, &win_);
        break;
      case Flavor::dynamic:
        rc_ = MPI_Win_create_dynamic(info, comm, &win_);
        if (rc_ == MPI_SUCCESS && bytes > 0) rc_ = MPI_Win_attach(win_, base_, bytes);
        break;
    }
    EXPECT_MPI_OK(rc_) << "creating a " << flavor_name(flavor) << " window of " << bytes
                       << " bytes: " << error_text(rc_);
    if (win_ != MPI_WIN_NULL) MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN);
    if (flavor == Flavor::dynamic) {
      MPI_Aint mine = 0;
      if (bytes > 0) MPI_Get_address(base_, &mine);
      int n = 0;
      MPI_Comm_size(comm, &n);
      addresses_.resize(static_cast<std::size_t>(n));
      MPI_Allgather(&mine, 1, MPI_AINT, addresses_.data(), 1, MPI_AINT, comm);
    }
    MPI_Barrier(comm);
  }
  ~RawWindow() {
    if (win_ != MPI_WIN_NULL) {
      if (flavor_ == Flavor::dynamic && bytes_ > 0) MPI_Win_detach(win_, base_);
      EXPECT_MPI_OK(MPI_Win_free(&win_));
    }
    std::free(owned_);
  }
  RawWindow(const RawWindow &) = delete;
  RawWindow &operator=(const RawWindow &) = delete;
  int rc() const { return rc_; }
  MPI_Win win() const { return win_; }
  char *base() const { return base_; }
  MPI_Aint bytes() const { return bytes_; }
  Flavor flavor() const { return flavor_; }
  // target_disp of byte `offset` of `target`'s memory, for disp_unit 1.
  MPI_Aint disp(int target, MPI_Aint offset) const {
    if (flavor_ == Flavor::dynamic) return addresses_[static_cast<std::size_t>(target)] + offset;
    return offset;
  }

 private:
  Flavor flavor_;
  MPI_Aint bytes_;
  int rc_ = MPI_SUCCESS;
  MPI_Win win_ = MPI_WIN_NULL;
  char *base_ = nullptr;
  char *owned_ = nullptr;
  std::vector<MPI_Aint> addresses_;
};

// Windows shared by the tests of one suite: one reference and one served
// window per flavor, made on first use. Window creation costs more than
// most of these tests (0.1 to 0.4 s each under MPICH here). Collective;
// clear() from TearDownTestSuite (every rank runs the same tests).
class WindowCache {
 public:
  explicit WindowCache(MPI_Aint bytes) : bytes_(bytes) {}
  TestWindow &get(Flavor f, Side s) {
    std::unique_ptr<TestWindow> &w =
        windows_[static_cast<std::size_t>(f) * 2 + (s == Side::served ? 1 : 0)];
    if (!w) w = std::make_unique<TestWindow>(f, bytes_, info_for(s).get());
    return *w;
  }
  void clear() {
    for (std::unique_ptr<TestWindow> &w : windows_) w.reset();
  }

 private:
  MPI_Aint bytes_;
  std::array<std::unique_ptr<TestWindow>, 8> windows_;
};

// Base of a suite that compares reference and served windows: one window
// of each side and flavor, `Suite::window_bytes()` bytes per rank, made
// when a test first needs it and kept until the suite ends.
template <class Suite>
class PairedWindowTest : public FlavorTest {
 protected:
  static WindowCache &cache() {
    static WindowCache c(Suite::window_bytes());
    return c;
  }
  static void TearDownTestSuite() { cache().clear(); }
  TestWindow &reference() { return cache().get(GetParam(), Side::reference); }
  TestWindow &served() { return cache().get(GetParam(), Side::served); }
};

// Runs `sequence(window, trace)` on the reference window, then on the
// served one (each run collective), and expects the same traces.
template <class W, class F>
void on_both(W &reference, W &served, const std::string &context, F &&sequence) {
  Trace r(Side::reference);
  sequence(reference, r);
  Trace s(Side::served);
  sequence(served, s);
  expect_same(r, s, context);
}

}  // namespace mpitest::plain
