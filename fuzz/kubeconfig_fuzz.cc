// A kubeconfig (a file the user points at, or a member's Secret the operator reads): any bytes
// give a configuration or an error, never a crash. Files it names are looked up under a
// directory that does not exist, so a run reads nothing from the machine.
#include "api/json_codec.h"
#include "fuzz/fuzz_check.h"
#include "kube/config/rest_config.h"

namespace kube = flotilla::kube;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view s = flotilla::fuzz::text(data, size);
  (void)kube::kubeconfigFromText(s, "", "/nonexistent-fuzz-dir");
  (void)kube::kubeconfigFromText(s, "member1", "/nonexistent-fuzz-dir");
  // The same bytes as a member's Secret (JSON).
  auto json = flotilla::api::parseJson(s);
  if (json && json->is_object()) {
    (void)kube::configFromSecret(json->as_object(), "", false);
    (void)kube::configFromSecret(json->as_object(), "https://127.0.0.1:6443", true);
  }
  return 0;
}
