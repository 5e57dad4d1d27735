#include "controllers/common/status_write.h"

#include "controllers/common/await.h"

namespace flotilla::controllers {

namespace json = boost::json;

api::Result<json::object> writeStatus(kube::RestClient& client,
                                      boost::asio::any_io_executor executor,
                                      const kube::ResourceId& resource, json::object cached,
                                      const std::function<api::Result<bool>(json::object&)>& mutate,
                                      int attempts) {
  json::object object = std::move(cached);
  for (int attempt = 1;; ++attempt) {
    auto changed = mutate(object);
    if (!changed) return changed.error();
    if (!*changed) return object;
    auto written = await(executor, client.updateStatus(resource, object));
    if (written || written.error().code != 409 || attempt >= attempts) return written;
    const auto* meta = object.if_contains("metadata");
    std::string ns, name;
    if (meta && meta->is_object()) {
      if (const auto* n = meta->as_object().if_contains("namespace"); n && n->is_string())
        ns = std::string(n->as_string());
      if (const auto* n = meta->as_object().if_contains("name"); n && n->is_string())
        name = std::string(n->as_string());
    }
    auto fresh = await(executor, client.get(resource, ns, name));
    if (!fresh) return fresh.error();
    object = std::move(*fresh);
  }
}

}  // namespace flotilla::controllers
