// The JSONPatch a mutating webhook answers with: exactly what defaulting added, expressed
// against the object the API server sent (not against our re-encoding of it), so fields the
// codec does not model and the user's own spelling of values are left untouched.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

namespace flotilla::webhooks {

// `before` and `after` are the encodings of the decoded object before and after setDefaults.
// Every path where they differ becomes an `add` (RFC 6902 `add` also replaces a member) at the
// highest level that does not exist yet in `original`, carrying only what changed.
boost::json::array defaultsPatch(const boost::json::value& original,
                                 const boost::json::value& before, const boost::json::value& after);

}  // namespace flotilla::webhooks
