// Memory figures of this process that the benchmarks read from /proc.
#pragma once

#include <fstream>
#include <string>

namespace bench {

// The value in KiB of `key` (e.g. "VmRSS:" in /proc/self/status, "Pss:"
// in /proc/self/smaps_rollup), or 0 if the file or the key is missing.
inline long proc_kib(const char *path, const std::string &key) {
  std::ifstream file(path);
  std::string word;
  while (file >> word) {
    if (word == key) {
      long kib = 0;
      file >> kib;
      return kib;
    }
    file.ignore(1 << 12, '\n');
  }
  return 0;
}

}  // namespace bench
