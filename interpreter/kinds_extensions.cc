// CustomResourceDefinition (docs/design.md §3.8): healthy once the member's API server serves it
// (condition Established). A custom resource of it waits on a member until then.
#include <boost/json/value.hpp>
#include <string>

#include "api/unstructured.h"
#include "interpreter/interpreter.h"

namespace flotilla::interpreter {
namespace json = boost::json;
namespace u = api::unstructured;

namespace {

HealthReport crdHealth(const json::object& crd) {
  if (const json::object* names = u::condition(crd, "NamesAccepted");
      names && u::stringAt(*names, {"status"}) == "False")
    return {Health::kUnhealthy, u::stringAt(*names, {"message"}, "its names are not accepted")};
  if (const json::object* established = u::condition(crd, "Established");
      established && u::stringAt(*established, {"status"}) == "True")
    return {Health::kHealthy, ""};
  return {Health::kProgressing, "not established yet"};
}

}  // namespace

void addExtensionKinds(Registry& registry) {
  registry.add(KindEntry{
      .group = "apiextensions.k8s.io", .kind = "CustomResourceDefinition", .health = crdHealth});
}

}  // namespace flotilla::interpreter
