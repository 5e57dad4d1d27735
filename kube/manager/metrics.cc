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
