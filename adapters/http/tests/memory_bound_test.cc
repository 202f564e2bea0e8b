// Resident memory stays bounded however many keyed answers a server stores
// and however long an answer a client is sent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "client_test_util.h"
#include "stormguard/http/client.h"
#include "stormguard/http/server.h"
#include "test_server.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kStoreBound = 32 * kMiB;
// Allocator slack, thread stacks, httplib's buffers: what a bounded process
// may add on top of its bound.
constexpr std::size_t kMargin = 24 * kMiB;
const std::string kAnswer(64 * 1024, 'a');

// Under a sanitizer the resident size measures its shadow memory and its
// quarantine of freed blocks, not us: there only the store's own books
// (stats().bytes) are checked, and the same code paths still run.
// There the 100,000 keys also shrink to 10,000: the same path, without
// copying 6.4 GB through the sanitizer's instrumentation.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kCheckResidentSize = false;
#else
constexpr bool kCheckResidentSize = true;
#endif
constexpr int kKeys = kCheckResidentSize ? 100'000 : 10'000;

std::size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

std::unique_ptr<IdempotencyStore> BoundedStore() {
  auto s = IdempotencyStore::Create({.max_entries = 1'000'000, .max_bytes = kStoreBound, .ttl = 1h});
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

std::unique_ptr<Middleware> MiddlewareWith(IdempotencyStore* store) {
  auto m = Middleware::Create({.idempotency = store});
  EXPECT_TRUE(m.ok());
  return std::move(m).value();
}

void Answer64Kb(const httplib::Request&, httplib::Response& res, CallContext&) {
  res.status = 200;
  res.set_content(kAnswer, "text/plain");
}

// 100,000 round trips over loopback take minutes on a loaded 2-core machine,
// so the 100,000 keys go through the middleware's handler directly (the
// same Serve path, without the socket), and 2,000 more keys through a real
// httplib server; both would hold 6.4 GB / 128 MB of answers unbounded.
// The check runs every 1,000 keys, so a broken bound fails before it hurts.
TEST(MemoryBoundTest, HundredThousandKeysOf64KbStayUnderTheStoresByteBound) {
  auto store = BoundedStore();
  auto mw = MiddlewareWith(store.get());
  const httplib::Server::Handler serve = mw->Wrap(Answer64Kb);
  const std::size_t before = ResidentBytes();
  std::size_t peak = before;
  for (int i = 0; i < kKeys; ++i) {
    httplib::Request req;
    req.method = "POST";
    req.path = "/echo";
    req.headers.emplace("Idempotency-Key", "key-" + std::to_string(i));
    httplib::Response res;
    serve(req, res);
    ASSERT_EQ(res.status, 200);
    if (i % 1000 == 999) {
      peak = std::max(peak, ResidentBytes());
      if (kCheckResidentSize) {
        ASSERT_LT(peak - before, kStoreBound + kMargin) << "after " << i + 1 << " keys";
      }
    }
  }
  const IdempotencyStats s = store->stats();
  EXPECT_LE(s.bytes, kStoreBound);
  EXPECT_GT(s.evicted, static_cast<std::uint64_t>(kKeys - 1000));
  EXPECT_EQ(s.first, static_cast<std::uint64_t>(kKeys));
}

TEST(MemoryBoundTest, KeysOverRealHttpStayUnderTheStoresByteBound) {
  auto store = BoundedStore();
  testkit::TestServer srv;
  auto mw = MiddlewareWith(store.get());
  srv.server.Post("/echo", mw->Wrap(Answer64Kb));
  srv.Start();
  httplib::Client cli = srv.Client();
  const std::size_t before = ResidentBytes();
  for (int i = 0; i < 2'000; ++i) {
    auto res = cli.Post("/echo", {{"Idempotency-Key", "key-" + std::to_string(i)}}, "{}", "application/json");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200);
    if (i % 100 == 99) {
      const std::size_t now = ResidentBytes();
      if (kCheckResidentSize) {
        ASSERT_LT(now - std::min(now, before), kStoreBound + kMargin) << "after " << i + 1 << " keys";
      }
    }
  }
  EXPECT_LE(store->stats().bytes, kStoreBound);
  EXPECT_GT(store->stats().evicted, 0u);
}

TEST(MemoryBoundTest, AnEndlessBodyEndsAtTheClientsLimitQuickly) {
  testkit::TestServer srv;
  srv.server.Get("/endless", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("text/plain", [](std::size_t, httplib::DataSink& sink) {
      // "Endless" for the client: 128 MB, far past its limit; stops early
      // when the client hangs up.
      for (int i = 0; i < 2048; ++i) {
        if (!sink.write(kAnswer.data(), kAnswer.size())) return false;
      }
      sink.done();
      return true;
    });
  });
  srv.Start();
  constexpr std::size_t kLimit = 8 * kMiB;
  auto client =
      HttpClient::Create({.default_timeout = 10s, .pipeline = testkit::RetryPipeline({}), .max_response_bytes = kLimit})
          .value();
  const std::size_t before = ResidentBytes();
  const auto start = std::chrono::steady_clock::now();
  HttpResult r = client.Send({.url = srv.Url("/endless")});
  const auto took = std::chrono::steady_clock::now() - start;
  const std::size_t after = ResidentBytes();
  EXPECT_EQ(r.status.code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(r.status.message(), ::testing::HasSubstr("max_response_bytes (8388608 bytes)"));
  EXPECT_EQ(r.attempts, 1);
  EXPECT_LT(took, 5s);  // the limit, not the 10 s deadline
  if (kCheckResidentSize) {
    EXPECT_LT(after - std::min(after, before), kLimit + kMargin);
  }
}

}  // namespace
}  // namespace stormguard::http
