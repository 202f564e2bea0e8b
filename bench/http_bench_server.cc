// stormguard_http_bench_server: the server scripts/bench_http.sh loads with wrk.
//
//   stormguard_http_bench_server MODE [SECONDS]
//
// Serves GET /hello ("hello") on a free loopback port, prints "port N", and
// exits after SECONDS (default 600) if nobody stops it first. MODE:
//   untuned     cpp-httplib as it comes (Nagle on, 5-request keep-alive)
//   bare        the tuned server (http::TuneAndBind), the handler alone
//   middleware  the tuned server, the handler wrapped in http::Middleware
//   pipeline    as middleware, and the handler's work runs through a preset
//               pipeline (presets::UserFacing: timeout, retry with budget)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "stormguard/http/server.h"
#include "stormguard/http/server_tuning.h"
#include "stormguard/pipeline/presets.h"
#include "stormguard/retry/token_bucket_budget.h"

namespace {
using namespace stormguard;

void Hello(httplib::Response& res) { res.set_content("hello", "text/plain"); }

template <class T>
T OrExit(Result<T> r) {
  if (!r.ok()) {
    std::fprintf(stderr, "stormguard_http_bench_server: %s\n", r.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view usage = "usage: stormguard_http_bench_server untuned|bare|middleware|pipeline [SECONDS]";
  const std::string mode = argc >= 2 ? argv[1] : "";
  const int seconds = argc >= 3 ? std::atoi(argv[2]) : 600;
  if (argc > 3 || (mode != "untuned" && mode != "bare" && mode != "middleware" && mode != "pipeline") || seconds < 1 ||
      seconds > 86400) {
    std::fprintf(stderr, "%.*s\n  MODE: got '%s'; SECONDS: 1..86400\n", static_cast<int>(usage.size()), usage.data(),
                 mode.c_str());
    return 2;
  }
  ::alarm(static_cast<unsigned>(seconds));  // a forgotten server stops by itself

  httplib::Server server;
  std::unique_ptr<http::Middleware> middleware;
  PipelineRef pipeline;
  if (mode == "untuned" || mode == "bare") {
    server.Get("/hello", [](const httplib::Request&, httplib::Response& res) { Hello(res); });
  } else {
    middleware = OrExit(http::Middleware::Create({}));
    if (mode == "pipeline") {
      auto budget = OrExit(TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.1}));
      pipeline = OrExit(presets::UserFacing({.budget = budget}).Build());
    }
    server.Get("/hello",
               middleware->Wrap([&pipeline](const httplib::Request&, httplib::Response& res, CallContext& ctx) {
                 if (!pipeline) return Hello(res);
                 const Status s = pipeline->Execute(ctx, [&](CallContext&) {
                   Hello(res);
                   return Status::Ok();
                 });
                 if (!s.ok()) res.status = 503;
               }));
  }
  const int port =
      mode == "untuned" ? server.bind_to_any_port("127.0.0.1") : OrExit(http::TuneAndBind(server, {}, "127.0.0.1"));
  if (port <= 0) {
    std::fprintf(stderr, "stormguard_http_bench_server: cannot bind 127.0.0.1\n");
    return 1;
  }
  std::printf("port %d\n", port);
  std::fflush(stdout);
  return server.listen_after_bind() ? 0 : 1;
}
