#include "kube/manager/metrics.h"

#include <cmath>
#include <cstdio>

namespace flotilla::kube {

namespace {

std::string escapeLabel(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string formatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

}  // namespace

void MetricsWriter::add(const std::string& name, const std::string& help, const char* type,
                        const Labels& labels, double value) {
  auto& family = families_[name];
  family.help = help;
  family.type = type;
  std::string sample = name;
  if (!labels.empty()) {
    sample += "{";
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i) sample += ",";
      sample += labels[i].first + "=\"" + escapeLabel(labels[i].second) + "\"";
    }
    sample += "}";
  }
  family.samples.push_back(sample + " " + formatValue(value));
}

void MetricsWriter::counter(const std::string& name, const std::string& help, const Labels& labels,
                            double value) {
  add(name, help, "counter", labels, value);
}

void MetricsWriter::gauge(const std::string& name, const std::string& help, const Labels& labels,
                          double value) {
  add(name, help, "gauge", labels, value);
}

void MetricsWriter::histogram(const std::string& name, const std::string& help,
                              const Labels& labels, const std::vector<double>& bounds,
                              const std::vector<uint64_t>& cumulative, double sum, uint64_t count) {
  auto& family = families_[name];
  family.help = help;
  family.type = "histogram";
  auto labelled = [&](const std::string& suffix, const Labels& extra) {
    Labels all = labels;
    all.insert(all.end(), extra.begin(), extra.end());
    std::string sample = name + suffix;
    if (!all.empty()) {
      sample += "{";
      for (size_t i = 0; i < all.size(); ++i) {
        if (i) sample += ",";
        sample += all[i].first + "=\"" + escapeLabel(all[i].second) + "\"";
      }
      sample += "}";
    }
    return sample;
  };
  for (size_t i = 0; i < bounds.size() && i < cumulative.size(); ++i) {
    family.samples.push_back(labelled("_bucket", {{"le", formatValue(bounds[i])}}) + " " +
                             formatValue(static_cast<double>(cumulative[i])));
  }
  family.samples.push_back(labelled("_bucket", {{"le", "+Inf"}}) + " " +
                           formatValue(static_cast<double>(count)));
  family.samples.push_back(labelled("_sum", {}) + " " + formatValue(sum));
  family.samples.push_back(labelled("_count", {}) + " " + formatValue(static_cast<double>(count)));
}

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  std::lock_guard lock(mutex_);
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += value;
  ++count_;
}

void Histogram::write(MetricsWriter& w, const std::string& name, const std::string& help,
                      const Labels& labels) const {
  std::lock_guard lock(mutex_);
  std::vector<uint64_t> cumulative;
  uint64_t running = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) cumulative.push_back(running += counts_[i]);
  w.histogram(name, help, labels, bounds_, cumulative, sum_, count_);
}

std::string MetricsWriter::text() const {
  std::string out;
  for (const auto& [name, family] : families_) {
    out += "# HELP " + name + " " + family.help + "\n";
    out += "# TYPE " + name + " " + family.type + "\n";
    for (const auto& s : family.samples) out += s + "\n";
  }
  return out;
}

void MetricsRegistry::add(Collector collector) {
  std::lock_guard lock(mutex_);
  collectors_.push_back(std::move(collector));
}

std::string MetricsRegistry::render() const {
  MetricsWriter writer;
  std::lock_guard lock(mutex_);
  for (const auto& c : collectors_) c(writer);
  return writer.text();
}

}  // namespace flotilla::kube
