// Writes Events through the REST client (blocking; call from any thread but the client's I/O
// thread — the recorder's writer thread does).
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include "kube/client/rest_client.h"
#include "kube/events/event_recorder.h"

namespace flotilla::kube {

class RestEventSink final : public EventSink {
 public:
  RestEventSink(RestClient& client, boost::asio::any_io_executor executor);
  api::Result<boost::json::object> create(const std::string& ns,
                                          const boost::json::object& event) override;
  api::Result<boost::json::object> patch(const std::string& ns, const std::string& name,
                                         const std::string& mergePatch) override;

 private:
  RestClient& client_;
  boost::asio::any_io_executor executor_;
};

}  // namespace flotilla::kube
