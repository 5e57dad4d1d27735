#include "kube/events/rest_event_sink.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>

namespace flotilla::kube {
namespace asio = boost::asio;

namespace {
const ResourceId kEvents{"", "v1", "events", true, "Event"};
}

RestEventSink::RestEventSink(RestClient& client, asio::any_io_executor executor)
    : client_(client), executor_(std::move(executor)) {}

api::Result<boost::json::object> RestEventSink::create(const std::string& ns,
                                                       const boost::json::object& event) {
  const WriteOptions options;
  return asio::co_spawn(executor_, client_.create(kEvents, ns, event, options), asio::use_future)
      .get();
}

api::Result<boost::json::object> RestEventSink::patch(const std::string& ns,
                                                      const std::string& name,
                                                      const std::string& mergePatch) {
  const WriteOptions options;
  const std::string noSubresource;
  return asio::co_spawn(executor_,
                        client_.patch(kEvents, ns, name, PatchType::kMerge, mergePatch, options,
                                      noSubresource),
                        asio::use_future)
      .get();
}

}  // namespace flotilla::kube
