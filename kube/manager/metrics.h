// Prometheus text exposition (format 0.0.4) for the manager's /metrics: families with HELP and
// TYPE once, samples with escaped label values. Collectors read counters when scraped.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace flotilla::kube {

using Labels = std::vector<std::pair<std::string, std::string>>;

class MetricsWriter {
 public:
  void counter(const std::string& name, const std::string& help, const Labels& labels,
               double value);
  void gauge(const std::string& name, const std::string& help, const Labels& labels, double value);
  std::string text() const;

 private:
  struct Family {
    std::string help, type;
    std::vector<std::string> samples;
  };
  void add(const std::string& name, const std::string& help, const char* type, const Labels& labels,
           double value);
  std::map<std::string, Family> families_;
};

class MetricsRegistry {
 public:
  using Collector = std::function<void(MetricsWriter&)>;
  void add(Collector collector);
  std::string render() const;

 private:
  mutable std::mutex mutex_;
  std::vector<Collector> collectors_;
};

}  // namespace flotilla::kube
