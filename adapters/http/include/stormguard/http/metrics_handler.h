// stormguard/http/metrics_handler.h: a MetricsListener's scrape, served by a
// cpp-httplib server for Prometheus.
//
//   MetricsListener metrics;
//   httplib::Server http;
//   http.Get("/metrics", stormguard::http::MetricsHandler(metrics));
//
// Answers 200 with the text exposition format (version 0.0.4). The listener
// must outlive the server. Thread safety: as MetricsListener::Scrape.
#pragma once

#include <httplib.h>

#include "stormguard/metrics/metrics_listener.h"

namespace stormguard::http {

httplib::Server::Handler MetricsHandler(const MetricsListener& metrics);

}  // namespace stormguard::http
