// Health and host status of the workload kinds whose copies run their own controllers on each
// member (docs/design.md §11, §13): a DaemonSet and a StatefulSet as `kubectl rollout status`
// reads them, and the host's status as the sum of its members', with observedGeneration moving
// only when every member copy was made from the host's current generation and its controller
// observed it. Pure functions on JSON, tested by tables (workload_status_test.cc); the kinds'
// entries in kinds_workloads.cc use them.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <optional>
#include <vector>

#include "interpreter/interpreter.h"

namespace flotilla::interpreter {

// On every member copy: the host object's metadata.generation it was made from (the sync's
// mark; controllers/common/managed.h names the same annotation).
inline constexpr const char* kSourceGeneration = "flotilla.io/source-generation";

// A count as a member reports it, kept to int32's range (what Kubernetes allows): a hostile
// member cannot overflow the sums.
int64_t memberCount(const boost::json::object& o, std::initializer_list<std::string_view> path);

// The host's status: what it holds, with each of `fields` summed over the members (a zero
// left out, as the API server's JSON leaves it out) and observedGeneration the host's generation
// once every target holds a copy made from it that its controller has observed, else what it
// was. Fields Flotilla does not sum stay as they are (a StatefulSet's collisionCount may never
// decrease).
boost::json::object summedStatus(const boost::json::object& source,
                                 const std::vector<MemberObject>& members,
                                 std::initializer_list<const char*> fields);

HealthReport daemonSetHealth(const boost::json::object& daemonSet);
std::optional<boost::json::object> daemonSetStatus(const boost::json::object& source,
                                                   const std::vector<MemberObject>& members);

HealthReport statefulSetHealth(const boost::json::object& statefulSet);
std::optional<boost::json::object> statefulSetStatus(const boost::json::object& source,
                                                     const std::vector<MemberObject>& members);

}  // namespace flotilla::interpreter
