// How every wait of the library spends its core between unsuccessful
// tries: MPI_Wait and its kin while the library's requests are pending,
// the network backends' waits for their operations, re-reads of a table
// that keeps changing. A wait spins while spinning pays and yields the
// core when it does not: at once where this node's ranks outnumber its
// CPUs (the peer holding the answer may need this core), otherwise after
// a bounded spin (a wait that long waits for a peer's program, not for
// the transport). docs/performance.md, "Waiting", gives the measurements
// behind the default.
#pragma once

#include <sched.h>

#include <cstdint>
#include <ctime>
#include <string>

namespace mpinotify {

struct WaitPolicy {
  // Nanoseconds a wait spins before its first yield; 0: it yields after
  // every unsuccessful try.
  std::int64_t spin_ns = 0;
  // What it was decided from, for mpinotify-info and the verbose report.
  int local_ranks = 0;  // ranks of this job on this node; 0: unknown
  int cpus = 0;         // CPUs this process may run on
  bool chosen = false;  // MPINOTIFY_WAIT_SPIN set it

  std::string describe() const;
};

// The spin where ranks have a CPU each: a notification between two
// cores takes 0.1-1 us here, a message between hosts tens; a wait still
// unanswered after this waits for the peer's program.
inline constexpr std::int64_t kDefaultSpinNs = 50'000;

// Pure: the policy from MPINOTIFY_WAIT_SPIN (microseconds, or -1 for
// automatic), the ranks of this job on this node (0: unknown) and the
// CPUs this process may run on.
WaitPolicy decide_wait_policy(int spin_us, int local_ranks, int cpus);

// Pure: this node's rank count as the launcher tells it (Open MPI, MPICH's
// Hydra, PMIx, MVAPICH, PALS), from `lookup` (the environment, "" for an
// unset name); 0 when none does.
template <class Lookup>
int local_ranks_from(Lookup &&lookup);

// The process's policy, decided once (environment, affinity mask).
const WaitPolicy &wait_policy();

// One wait's pacing: call pause() after each unsuccessful try.
class Backoff {
 public:
  // `quick_tries`: tries that never yield, whatever the policy (a
  // backend's wait for its own operation usually ends within them).
  explicit Backoff(std::uint32_t quick_tries = 0) : Backoff(wait_policy().spin_ns, quick_tries) {}
  Backoff(std::int64_t spin_ns, std::uint32_t quick_tries)
      : spin_ns_(spin_ns), quick_tries_(quick_tries), yielding_(spin_ns <= 0) {}

  void pause() {
    if (rounds_ < quick_tries_) {
      ++rounds_;
      return;
    }
    if (yielding_) {
      sched_yield();
      return;
    }
    // The clock is read every kRoundsPerRead tries only, and never by a
    // wait that ends on its first few.
    if (++rounds_ % kRoundsPerRead != 0) return;
    const std::int64_t now = now_ns();
    if (started_ == 0) {
      started_ = now;
    } else if (now - started_ >= spin_ns_) {
      yielding_ = true;
    }
  }
  // Whether this wait yields on its next pause.
  bool yielding() const { return yielding_ && rounds_ >= quick_tries_; }

 private:
  static constexpr std::uint32_t kRoundsPerRead = 16;
  static std::int64_t now_ns() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
  }

  std::int64_t spin_ns_;
  std::uint32_t quick_tries_;
  std::int64_t started_ = 0;
  std::uint32_t rounds_ = 0;
  bool yielding_;
};

template <class Lookup>
int local_ranks_from(Lookup &&lookup) {
  // Launchers name it differently; each takes a plain count.
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMIX_LOCAL_SIZE",
                           "MV2_COMM_WORLD_LOCAL_SIZE", "PALS_LOCAL_SIZE"}) {
    const std::string text = lookup(name);
    if (text.empty() || text.size() > 9) continue;
    int value = 0;
    bool digits = true;
    for (const char c : text) {
      if (c < '0' || c > '9') {
        digits = false;
        break;
      }
      value = value * 10 + (c - '0');
    }
    if (digits && value > 0) return value;
  }
  return 0;
}

}  // namespace mpinotify
