// Finalizers, one way for every controller (docs/design.md §5): whether an object has one, and
// the edits that add or remove one on the JSON of an object, for RestClient::updateWithRetry
// (which re-reads and re-applies them on a 409). The edits say whether they changed anything, so
// an object that already is as wanted is not written.
#pragma once

#include <boost/json/object.hpp>
#include <string>

#include "api/meta_types.h"
#include "api/result.h"

namespace flotilla::controllers {

bool hasFinalizer(const api::ObjectMeta& meta, const std::string& finalizer);
// metadata.finalizers gets `finalizer` unless it has it; true when it changed.
api::Result<bool> addFinalizer(boost::json::object& object, const std::string& finalizer);
// metadata.finalizers loses every `finalizer`; true when it changed.
api::Result<bool> removeFinalizer(boost::json::object& object, const std::string& finalizer);

}  // namespace flotilla::controllers
