// tests/integration/async/async_wave.h: many concurrent calls through one
// pipeline, each a coroutine on one io_context, and what they measured.
//
//   Wave w{.shape = {.phase = "up", .url = url, .calls = 1000, .deadline = 2s}};
//   RunWave(io, pipeline, *client, w);
//   WaveFigures f = Tally(w);
//   std::fputs(FormatTable({f}).c_str(), stdout);
//
// Each call gets its own deadline when it starts and runs
// `co_await pipeline.Execute(ctx, attempt)`, where the attempt is one
// AsyncCurlClient::Send (a non-2xx answer becomes its Status). Attempts are
// counted where they are sent, so attempts / calls is the load the calls
// put on the downstream. RunWave runs the io_context on the calling thread
// until every call has ended or `limit` has passed; the calls write into
// `wave`, which must outlive the io_context's use of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <asio/io_context.hpp>

#include "stormguard/asio/async_curl_client.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard::demo::async_chain {

struct WaveShape {
  std::string phase;
  std::string url;
  std::size_t calls = 0;
  Duration deadline{};                        // each call's, from its start
  Duration limit = std::chrono::seconds(20);  // the whole wave's, a test failure when reached
};

struct CallRecord {
  bool ended = false;
  bool ok = false;
  Duration latency{};
  Duration lateness{};  // end - deadline: negative when early
};

struct Wave {
  WaveShape shape;
  std::vector<CallRecord> calls;
  std::uint64_t attempts = 0;  // Sends started
  std::size_t ended = 0;
};

void RunWave(asio::io_context& io, const PipelineRef& pipeline, http::AsyncCurlClient& client, Wave& wave);

struct WaveFigures {
  std::string phase;
  std::size_t calls = 0, ended = 0, ok = 0;
  std::uint64_t attempts = 0;
  double amplification = 0;  // attempts / calls
  Duration p50{}, p99{}, max{};
  Duration deadline{};
  Duration worst_lateness{};  // the latest end relative to its deadline
};

// Adds `more`'s calls and attempts to `into` (the probes of a recovery as one row).
void Absorb(Wave& into, const Wave& more);

WaveFigures Tally(const Wave& wave);

// A fixed-width table, one row per wave, latencies in ms.
std::string FormatTable(const std::vector<WaveFigures>& rows);

}  // namespace stormguard::demo::async_chain
