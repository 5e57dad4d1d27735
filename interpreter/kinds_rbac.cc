// RBAC kinds (docs/design.md §3.8): propagated whole. An aggregated ClusterRole's rules are filled
// in by each cluster's aggregation controller from the roles it selects there, so the host's
// rules are not sent: the member computes its own.
#include <boost/json/value.hpp>

#include "interpreter/interpreter.h"

namespace flotilla::interpreter {
namespace json = boost::json;

void addRbacKinds(Registry& registry) {
  const char* group = "rbac.authorization.k8s.io";
  registry.add(KindEntry{.group = group, .kind = "Role"});
  registry.add(KindEntry{.group = group, .kind = "RoleBinding"});
  registry.add(KindEntry{.group = group, .kind = "ClusterRoleBinding"});
  registry.add(KindEntry{.group = group,
                         .kind = "ClusterRole",
                         .prune =
                             [](json::object& role) {
                               if (role.contains("aggregationRule")) role.erase("rules");
                             },
                         .retain =
                             [](json::object& desired, const json::object& live) {
                               if (!desired.contains("aggregationRule")) return;
                               if (const json::value* rules = live.if_contains("rules"))
                                 desired["rules"] = *rules;
                             }});
}

}  // namespace flotilla::interpreter
