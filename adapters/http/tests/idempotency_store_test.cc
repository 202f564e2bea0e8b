#include "stormguard/http/idempotency_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;

const TimePoint kT0 = TimePoint(1h);
constexpr std::uint64_t kBody = 7;  // a fingerprint

std::unique_ptr<IdempotencyStore> Make(std::size_t entries, Duration ttl,
                                       std::size_t bytes = std::size_t{64} << 20) {
  auto s = IdempotencyStore::Create({.max_entries = entries, .max_bytes = bytes, .ttl = ttl});
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

IdempotencyScope Pay(std::string_view key) { return {"", "POST", "/pay", key}; }

HttpResponse Answer(int status, std::string body) { return {.status = status, .body = std::move(body)}; }

TEST(IdempotencyStoreTest, FirstRunsThenRepeatsReplayTheStoredAnswer) {
  auto store = Make(10, 1h);
  EXPECT_EQ(store->Begin(Pay("k"), kBody, kT0).state, IdempotencyClaim::kFirst);
  EXPECT_EQ(store->Begin(Pay("k"), kBody, kT0).state, IdempotencyClaim::kRunning);
  store->Complete(Pay("k"), Answer(201, "charged"), kT0);
  IdempotencyClaim again = store->Begin(Pay("k"), kBody, kT0 + 1s);
  ASSERT_EQ(again.state, IdempotencyClaim::kDone);
  EXPECT_EQ(again.response->body, "charged");
  IdempotencyStats s = store->stats();
  EXPECT_EQ(s.first, 1u);
  EXPECT_EQ(s.concurrent, 1u);
  EXPECT_EQ(s.replayed, 1u);
}

TEST(IdempotencyStoreTest, AKeyIsScopedByCallerMethodAndPath) {
  auto store = Make(10, 1h);
  store->Begin(Pay("k"), kBody, kT0);
  store->Complete(Pay("k"), Answer(201, "charged"), kT0);
  for (const IdempotencyScope& other :
       {IdempotencyScope{"", "PUT", "/pay", "k"}, IdempotencyScope{"", "POST", "/refund", "k"},
        IdempotencyScope{"alice", "POST", "/pay", "k"},
        // Length prefixes keep parts apart: this is not ("", "POST", "/pay", "k").
        IdempotencyScope{"", "POST", "/pa", "yk"}}) {
    EXPECT_EQ(store->Begin(other, kBody, kT0).state, IdempotencyClaim::kFirst)
        << other.caller << " " << other.method << " " << other.path << " " << other.key;
  }
}

TEST(IdempotencyStoreTest, AKeyReusedWithAnotherBodyIsAMismatch) {
  auto store = Make(10, 1h);
  store->Begin(Pay("k"), BodyFingerprint("{\"amount\": 5}"), kT0);
  EXPECT_EQ(store->Begin(Pay("k"), BodyFingerprint("{\"amount\": 9}"), kT0).state,
            IdempotencyClaim::kMismatch);  // while the first runs
  store->Complete(Pay("k"), Answer(201, "charged 5"), kT0);
  IdempotencyClaim late = store->Begin(Pay("k"), BodyFingerprint("{\"amount\": 9}"), kT0);
  EXPECT_EQ(late.state, IdempotencyClaim::kMismatch);
  EXPECT_FALSE(late.response.has_value());
  EXPECT_EQ(store->stats().mismatched, 2u);
}

TEST(IdempotencyStoreTest, BodyFingerprintIsFnv1a64) {
  EXPECT_EQ(BodyFingerprint(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(BodyFingerprint("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(BodyFingerprint("foobar"), 0x85944171f73967e8ULL);
}

TEST(IdempotencyStoreTest, AbandonedKeyRunsAgain) {
  auto store = Make(10, 1h);
  store->Begin(Pay("k"), kBody, kT0);
  store->Abandon(Pay("k"));
  EXPECT_EQ(store->Begin(Pay("k"), kBody, kT0).state, IdempotencyClaim::kFirst);
}

TEST(IdempotencyStoreTest, EntriesExpireAfterTheirTtl) {
  auto store = Make(10, 10s);
  store->Begin(Pay("k"), kBody, kT0);
  store->Complete(Pay("k"), Answer(200, "x"), kT0);
  EXPECT_EQ(store->Begin(Pay("k"), kBody, kT0 + 9s).state, IdempotencyClaim::kDone);
  EXPECT_EQ(store->Begin(Pay("k"), kBody, kT0 + 10s).state, IdempotencyClaim::kFirst);
  EXPECT_EQ(store->stats().expired, 1u);
}

TEST(IdempotencyStoreTest, SizeBoundEvictsOldestCompletedAndCountsIt) {
  auto store = Make(2, 1h);
  for (const char* k : {"a", "b", "c"}) {
    store->Begin(Pay(k), kBody, kT0);
    store->Complete(Pay(k), Answer(200, k), kT0);
  }
  IdempotencyStats s = store->stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.evicted, 1u);
  EXPECT_EQ(store->Begin(Pay("a"), kBody, kT0).state, IdempotencyClaim::kFirst);  // "a" was evicted
  EXPECT_EQ(store->Begin(Pay("c"), kBody, kT0).state, IdempotencyClaim::kDone);
}

TEST(IdempotencyStoreTest, ByteBoundCountsBodiesAndHeadersAndEvictsOldestFirst) {
  const std::string body(1000, 'x');
  HttpResponse answer = Answer(200, body);
  answer.headers.emplace_back("content-type", std::string(500, 'h'));
  auto store = Make(1000, 1h, 4000);  // room for two answers, not three
  for (const char* k : {"a", "b", "c"}) {
    store->Begin(Pay(k), kBody, kT0);
    store->Complete(Pay(k), answer, kT0);
  }
  IdempotencyStats s = store->stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.evicted, 1u);
  EXPECT_GT(s.bytes, 2 * (body.size() + 500));  // the headers count too
  EXPECT_LE(s.bytes, 4000u);
  EXPECT_EQ(store->Begin(Pay("a"), kBody, kT0).state, IdempotencyClaim::kFirst);
  EXPECT_EQ(store->Begin(Pay("c"), kBody, kT0).state, IdempotencyClaim::kDone);
}

TEST(IdempotencyStoreTest, AnAnswerLargerThanTheWholeBoundIsNotKept) {
  auto store = Make(1000, 1h, 4000);
  store->Begin(Pay("big"), kBody, kT0);
  store->Complete(Pay("big"), Answer(200, std::string(5000, 'x')), kT0);
  IdempotencyStats s = store->stats();
  EXPECT_EQ(s.entries, 0u);
  EXPECT_EQ(s.bytes, 0u);
  EXPECT_EQ(s.evicted, 1u);
}

TEST(IdempotencyStoreTest, RunningEntriesAreNeverEvicted) {
  auto store = Make(1, 1h);
  store->Begin(Pay("running"), kBody, kT0);
  store->Begin(Pay("other"), kBody, kT0);
  EXPECT_EQ(store->Begin(Pay("running"), kBody, kT0).state, IdempotencyClaim::kRunning);
}

TEST(IdempotencyStoreTest, AwaitCompletionReturnsTheAnswerOfTheFirstRequest) {
  auto store = Make(10, 1h);
  store->Begin(Pay("k"), kBody, kT0);
  std::thread first([&] { store->Complete(Pay("k"), Answer(201, "done"), kT0); });
  std::optional<HttpResponse> r = store->AwaitCompletion(Pay("k"), 10s);
  first.join();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->body, "done");
}

TEST(IdempotencyStoreTest, AwaitCompletionReturnsAtOnceForAnAbandonedKey) {
  auto store = Make(10, 1h);
  store->Begin(Pay("k"), kBody, kT0);
  store->Abandon(Pay("k"));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(store->AwaitCompletion(Pay("k"), 10s).has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);  // not the 10 s wait
}

TEST(IdempotencyStoreTest, AbandonWakesAWaiter) {
  auto store = Make(10, 1h);
  store->Begin(Pay("k"), kBody, kT0);
  std::thread first([&] {
    // Abandon only once the waiter is parked, so it must be woken (bounded spin).
    for (int i = 0; i < 10'000'000 && store->stats().waiting == 0; ++i) std::this_thread::yield();
    store->Abandon(Pay("k"));
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(store->AwaitCompletion(Pay("k"), 10s).has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);  // not the 10 s wait
  first.join();
  EXPECT_EQ(store->stats().waiting, 0u);
}

TEST(IdempotencyStoreTest, ValidateNamesBadFields) {
  auto s = IdempotencyStore::Create({.max_entries = 0, .max_bytes = 0, .ttl = 0s});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("max_entries: must be at least 1"), std::string::npos);
  EXPECT_NE(s.status().message().find("max_bytes: must be at least 1"), std::string::npos);
  EXPECT_NE(s.status().message().find("ttl: must be positive"), std::string::npos);
}

}  // namespace
}  // namespace stormguard::http
