// mpinotify-info: what this build of the library is, which backends it can
// use here (and why not, for those it cannot), and every MPINOTIFY_*
// parameter with its default and current value. Runs without mpirun.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mpi_notify.h"
#include "osc_core/backend.hpp"
#include "osc_core/params.hpp"
#include "osc_core/wait_policy.hpp"

namespace {

void print_version() {
  char host[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(host, &length);
  std::string first_line(host, static_cast<std::size_t>(length));
  first_line = first_line.substr(0, first_line.find_first_of("\r\n,"));
  std::printf("mpinotify %d.%d.%d\n", MPINOTIFY_VERSION_MAJOR, MPINOTIFY_VERSION_MINOR,
              MPINOTIFY_VERSION_PATCH);
  std::printf("  host MPI:      %s (MPI %d.%d)\n", first_line.c_str(), MPI_VERSION, MPI_SUBVERSION);
}

void print_backends() {
  std::printf("\nbackends, highest priority first:\n");
  for (const mpinotify::Backend *b : mpinotify::BackendRegistry::instance().all()) {
    const auto reason = b->unavailable_reason();
    std::printf("  %-6s priority %3d  %s%s\n", b->name(), b->priority(),
                reason ? "unavailable: " : "available", reason ? reason->c_str() : "");
    if (const std::string details = b->details(); !details.empty())
      std::printf("         %s\n", details.c_str());
  }
  // Backends of the design that this build does not contain, with why.
  const std::string absent = MPINOTIFY_ABSENT_BACKENDS;
  std::size_t start = 0;
  while (start < absent.size()) {
    const std::size_t end = absent.find('|', start);
    const std::string entry = absent.substr(start, end - start);
    const std::size_t colon = entry.find(':');
    if (colon != std::string::npos)
      std::printf("  %-6s not built: %s\n", entry.substr(0, colon).c_str(),
                  entry.substr(colon + 1).c_str());
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

void print_parameters() {
  std::printf("\nparameters (environment):\n");
  for (const mpinotify::ParamInfo &p : mpinotify::param_table()) {
    const char *current = std::getenv(p.name);  // NOLINT(concurrency-mt-unsafe)
    std::printf("  %s\n      default \"%s\", current %s%s%s\n      %s\n", p.name, p.default_value,
                current != nullptr ? "\"" : "", current != nullptr ? current : "(unset)",
                current != nullptr ? "\"" : "", p.description);
  }
  for (const std::string &warning : mpinotify::params().warnings)
    std::printf("  warning: %s\n", warning.c_str());
  std::printf("\nhere (one process): %s\n", mpinotify::wait_policy().describe().c_str());
}

}  // namespace

int main(int argc, char ** /*argv*/) {
  if (argc > 1) {
    std::printf("usage: mpinotify-info\n");
    return EXIT_SUCCESS;
  }
  print_version();
  print_backends();
  print_parameters();
  return EXIT_SUCCESS;
}
