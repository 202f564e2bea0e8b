#include "stormguard/http/idempotency_store.h"

#include <gtest/gtest.h>

#include <thread>

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;

const TimePoint kT0 = TimePoint(1h);

std::unique_ptr<IdempotencyStore> Make(std::size_t entries, Duration ttl) {
  auto s = IdempotencyStore::Create({.max_entries = entries, .ttl = ttl});
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

HttpResponse Answer(int status, std::string body) { return {.status = status, .body = std::move(body)}; }

TEST(IdempotencyStoreTest, FirstRunsThenRepeatsReplayTheStoredAnswer) {
  auto store = Make(10, 1h);
  EXPECT_EQ(store->Begin("k", kT0).state, IdempotencyClaim::kFirst);
  EXPECT_EQ(store->Begin("k", kT0).state, IdempotencyClaim::kRunning);
  store->Complete("k", Answer(201, "charged"), kT0);
  IdempotencyClaim again = store->Begin("k", kT0 + 1s);
  ASSERT_EQ(again.state, IdempotencyClaim::kDone);
  EXPECT_EQ(again.response->body, "charged");
  IdempotencyStats s = store->stats();
  EXPECT_EQ(s.first, 1u);
  EXPECT_EQ(s.concurrent, 1u);
  EXPECT_EQ(s.replayed, 1u);
}

TEST(IdempotencyStoreTest, AbandonedKeyRunsAgain) {
  auto store = Make(10, 1h);
  store->Begin("k", kT0);
  store->Abandon("k");
  EXPECT_EQ(store->Begin("k", kT0).state, IdempotencyClaim::kFirst);
}

TEST(IdempotencyStoreTest, EntriesExpireAfterTheirTtl) {
  auto store = Make(10, 10s);
  store->Begin("k", kT0);
  store->Complete("k", Answer(200, "x"), kT0);
  EXPECT_EQ(store->Begin("k", kT0 + 9s).state, IdempotencyClaim::kDone);
  EXPECT_EQ(store->Begin("k", kT0 + 10s).state, IdempotencyClaim::kFirst);
  EXPECT_EQ(store->stats().expired, 1u);
}

TEST(IdempotencyStoreTest, SizeBoundEvictsOldestCompletedAndCountsIt) {
  auto store = Make(2, 1h);
  for (const char* k : {"a", "b", "c"}) {
    store->Begin(k, kT0);
    store->Complete(k, Answer(200, k), kT0);
  }
  IdempotencyStats s = store->stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.evicted, 1u);
  EXPECT_EQ(store->Begin("a", kT0).state, IdempotencyClaim::kFirst);  // "a" was evicted
  EXPECT_EQ(store->Begin("c", kT0).state, IdempotencyClaim::kDone);
}

TEST(IdempotencyStoreTest, RunningEntriesAreNeverEvicted) {
  auto store = Make(1, 1h);
  store->Begin("running", kT0);
  store->Begin("other", kT0);
  EXPECT_EQ(store->Begin("running", kT0).state, IdempotencyClaim::kRunning);
}

TEST(IdempotencyStoreTest, AwaitCompletionReturnsTheAnswerOfTheFirstRequest) {
  auto store = Make(10, 1h);
  store->Begin("k", kT0);
  std::thread first([&] { store->Complete("k", Answer(201, "done"), kT0); });
  std::optional<HttpResponse> r = store->AwaitCompletion("k", 10s);
  first.join();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->body, "done");
}

TEST(IdempotencyStoreTest, ValidateNamesBadFields) {
  auto s = IdempotencyStore::Create({.max_entries = 0, .ttl = 0s});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("max_entries: must be at least 1"), std::string::npos);
  EXPECT_NE(s.status().message().find("ttl: must be positive"), std::string::npos);
}

}  // namespace
}  // namespace stormguard::http
