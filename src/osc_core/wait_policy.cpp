#include "wait_policy.hpp"

#include <unistd.h>

#include <cstdlib>

#include "params.hpp"

namespace mpinotify {
namespace {

int usable_cpus() {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0)
    return online > 0 ? static_cast<int>(online) : 1;
  const int allowed = CPU_COUNT(&mask);
  // A launcher that binds each rank to a CPU of its own leaves one in the
  // mask: the node's ranks then have the node's CPUs among them (ranks
  // that outnumber them are caught by the count). A mask of several CPUs
  // (a cpuset, taskset) is what every rank of the node shares.
  if (allowed == 1 && online > 1) return static_cast<int>(online);
  return allowed > 0 ? allowed : 1;
}

}  // namespace

WaitPolicy decide_wait_policy(int spin_us, int local_ranks, int cpus) {
  WaitPolicy policy;
  policy.local_ranks = local_ranks;
  policy.cpus = cpus;
  if (spin_us >= 0) {
    policy.chosen = true;
    policy.spin_ns = static_cast<std::int64_t>(spin_us) * 1000;
    return policy;
  }
  policy.spin_ns = local_ranks > cpus ? 0 : kDefaultSpinNs;
  return policy;
}

std::string WaitPolicy::describe() const {
  std::string text = spin_ns == 0 ? "waits yield the CPU after every try"
                                  : "waits spin " + std::to_string(spin_ns / 1000) +
                                        " us before they yield the CPU";
  if (chosen) return text + " (MPINOTIFY_WAIT_SPIN)";
  const std::string ranks =
      local_ranks == 0 ? "an unknown number of ranks" : std::to_string(local_ranks) + " ranks";
  return text + " (" + ranks + " on this node, " + std::to_string(cpus) + " CPUs)";
}

const WaitPolicy &wait_policy() {
  static const WaitPolicy policy = decide_wait_policy(
      params().wait_spin_us, local_ranks_from([](const char *name) -> std::string {
        const char *v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read once
        return v != nullptr ? v : "";
      }),
      usable_cpus());
  return policy;
}

}  // namespace mpinotify
