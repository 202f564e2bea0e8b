// The HTTP face of the keyed answer store: HttpResponses recorded and
// replayed whole, each claim state passed through. (The engine's claims,
// bounds, TTL and waits: tests/wire/keyed_answer_store*_test.cc.)
#include "stormguard/http/idempotency_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;

const TimePoint kT0 = TimePoint(1h);
constexpr std::uint64_t kBody = 7;  // a fingerprint

std::unique_ptr<IdempotencyStore> Make() {
  auto s = IdempotencyStore::Create({.max_entries = 10, .ttl = 1h});
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

IdempotencyScope Pay(std::string_view key) { return {"", "POST", "/pay", key}; }

TEST(IdempotencyStoreTest, EachClaimStatePassesThroughAndRepeatsReplayTheWholeResponse) {
  auto store = Make();
  EXPECT_EQ(store->Begin(Pay("k"), kBody, kT0).state, IdempotencyClaim::kFirst);
  EXPECT_EQ(store->Begin(Pay("k"), kBody, kT0).state, IdempotencyClaim::kRunning);
  EXPECT_EQ(store->Begin(Pay("k"), kBody + 1, kT0).state, IdempotencyClaim::kMismatch);
  store->Complete(Pay("k"), {.status = 201, .headers = {{"location", "/pay/1"}}, .body = "charged"}, kT0);
  IdempotencyClaim again = store->Begin(Pay("k"), kBody, kT0 + 1s);
  ASSERT_EQ(again.state, IdempotencyClaim::kDone);
  EXPECT_EQ(again.response->status, 201);
  EXPECT_EQ(again.response->Header("location"), "/pay/1");
  EXPECT_EQ(again.response->body, "charged");
  EXPECT_FALSE(store->Begin(Pay("k"), kBody + 1, kT0).response.has_value());
  store->Abandon(Pay("k"));  // done: kept
  EXPECT_EQ(store->stats().entries, 1u);
}

TEST(IdempotencyStoreTest, AwaitCompletionReturnsTheResponseOfTheFirstRequest) {
  auto store = Make();
  store->Begin(Pay("k"), kBody, kT0);
  std::thread first([&] { store->Complete(Pay("k"), {.status = 201, .body = "done"}, kT0); });
  std::optional<HttpResponse> r = store->AwaitCompletion(Pay("k"), 10s);
  first.join();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 201);
  EXPECT_EQ(r->body, "done");
  store->Begin(Pay("gone"), kBody, kT0);
  store->Abandon(Pay("gone"));
  EXPECT_FALSE(store->AwaitCompletion(Pay("gone"), 0s).has_value());
}

TEST(IdempotencyStoreTest, CreateRefusesTheEnginesBadOptions) {
  auto s = IdempotencyStore::Create({.max_entries = 0});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("max_entries: must be at least 1"), std::string::npos);
}

}  // namespace
}  // namespace stormguard::http
