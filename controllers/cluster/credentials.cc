#include "controllers/cluster/credentials.h"

#include "api/flotilla_types.h"

namespace flotilla::controllers::cluster {

std::optional<std::string> credentialsBindingError(const boost::json::object& secret,
                                                   const std::string& cluster) {
  const std::string annotation = api::kClusterCredentialsAnnotation;
  const boost::json::value* value = nullptr;
  if (const auto* meta = secret.if_contains("metadata"); meta && meta->is_object()) {
    if (const auto* a = meta->as_object().if_contains("annotations"); a && a->is_object())
      value = a->as_object().if_contains(annotation);
  }
  const std::string fix = "annotate the Secret " + annotation + "=" + cluster +
                          " if it holds this cluster's credentials";
  if (!value || !value->is_string()) {
    return "the Secret is not bound to a cluster (no " + annotation + " annotation): " + fix;
  }
  if (value->as_string() != cluster) {
    return "the Secret belongs to cluster \"" + std::string(value->as_string()) +
           "\" (annotation " + annotation + "), not to this one";
  }
  return std::nullopt;
}

}  // namespace flotilla::controllers::cluster
