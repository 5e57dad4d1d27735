#include <iostream>

#include "api/object_validation.h"
#include "api/yaml.h"
#include "cli/commands.h"
#include "cli/input.h"

namespace flotilla::cli {
namespace {

constexpr const char* kValidateUsage =
    "Usage: flotillactl validate -f FILE [-f FILE...]\n"
    "\n"
    "Checks Flotilla manifests offline with the admission webhook's rules: each object is\n"
    "decoded strictly (unknown fields are errors), defaulted, and validated. FILE holds one or\n"
    "more YAML documents or a JSON object; '-' reads standard input. `kind: List` is expanded.\n"
    "\n"
    "Exit status: 0 all objects valid, 1 an object is invalid or a file unreadable, 2 usage.\n";

// Prints the verdict of one object; returns whether it was valid.
bool report(const boost::json::value& object, const std::string& where, std::ostream& out) {
  api::ObjectVerdict verdict = api::validateObject(object);
  if (verdict.valid()) {
    out << where << ": " << verdict.describe() << ": valid\n";
    return true;
  }
  out << where << ": " << verdict.describe() << ": invalid\n";
  for (const auto& e : verdict.errors) out << "  " << e.str() << "\n";
  return false;
}

}  // namespace

int runValidate(const Args& args, std::istream& in, std::ostream& out, std::ostream& err) {
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      out << kValidateUsage;
      return 0;
    }
    if ((args[i] == "-f" || args[i] == "--filename") && i + 1 < args.size()) {
      files.push_back(args[++i]);
    } else if (args[i].starts_with("--filename=")) {
      files.push_back(args[i].substr(11));
    } else {
      err << "flotillactl validate: unexpected argument \"" << args[i] << "\"\n" << kValidateUsage;
      return 2;
    }
  }
  if (files.empty()) {
    err << "flotillactl validate: at least one -f FILE is required\n" << kValidateUsage;
    return 2;
  }
  bool allValid = true;
  int objects = 0;
  for (const auto& file : files) {
    auto text = readInput(file, in);
    if (!text) {
      err << "error: " << text.error().message << "\n";
      allValid = false;
      continue;
    }
    auto docs = api::parseManifests(*text);
    if (!docs) {
      err << "error: " << file << ": " << docs.error().message << "\n";
      allValid = false;
      continue;
    }
    for (const auto& doc : *docs) {
      const std::string where = file + " (document " + std::to_string(doc.index) + ")";
      const boost::json::value* items =
          doc.value.is_object() ? doc.value.as_object().if_contains("items") : nullptr;
      const boost::json::value* kind =
          doc.value.is_object() ? doc.value.as_object().if_contains("kind") : nullptr;
      if (kind && kind->is_string() && kind->as_string() == "List" && items && items->is_array()) {
        size_t i = 0;
        for (const auto& item : items->as_array()) {
          allValid = report(item, where + " items[" + std::to_string(i++) + "]", out) && allValid;
          ++objects;
        }
      } else {
        allValid = report(doc.value, where, out) && allValid;
        ++objects;
      }
    }
  }
  out << objects << " object(s) checked: " << (allValid ? "all valid" : "errors found") << "\n";
  return allValid ? 0 : 1;
}

}  // namespace flotilla::cli
