// The admission webhook's HTTP handler: the kube-apiserver (or anything that reaches the port)
// posts an AdmissionReview. The first byte chooses the endpoint, method and content type; the
// rest is the body. Every request gets one of the documented answers, and a 200 always carries
// an AdmissionReview response (what the API server needs to admit or deny), also after the
// SubjectAccessReviews a FederatedCluster asks for.
#include "api/json_codec.h"
#include "fuzz/fuzz_check.h"
#include "webhooks/http_handler.h"

namespace webhooks = flotilla::webhooks;

namespace {

class View : public webhooks::ClusterView {
 public:
  std::optional<bool> schedulingProfileExists(const std::string& name) const override {
    if (name == "unknown") return std::nullopt;
    return name == "default";
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& kinds = webhooks::admittedKinds();
  const uint8_t choice = data[0];
  flotilla::net::HttpRequest request;
  const size_t route = choice % (kinds.size() * 2 + 1);
  request.target = route == kinds.size() * 2
                       ? "/validate-unknown"
                       : webhooks::pathFor({kinds[route / 2], route % 2 == 1});
  if (choice & 0x80) request.target += "?timeout=10s";
  request.method = (choice & 0x40) ? "PUT" : "POST";
  request.headers.push_back({"Content-Type", (choice & 0x20) ? "text/plain" : "application/json"});
  request.body = std::string(flotilla::fuzz::text(data + 1, size - 1));

  static const View view;
  auto handled = webhooks::handleAdmission(request, view);
  if (!handled.pendingAccess.empty()) {
    // A FederatedCluster naming a Secret: the server asks SubjectAccessReviews, then completes.
    // The last byte chooses their answers: allowed, refused, or the review failed.
    static const std::vector<flotilla::api::Result<bool>> kAnswers = {
        true, false, flotilla::api::badRequest("the review failed")};
    std::vector<flotilla::api::Result<bool>> answers;
    for (size_t i = 0; i < handled.pendingAccess.size(); ++i)
      answers.push_back(kAnswers[(data[size - 1] >> (i % 4)) % 3]);
    webhooks::completeAdmission(handled, answers);
    FUZZ_CHECK(handled.pendingAccess.empty() || !handled.response.body.empty(),
               "completeAdmission left the request unanswered");
  }
  const int status = handled.response.status;
  FUZZ_CHECK(status == 200 || status == 400 || status == 404 || status == 405 || status == 413 ||
                 status == 415,
             "unexpected status " + std::to_string(status));
  if (status == 200) {
    auto body = flotilla::api::parseJson(handled.response.body);
    FUZZ_CHECK(body && body->is_object() && body->as_object().contains("response"),
               "a 200 without an AdmissionReview response: " + handled.response.body);
  }
  return 0;
}
