// Prometheus text exposition (format 0.0.4) for the manager's /metrics: families with HELP and
// TYPE once, samples with escaped label values. Collectors read counters when scraped.
#pragma once

#include <cstdint>
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
  // A histogram's cumulative buckets (upper bounds ascending, counts cumulative), _sum, _count.
  void histogram(const std::string& name, const std::string& help, const Labels& labels,
                 const std::vector<double>& bounds, const std::vector<uint64_t>& cumulative,
                 double sum, uint64_t count);
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

// A thread-safe histogram to feed MetricsWriter::histogram (observations in seconds).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);
  void write(MetricsWriter& w, const std::string& name, const std::string& help,
             const Labels& labels) const;

 private:
  mutable std::mutex mutex_;
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // per bucket, not cumulative; one more for +Inf
  double sum_ = 0;
  uint64_t count_ = 0;
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
