// The patch formats flotilla-sim serves live in api/patch.h (shared with the operator's sync
// controller); this header makes them available under the sim's namespace.
#pragma once

#include "api/patch.h"

namespace flotilla::sim {
using api::applyJsonPatch;
using api::applyMergePatch;
using api::applyStrategicMergePatch;
using api::strategicMergeKey;
}  // namespace flotilla::sim
