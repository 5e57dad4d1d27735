#include "sim/server/table.h"

#include <boost/json.hpp>

#include "api/time.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

// One step of a path: a field name, an index, or a filter [?(@.key=="value")].
struct Step {
  enum class Kind { kField, kIndex, kFilter } kind;
  std::string field;
  size_t index = 0;
  std::string filterKey;
  std::string filterValue;
};

std::optional<std::vector<Step>> parsePath(std::string_view path) {
  std::vector<Step> steps;
  if (!path.empty() && path.front() == '{' && path.back() == '}')
    path = path.substr(1, path.size() - 2);
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      size_t end = i;
      while (end < path.size() && path[end] != '.' && path[end] != '[') ++end;
      if (end == i) return std::nullopt;
      steps.push_back({Step::Kind::kField, std::string(path.substr(i, end - i))});
      i = end;
    } else if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view inside = path.substr(i + 1, close - i - 1);
      if (inside.starts_with("?(@.") && inside.ends_with(")")) {
        std::string_view cond = inside.substr(4, inside.size() - 5);
        const size_t eq = cond.find("==");
        if (eq == std::string_view::npos) return std::nullopt;
        std::string_view value = cond.substr(eq + 2);
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\''))
          value = value.substr(1, value.size() - 2);
        Step s{Step::Kind::kFilter};
        s.filterKey = std::string(cond.substr(0, eq));
        s.filterValue = std::string(value);
        steps.push_back(std::move(s));
      } else {
        size_t n = 0;
        for (char c : inside) {
          if (c < '0' || c > '9') return std::nullopt;
          n = n * 10 + static_cast<size_t>(c - '0');
        }
        Step s{Step::Kind::kIndex};
        s.index = n;
        steps.push_back(std::move(s));
      }
      i = close + 1;
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

std::string cellText(const json::value& v) {
  if (v.is_string()) return std::string(v.as_string());
  if (v.is_null()) return "";
  return json::serialize(v);
}

}  // namespace

std::optional<json::value> evalJsonPath(const json::value& root, std::string_view path) {
  auto steps = parsePath(path);
  if (!steps) return std::nullopt;
  const json::value* current = &root;
  for (const auto& step : *steps) {
    if (step.kind == Step::Kind::kField) {
      if (step.field == "length" && current->is_array())
        return json::value(static_cast<int64_t>(current->as_array().size()));
      const auto* o = current->if_object();
      const json::value* next = o ? o->if_contains(step.field) : nullptr;
      if (!next) return std::nullopt;
      current = next;
    } else if (step.kind == Step::Kind::kIndex) {
      const auto* a = current->if_array();
      if (!a || step.index >= a->size()) return std::nullopt;
      current = &(*a)[step.index];
    } else {
      const auto* a = current->if_array();
      if (!a) return std::nullopt;
      const json::value* match = nullptr;
      for (const auto& item : *a) {
        const auto* o = item.if_object();
        const auto* v = o ? o->if_contains(step.filterKey) : nullptr;
        if (v && cellText(*v) == step.filterValue) {
          match = &item;
          break;
        }
      }
      if (!match) return std::nullopt;
      current = match;
    }
  }
  return *current;
}

std::string humanDuration(std::chrono::seconds age) {
  const int64_t s = std::max<int64_t>(age.count(), 0);
  if (s < 120) return std::to_string(s) + "s";
  const int64_t m = s / 60;
  if (m < 10) return std::to_string(m) + "m" + (s % 60 ? std::to_string(s % 60) + "s" : "");
  if (m < 180) return std::to_string(m) + "m";
  const int64_t h = m / 60;
  if (h < 8) return std::to_string(h) + "h" + (m % 60 ? std::to_string(m % 60) + "m" : "");
  if (h < 48) return std::to_string(h) + "h";
  const int64_t d = h / 24;
  if (d < 8) return std::to_string(d) + "d" + (h % 24 ? std::to_string(h % 24) + "h" : "");
  if (d < 730) return std::to_string(d) + "d";
  const int64_t y = d / 365;
  if (y < 8) return std::to_string(y) + "y" + (d % 365 ? std::to_string(d % 365) + "d" : "");
  return std::to_string(y) + "y";
}

json::object makeTable(const ResourceInfo& resource, const std::vector<json::object>& objects,
                       std::chrono::system_clock::time_point now, IncludeObject include,
                       bool withHeaders, const std::string& resourceVersion) {
  std::vector<PrinterColumn> columns = resource.columns;
  bool hasDate = false;
  for (const auto& c : columns) hasDate = hasDate || c.type == "date" || c.type == "timestamp";
  if (!hasDate) columns.push_back({"Age", "date", ".metadata.creationTimestamp", "", 0});

  json::object table{{"kind", "Table"},
                     {"apiVersion", "meta.k8s.io/v1"},
                     {"metadata", json::object{{"resourceVersion", resourceVersion}}}};
  json::array definitions;
  if (withHeaders) {
    definitions.push_back(json::object{{"name", "Name"},
                                       {"type", "string"},
                                       {"format", "name"},
                                       {"description", "Name must be unique within a namespace."},
                                       {"priority", 0}});
    for (const auto& c : columns) {
      definitions.push_back(
          json::object{{"name", c.name},
                       {"type", c.type == "date" || c.type == "timestamp" ? "string" : c.type},
                       {"format", ""},
                       {"description", c.description},
                       {"priority", c.priority}});
    }
  }
  table["columnDefinitions"] = std::move(definitions);
  json::array rows;
  for (const auto& object : objects) {
    const json::value root(object);
    json::array cells;
    auto name = evalJsonPath(root, ".metadata.name");
    cells.push_back(name ? *name : json::value(""));
    for (const auto& c : columns) {
      auto v = evalJsonPath(root, c.jsonPath);
      if (!v) {
        cells.push_back(c.type == "string" || c.type == "date" ? json::value("<none>")
                                                               : json::value(nullptr));
        continue;
      }
      if (c.type == "date" && v->is_string()) {
        auto t = api::parseRfc3339(v->as_string());
        cells.push_back(t ? json::value(humanDuration(
                                std::chrono::duration_cast<std::chrono::seconds>(now - *t)))
                          : *v);
      } else if (c.type == "string" && !v->is_string()) {
        cells.push_back(json::value(cellText(*v)));
      } else {
        cells.push_back(*v);
      }
    }
    json::object row{{"cells", std::move(cells)}};
    if (include == IncludeObject::kObject) {
      row["object"] = object;
    } else if (include == IncludeObject::kMetadata) {
      json::object partial{{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}};
      if (const auto* meta = object.if_contains("metadata")) partial["metadata"] = *meta;
      row["object"] = std::move(partial);
    }
    rows.push_back(std::move(row));
  }
  table["rows"] = std::move(rows);
  return table;
}

}  // namespace flotilla::sim
