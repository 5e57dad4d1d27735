// A member with two Ready nodes and an injected clock, for the workload controllers' tests.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "api/time.h"
#include "sim/member/member_controller.h"
#include "sim/server/defaults.h"
#include "sim/storage/ids.h"

namespace flotilla::sim::testing {

namespace json = boost::json;
using namespace std::chrono_literals;

class WorkloadFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = Store::open({}).value();
    now_ = *api::parseRfc3339("2026-11-22T10:00:00Z");
    options_.readyDelay = 1000ms;
    options_.jobPodRunTime = 3000ms;
    start();
    for (const char* name : {"node-1", "node-2"}) node(name, {});
  }
  void start() {
    controller_ = std::make_unique<MemberController>(*store_, options_, [this] { return now_; });
  }
  void node(const std::string& name, json::object labels, bool ready = true) {
    json::object n{
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata", json::object{{"name", name}, {"uid", name}, {"labels", labels}}},
        {"status",
         json::object{
             {"allocatable", json::object{{"cpu", "8"}, {"memory", "16Gi"}, {"pods", "110"}}},
             {"conditions", json::array{json::object{{"type", "Ready"},
                                                     {"status", ready ? "True" : "False"}}}}}}};
    if (store_->get({"/nodes", "", name}))
      ASSERT_TRUE(store_->update({"/nodes", "", name}, n, std::nullopt));
    else
      ASSERT_TRUE(store_->create({"/nodes", "", name}, n));
  }
  // Creates or replaces (keeping status, bumping generation on a spec change) an object, as
  // the API server would store it: defaulted, uid, creationTimestamp, generation.
  json::object put(const std::string& group, const std::string& resource, json::object o) {
    const std::string storage = group + "/" + resource;
    auto& meta = o["metadata"].as_object();
    if (!meta.contains("namespace")) meta["namespace"] = "default";
    const std::string ns(meta.at("namespace").as_string());
    const std::string name(meta.at("name").as_string());
    auto existing = store_->get({storage, ns, name});
    if (existing) {
      const auto& was = existing->at("metadata").as_object();
      meta["uid"] = was.at("uid");
      meta["creationTimestamp"] = was.at("creationTimestamp");
      int64_t generation = was.at("generation").as_int64();
      if (existing->at("spec") != o.at("spec")) ++generation;
      meta["generation"] = generation;
      if (const auto* status = existing->if_contains("status")) o["status"] = *status;
    } else {
      meta["uid"] = name + "-uid";
      meta["creationTimestamp"] = api::formatRfc3339(now_);
      meta["generation"] = 1;
    }
    applyDefaults(group, resource, o);
    if (group == "batch" && resource == "jobs") {
      if (existing) keepJobSelector(o, *existing);
      generateJobSelector(o);
      applyDefaults(group, resource, o);
    }
    if (existing) {
      // The API server would reject a no-op as no write; a changed spec keeps its defaults.
      EXPECT_TRUE(store_->update({storage, ns, name}, o, std::nullopt));
    } else {
      EXPECT_TRUE(store_->create({storage, ns, name}, o));
    }
    return *store_->get({storage, ns, name});
  }
  json::object get(const std::string& storage, const std::string& name) {
    auto o = store_->get({storage, "default", name});
    EXPECT_TRUE(o) << storage << " " << name;
    return o ? *o : json::object{};
  }
  // Passes `step` apart until eight in a row (4 s: longer than readyDelay) make no write, at
  // most `limit`.
  int settle(std::chrono::milliseconds step = 500ms, int limit = 400) {
    int passes = 0, quiet = 0;
    for (; passes < limit && quiet < 8; ++passes) {
      quiet = controller_->reconcile() == 0 ? quiet + 1 : 0;
      now_ += step;
    }
    return passes;
  }
  // Advances the clock in steps, running a pass after each.
  void run(std::chrono::milliseconds total, std::chrono::milliseconds step = 250ms) {
    for (auto t = 0ms; t < total; t += step) {
      controller_->reconcile();
      now_ += step;
    }
    controller_->reconcile();
  }
  std::vector<json::object> pods() {
    std::vector<json::object> out;
    for (const auto& p : store_->listShared("/pods", "default")) out.push_back(*p);
    return out;
  }

 public:
  static std::string podName(const json::object& p) {
    return std::string(p.at("metadata").at("name").as_string());
  }
  static std::string phase(const json::object& p) {
    return std::string(p.at("status").at("phase").as_string());
  }
  static json::object podTemplate(const std::string& app, const std::string& image,
                                  json::object annotations = {}) {
    json::object metadata{{"labels", json::object{{"app", app}}}};
    if (!annotations.empty()) metadata["annotations"] = annotations;
    return json::object{
        {"metadata", metadata},
        {"spec",
         json::object{{"containers", json::array{json::object{{"name", app}, {"image", image}}}}}}};
  }

 protected:
  std::unique_ptr<Store> store_;
  MemberOptions options_;
  api::Clock::time_point now_;
  std::unique_ptr<MemberController> controller_;
};

}  // namespace flotilla::sim::testing
