#include "cli/input.h"

#include <fstream>
#include <istream>
#include <iterator>

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

}  // namespace flotilla::cli
