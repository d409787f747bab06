// Results of one benchmark run: a table with ratios against the floor and
// against each baseline, or one JSON object per result.
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace bench {

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  if (n == 0) return 0;
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Metric names ending in "_us" are times (lower is better), the others
// rates (higher is better). "floor" is the raw figure without MPI; every
// other variant is also compared with `subject`, the backend under study.
class Report {
 public:
  Report(bool json, bool printing, std::string subject = "sm")
      : json_(json), printing_(printing), subject_(std::move(subject)) {}

  void note(const std::string &text) {
    if (!printing_) return;
    if (json_) {
      std::printf("{\"note\":\"%s\"}\n", text.c_str());
    } else {
      std::printf("# %s\n", text.c_str());
    }
  }

  void add(const std::string &metric, std::size_t bytes,
           const std::map<std::string, double> &values) {
    if (!printing_) return;
    const bool time = metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_us") == 0;
    // How many times better `a` is than `b`.
    auto better = [time](double a, double b) { return time ? b / a : a / b; };
    if (json_) {
      for (const auto &[variant, value] : values) {
        std::printf("{\"metric\":\"%s\",\"bytes\":%zu,\"variant\":\"%s\",\"value\":%.4f",
                    metric.c_str(), bytes, variant.c_str(), value);
        for (const auto &[other, other_value] : values) {
          if (other != variant)
            std::printf(",\"x_vs_%s\":%.3f", other.c_str(), better(value, other_value));
        }
        std::printf("}\n");
      }
      return;
    }
    if (metric != last_metric_) {
      std::printf("\n%-12s %8s", metric.c_str(), "bytes");
      for (const auto &[variant, value] : values) std::printf(" %10s", variant.c_str());
      std::printf("   ratios (x better, >1: %s wins; floor: %s/floor cost)\n", subject_.c_str(),
                  subject_.c_str());
      last_metric_ = metric;
    }
    std::printf("%-12s %8zu", "", bytes);
    for (const auto &[variant, value] : values) std::printf(" %10.3f", value);
    const auto subject = values.find(subject_);
    if (subject != values.end()) {
      for (const auto &[other, other_value] : values) {
        if (other == subject_) continue;
        if (other == "floor") {
          std::printf("  %s/floor=%.2f", subject_.c_str(),
                      1 / better(subject->second, other_value));
        } else {
          std::printf("  vs_%s=%.2f", other.c_str(), better(subject->second, other_value));
        }
      }
    }
    std::printf("\n");
  }

  void finish() {
    if (printing_ && !json_) std::printf("\n");
    std::fflush(stdout);
  }

 private:
  bool json_;
  bool printing_;
  std::string subject_;
  std::string last_metric_;
};

}  // namespace bench
