#include "controllers/common/object_key.h"

#include <cctype>
#include <cstdio>

#include "api/names.h"
#include "api/unstructured.h"

namespace flotilla::controllers {

namespace u = api::unstructured;

namespace {

std::string shortHash(std::string_view text) {
  uint32_t h = 2166136261u;
  for (unsigned char c : text) h = (h ^ c) * 16777619u;
  char out[9];
  std::snprintf(out, sizeof out, "%08x", h);
  return out;
}

bool validName(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  for (char c : name)
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.'))
      return false;
  return std::isalnum(static_cast<unsigned char>(name.front())) &&
         std::isalnum(static_cast<unsigned char>(name.back()));
}

}  // namespace

std::string federatedName(std::string_view name, std::string_view kind, std::string_view group) {
  std::string suffix = "-";
  for (char c : kind) suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!api::kubernetesGroup(group)) suffix += "-" + shortHash(group);
  std::string out = std::string(name) + suffix;
  if (validName(out)) return out;
  // Clean: lowercase, anything else a '-', then room for the suffix and a hash of the original.
  std::string cleaned;
  for (char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    cleaned += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : (c == '.' ? '.' : '-');
  }
  const std::string tail =
      suffix + "-" +
      shortHash(std::string(group) + "/" + std::string(kind) + "/" + std::string(name));
  cleaned = cleaned.substr(0, 253 - tail.size());
  while (!cleaned.empty() && !std::isalnum(static_cast<unsigned char>(cleaned.front())))
    cleaned.erase(0, 1);
  while (!cleaned.empty() && !std::isalnum(static_cast<unsigned char>(cleaned.back())))
    cleaned.pop_back();
  if (cleaned.empty()) cleaned = "x";
  return cleaned + tail;
}

std::string ObjectKey::str() const { return kind + "/" + apiVersion + ":" + cacheKey(); }

std::string ObjectKey::group() const {
  const auto slash = apiVersion.find('/');
  return slash == std::string::npos ? "" : apiVersion.substr(0, slash);
}

std::optional<ObjectKey> ObjectKey::parse(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto head = text.substr(0, colon);
  const auto tail = text.substr(colon + 1);
  const auto slash = head.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == head.size() || tail.empty())
    return std::nullopt;
  ObjectKey key{std::string(head.substr(slash + 1)), std::string(head.substr(0, slash)), "", ""};
  // Object names never hold '/', namespaces neither: one '/' separates them.
  if (const auto sep = tail.find('/'); sep != std::string_view::npos) {
    key.ns = std::string(tail.substr(0, sep));
    key.name = std::string(tail.substr(sep + 1));
    if (key.ns.empty() || key.name.empty() || key.name.find('/') != std::string::npos)
      return std::nullopt;
  } else {
    key.name = std::string(tail);
  }
  return key;
}

ObjectKey ObjectKey::of(const boost::json::object& object) {
  return {u::stringAt(object, {"apiVersion"}), u::stringAt(object, {"kind"}),
          u::stringAt(object, {"metadata", "namespace"}),
          u::stringAt(object, {"metadata", "name"})};
}

}  // namespace flotilla::controllers
