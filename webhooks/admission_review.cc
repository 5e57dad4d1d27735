#include "webhooks/admission_review.h"

#include <boost/json.hpp>

#include "api/base64.h"
#include "api/json_codec.h"

namespace flotilla::webhooks {
namespace json = boost::json;

namespace {

constexpr const char* kApiVersion = "admission.k8s.io/v1";

api::Error bad(std::string message) {
  return api::badRequest("invalid AdmissionReview: " + std::move(message));
}

// Reads an optional string member; a present value of another type is an error.
bool readString(const json::object& o, std::string_view key, std::string& out, std::string& error,
                const std::string& path) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return true;
  if (!v->is_string()) {
    error = path + std::string(key) + " must be a string";
    return false;
  }
  out = std::string(v->as_string());
  return true;
}

// The Status cause reason kube-apiserver would give a field error with this message.
const char* causeReason(const std::string& message) {
  auto starts = [&](std::string_view prefix) { return message.rfind(prefix, 0) == 0; };
  if (starts("Required value")) return "FieldValueRequired";
  if (starts("Unsupported value")) return "FieldValueNotSupported";
  if (starts("Duplicate value")) return "FieldValueDuplicate";
  if (starts("Forbidden")) return "FieldValueForbidden";
  if (starts("Too long") || starts("Too many")) return "FieldValueTooLong";
  return "FieldValueInvalid";
}

}  // namespace

api::Result<AdmissionRequest> decodeAdmissionReview(std::string_view body) {
  boost::system::error_code ec;
  json::parse_options deep;
  deep.max_depth = api::kMaxJsonDepth;
  json::value doc = json::parse(body, ec, {}, deep);
  if (ec) return bad("the body is not JSON: " + ec.message());
  if (!doc.is_object()) return bad("the body is not a JSON object");
  const json::object& review = doc.as_object();
  std::string apiVersion, kind, error;
  if (!readString(review, "apiVersion", apiVersion, error, "") ||
      !readString(review, "kind", kind, error, ""))
    return bad(error);
  if (kind != "AdmissionReview")
    return bad("kind is \"" + kind + "\", expected \"AdmissionReview\"");
  if (apiVersion != kApiVersion)
    return bad("apiVersion is \"" + apiVersion + "\", this webhook speaks only " + kApiVersion +
               " (set admissionReviewVersions: [v1])");
  const json::value* requestValue = review.if_contains("request");
  if (!requestValue || !requestValue->is_object())
    return bad("request is missing or not an object");
  const json::object& r = requestValue->as_object();

  AdmissionRequest out;
  std::string namespace_;
  if (!readString(r, "uid", out.uid, error, "request.") ||
      !readString(r, "operation", out.operation, error, "request.") ||
      !readString(r, "subResource", out.subResource, error, "request.") ||
      !readString(r, "namespace", out.namespace_, error, "request.") ||
      !readString(r, "name", out.name, error, "request."))
    return bad(error);
  if (out.uid.empty()) return bad("request.uid is missing");
  if (out.operation.empty()) return bad("request.operation is missing");
  if (const json::value* k = r.if_contains("kind"); k && k->is_object()) {
    if (!readString(k->as_object(), "group", out.kind.group, error, "request.kind.") ||
        !readString(k->as_object(), "version", out.kind.version, error, "request.kind.") ||
        !readString(k->as_object(), "kind", out.kind.kind, error, "request.kind."))
      return bad(error);
  } else {
    return bad("request.kind is missing or not an object");
  }
  if (const json::value* res = r.if_contains("resource"); res && res->is_object()) {
    if (!readString(res->as_object(), "resource", out.resource, error, "request.resource."))
      return bad(error);
  }
  if (const json::value* u = r.if_contains("userInfo"); u && u->is_object()) {
    const json::object& info = u->as_object();
    if (!readString(info, "username", out.username, error, "request.userInfo.") ||
        !readString(info, "uid", out.user.uid, error, "request.userInfo."))
      return bad(error);
    out.user.username = out.username;
    const auto strings = [](const json::value& v, std::vector<std::string>& into) {
      if (v.is_null()) return true;
      if (!v.is_array()) return false;
      for (const auto& item : v.as_array()) {
        if (!item.is_string()) return false;
        into.emplace_back(item.as_string());
      }
      return true;
    };
    if (const json::value* g = info.if_contains("groups"); g && !strings(*g, out.user.groups))
      return bad("request.userInfo.groups must be an array of strings");
    if (const json::value* x = info.if_contains("extra"); x && !x->is_null()) {
      if (!x->is_object()) return bad("request.userInfo.extra must be an object");
      for (const auto& [key, values] : x->as_object()) {
        if (!strings(values, out.user.extra[std::string(key)]))
          return bad("request.userInfo.extra." + std::string(key) + " must be an array of strings");
      }
    }
  }
  for (auto [key, target] : {std::pair{"object", &out.object}, {"oldObject", &out.oldObject}}) {
    const json::value* v = r.if_contains(key);
    if (!v || v->is_null()) continue;
    if (!v->is_object()) return bad("request." + std::string(key) + " must be an object");
    *target = *v;
  }
  if (const json::value* d = r.if_contains("dryRun"); d && !d->is_null()) {
    if (!d->is_bool()) return bad("request.dryRun must be a boolean");
    out.dryRun = d->as_bool();
  }
  return out;
}

std::string encodeAdmissionReview(const AdmissionResponse& response) {
  json::object r{{"uid", response.uid}, {"allowed", response.allowed}};
  if (!response.allowed) {
    json::object status{{"metadata", json::object{}},
                        {"status", "Failure"},
                        {"message", response.status.message},
                        {"reason", response.status.reason},
                        {"code", response.status.code}};
    if (!response.status.causes.empty()) {
      json::array causes;
      for (const auto& c : response.status.causes)
        causes.push_back(json::object{
            {"reason", causeReason(c.message)}, {"message", c.message}, {"field", c.field}});
      status["details"] = json::object{{"causes", std::move(causes)}};
    }
    r["status"] = std::move(status);
  }
  if (response.patch) {
    r["patchType"] = "JSONPatch";
    r["patch"] = api::base64Encode(json::serialize(*response.patch));
  }
  if (!response.warnings.empty()) {
    json::array warnings;
    for (const auto& w : response.warnings) warnings.push_back(json::string(w));
    r["warnings"] = std::move(warnings);
  }
  return json::serialize(
      json::object{{"apiVersion", kApiVersion}, {"kind", "AdmissionReview"}, {"response", r}});
}

AdmissionResponse denied(std::string uid, api::Error error) {
  AdmissionResponse out;
  out.uid = std::move(uid);
  out.allowed = false;
  out.status = std::move(error);
  return out;
}

std::string servedWarning(const ServedQuestion& q) {
  return q.field + ": the host does not serve kind " + q.kind + " in " + q.apiVersion +
         "; this selector selects nothing until it does";
}

}  // namespace flotilla::webhooks
