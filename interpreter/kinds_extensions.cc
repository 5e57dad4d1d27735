// CustomResourceDefinition (docs/design.md §3.8, §5.11): healthy once the member's API server
// serves it (condition Established). A custom resource of it waits on a member until then; as a
// follower of its custom resources it is established before they are sent, and never deleted
// from a member when they leave.
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
  // A CRD follows the custom resources (docs/design.md §12): it
  // must be established before they are sent, and leaving a cluster must never delete it.
  registry.add(KindEntry{.group = "apiextensions.k8s.io",
                         .kind = "CustomResourceDefinition",
                         .health = crdHealth,
                         .followersWaitUntilHealthy = true,
                         .keptWhenUnfollowed = "deleting a CustomResourceDefinition deletes every "
                                               "custom resource of it on that cluster"});
}

}  // namespace flotilla::interpreter
