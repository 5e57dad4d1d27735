#include "webhooks/access_review.h"

#include <boost/json.hpp>

namespace flotilla::webhooks {
namespace json = boost::json;

json::object subjectAccessReview(const UserInfo& user, const AccessCheck& check) {
  json::object spec{{"user", user.username},
                    {"groups", json::value_from(user.groups)},
                    {"resourceAttributes", json::object{{"verb", check.verb},
                                                        {"group", check.group},
                                                        {"version", "*"},
                                                        {"resource", check.resource},
                                                        {"namespace", check.namespace_},
                                                        {"name", check.name}}}};
  if (!user.uid.empty()) spec["uid"] = user.uid;
  if (!user.extra.empty()) spec["extra"] = json::value_from(user.extra);
  return {{"apiVersion", "authorization.k8s.io/v1"},
          {"kind", "SubjectAccessReview"},
          {"spec", std::move(spec)}};
}

api::Result<bool> accessAllowed(const json::object& answer) {
  const json::value* status = answer.if_contains("status");
  const json::value* allowed =
      status && status->is_object() ? status->as_object().if_contains("allowed") : nullptr;
  if (!allowed || !allowed->is_bool()) {
    return api::Error{api::reason::kInternalError,
                      500,
                      "the SubjectAccessReview answer has no boolean status.allowed",
                      {}};
  }
  return allowed->as_bool();
}

}  // namespace flotilla::webhooks
