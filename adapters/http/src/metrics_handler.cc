#include "stormguard/http/metrics_handler.h"

#include <string>

namespace stormguard::http {

httplib::Server::Handler MetricsHandler(const MetricsListener& metrics) {
  return [&metrics](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics.Scrape(), std::string(MetricsListener::kContentType));
  };
}

}  // namespace stormguard::http
