// GoogleMock doubles for kube/ seams.
#pragma once

#include <gmock/gmock.h>

#include <ostream>

#include "kube/controller/controller.h"

namespace flotilla::kube {
// gmock prints the values it compares.
inline std::ostream& operator<<(std::ostream& os, const ReconcileResult& r) {
  return os << "{requeue=" << r.requeue << ", after=" << r.requeueAfter.count() << "ns}";
}
}  // namespace flotilla::kube

namespace flotilla::kube::testing {

class MockReconciler : public Reconciler {
 public:
  MOCK_METHOD(api::Result<ReconcileResult>, reconcile, (const std::string& key), (override));
};

}  // namespace flotilla::kube::testing
