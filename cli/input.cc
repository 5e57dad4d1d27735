#include "cli/input.h"

#include <boost/json/value.hpp>
#include <fstream>
#include <istream>
#include <iterator>
#include <ostream>

#include "api/yaml.h"

namespace flotilla::cli {

api::Result<std::string> readInput(const std::string& path, std::istream& in) {
  std::ifstream file;
  std::istream* source = &in;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) return api::badRequest("cannot open " + path + ": no such file or not readable");
    source = &file;
  }
  std::string text;
  char buffer[64 * 1024];
  while (source->read(buffer, sizeof buffer) || source->gcount() > 0) {
    text.append(buffer, static_cast<size_t>(source->gcount()));
    if (text.size() > kMaxInputBytes)
      return api::badRequest(path + ": input is larger than 16 MiB");
  }
  return api::Result<std::string>(boost::system::in_place_value, std::move(text));
}

bool readManifests(const std::vector<std::string>& files, std::istream& in, std::ostream& err,
                   const std::function<std::string(const boost::json::value&)>& collect) {
  for (const auto& file : files) {
    auto text = readInput(file, in);
    if (!text) {
      err << "error: " << text.error().message << "\n";
      return false;
    }
    auto docs = api::parseManifests(*text);
    if (!docs) {
      err << "error: " << file << ": " << docs.error().message << "\n";
      return false;
    }
    for (const auto& doc : *docs) {
      const std::string problem = collect(doc.value);
      if (!problem.empty()) {
        err << "error: " << file << " (document " << doc.index << "): " << problem << "\n";
        return false;
      }
    }
  }
  return true;
}

}  // namespace flotilla::cli
