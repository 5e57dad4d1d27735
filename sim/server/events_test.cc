// The expected forms are what kube-apiserver v1.24 served for the same events through both APIs.
#include "sim/server/events.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace flotilla::sim {
namespace {

namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

const char* kMeta = R"({"name":"ev","namespace":"sim-cmp","uid":"u1","resourceVersion":"380"})";

std::string with(const char* body) {
  std::string s = body;
  s.replace(s.find("META"), 4, kMeta);
  return s;
}

TEST(Events, NewApiEventReadThroughBothApis) {
  const auto written = parse(with(R"({"apiVersion":"events.k8s.io/v1","kind":"Event",
    "metadata":META,
    "regarding":{"kind":"Pod","name":"pod1","namespace":"sim-cmp","apiVersion":"v1",
                 "fieldPath":"spec.containers{web}"},
    "related":{"kind":"Node","name":"member1-node-1","apiVersion":"v1"},
    "reason":"Started","note":"Started container web","type":"Warning","action":"Starting",
    "reportingController":"flotilla.io/test","reportingInstance":"test-1",
    "eventTime":"2026-11-23T05:00:00.123456Z",
    "series":{"count":4,"lastObservedTime":"2026-11-23T05:01:00.000000Z"}})"));
  const auto core = eventToCore(written);
  EXPECT_EQ(core, parse(with(R"({"kind":"Event","apiVersion":"v1","metadata":META,
    "involvedObject":{"kind":"Pod","namespace":"sim-cmp","name":"pod1","apiVersion":"v1",
                      "fieldPath":"spec.containers{web}"},
    "reason":"Started","message":"Started container web","source":{},
    "firstTimestamp":null,"lastTimestamp":null,"type":"Warning",
    "eventTime":"2026-11-23T05:00:00.123456Z",
    "series":{"count":4,"lastObservedTime":"2026-11-23T05:01:00.000000Z"},"action":"Starting",
    "related":{"kind":"Node","name":"member1-node-1","apiVersion":"v1"},
    "reportingComponent":"flotilla.io/test","reportingInstance":"test-1"})")));
  EXPECT_EQ(eventToEventsV1(core), parse(with(R"({"kind":"Event","apiVersion":"events.k8s.io/v1",
    "metadata":META,"eventTime":"2026-11-23T05:00:00.123456Z",
    "series":{"count":4,"lastObservedTime":"2026-11-23T05:01:00.000000Z"},
    "reportingController":"flotilla.io/test","reportingInstance":"test-1","action":"Starting",
    "reason":"Started",
    "regarding":{"kind":"Pod","namespace":"sim-cmp","name":"pod1","apiVersion":"v1",
                 "fieldPath":"spec.containers{web}"},
    "related":{"kind":"Node","name":"member1-node-1","apiVersion":"v1"},
    "note":"Started container web","type":"Warning","deprecatedSource":{},
    "deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null})")));
  // Stored → served → written back is the same stored object (no spurious writes).
  EXPECT_EQ(eventToCore(eventToEventsV1(core)), core);
  EXPECT_EQ(eventToCore(core), core);
}

TEST(Events, CoreEventReadThroughTheNewApi) {
  const auto core = eventToCore(parse(with(R"({"apiVersion":"v1","kind":"Event","metadata":META,
    "involvedObject":{"kind":"Deployment","name":"web","namespace":"sim-cmp","apiVersion":"apps/v1",
                      "uid":"d1"},
    "reason":"ScalingReplicaSet","message":"Scaled up replica set web-1 to 1","type":"Normal",
    "source":{"component":"deployment-controller"},"count":3,
    "firstTimestamp":"2026-11-23T04:00:00Z","lastTimestamp":"2026-11-23T05:00:00Z"})")));
  EXPECT_EQ(core.at("eventTime"), nullptr);
  EXPECT_EQ(core.at("reportingComponent"), "");
  EXPECT_EQ(core.at("reportingInstance"), "");
  EXPECT_EQ(eventToEventsV1(core), parse(with(R"({"kind":"Event","apiVersion":"events.k8s.io/v1",
    "metadata":META,"eventTime":null,"reason":"ScalingReplicaSet",
    "regarding":{"kind":"Deployment","namespace":"sim-cmp","name":"web","uid":"d1",
                 "apiVersion":"apps/v1"},
    "note":"Scaled up replica set web-1 to 1","type":"Normal",
    "deprecatedSource":{"component":"deployment-controller"},
    "deprecatedFirstTimestamp":"2026-11-23T04:00:00Z",
    "deprecatedLastTimestamp":"2026-11-23T05:00:00Z","deprecatedCount":3})")));
}

TEST(Events, FieldLabels) {
  EXPECT_EQ(eventsV1FieldToCore("regarding.name"), "involvedObject.name");
  EXPECT_EQ(eventsV1FieldToCore("regarding"), "involvedObject");
  EXPECT_EQ(eventsV1FieldToCore("reportingController"), "reportingComponent");
  EXPECT_EQ(eventsV1FieldToCore("deprecatedSource.component"), "source.component");
  EXPECT_EQ(eventsV1FieldToCore("reason"), "reason");
  EXPECT_EQ(eventsV1FieldToCore("regardingX"), "regardingX");
  EXPECT_EQ(coreEventSourceLabel(parse(R"({"source":{"component":"kubelet"}})")), "kubelet");
  EXPECT_EQ(coreEventSourceLabel(parse(R"({"source":{},"reportingComponent":"flotilla"})")),
            "flotilla");
}

}  // namespace
}  // namespace flotilla::sim
