// Writing a status that several controllers share (a ResourceBinding's status has fields of the
// scheduler, the sync and the status controllers): the first attempt uses the cached object;
// when it lost a race (409), the fresh object is read and `mutate` applied to it again, a few
// times. A conflict is not an error to back off from: each writer owns different fields.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <functional>

#include "api/result.h"
#include "kube/client/rest_client.h"

namespace flotilla::controllers {

// `mutate` sets the status it wants on the object and says whether that changed anything
// (false: nothing is written). Returns the object as written (or as found when unchanged).
api::Result<boost::json::object> writeStatus(
    kube::RestClient& client, boost::asio::any_io_executor executor,
    const kube::ResourceId& resource, boost::json::object cached,
    const std::function<api::Result<bool>(boost::json::object&)>& mutate, int attempts = 5);

}  // namespace flotilla::controllers
