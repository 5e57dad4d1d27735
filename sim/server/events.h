// core/v1 Events and events.k8s.io/v1 Events are one collection, as in kube-apiserver: an event
// is stored in its core/v1 form and converted when it is read, watched or written through
// events.k8s.io/v1. Field mapping (core ↔ events.k8s.io):
//   involvedObject ↔ regarding, message ↔ note, source ↔ deprecatedSource,
//   reportingComponent ↔ reportingController, count ↔ deprecatedCount,
//   firstTimestamp ↔ deprecatedFirstTimestamp, lastTimestamp ↔ deprecatedLastTimestamp;
//   reason, type, eventTime, series, action, reportingInstance and related keep their names.
// Both forms are served as kube-apiserver serializes them: fields without omitempty appear even
// when empty (core: source {}, eventTime/firstTimestamp/lastTimestamp null, reportingComponent
// and reportingInstance ""; events.k8s.io: eventTime, deprecatedFirstTimestamp and
// deprecatedLastTimestamp null, deprecatedSource {}).
#pragma once

#include <boost/json/object.hpp>
#include <string>

namespace flotilla::sim {

// The stored (core/v1) form of an event written as core/v1 or events.k8s.io/v1 (by apiVersion).
boost::json::object eventToCore(boost::json::object event);
// An event (stored or core/v1) in events.k8s.io/v1.
boost::json::object eventToEventsV1(const boost::json::object& core);

// A field selector path of events.k8s.io/v1 as the stored core path ("regarding.name" →
// "involvedObject.name", "reportingController" → "reportingComponent", "note" → "message").
std::string eventsV1FieldToCore(const std::string& path);
// The core field label "source": source.component, or reportingComponent when that is empty.
std::string coreEventSourceLabel(const boost::json::object& core);

}  // namespace flotilla::sim
