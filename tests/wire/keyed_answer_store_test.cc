// The transport-neutral engine: what it records comes back whole, and a
// repeat that waits for its first, blocking or watching, is told exactly
// once. (Claims: keyed_answer_store_claim_test.cc; bounds and TTL:
// keyed_answer_store_bounds_test.cc.)
#include "stormguard/wire/keyed_answer_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "testkit/wait_until.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;

const TimePoint kT0 = TimePoint(1h);
const IdempotencyScope kScope{"", "demo.PayRequest", "demo.PayReply", "order-1"};

TEST(KeyedAnswerStoreTest, ReplaysTheCodeMessageHeadersAndBody) {
  auto store = KeyedAnswerStore::Create({}).value();
  ASSERT_EQ(store->Begin(kScope, 7, kT0).state, AnswerClaim::kFirst);
  store->Complete(kScope,
                  {.code = 9, .message = "insufficient funds", .headers = {{"a", "b"}}, .body = std::string("\0x", 2)},
                  kT0);
  AnswerClaim again = store->Begin(kScope, 7, kT0);
  ASSERT_EQ(again.state, AnswerClaim::kDone);
  EXPECT_EQ(again.answer->code, 9);
  EXPECT_EQ(again.answer->message, "insufficient funds");
  ASSERT_EQ(again.answer->headers.size(), 1u);
  EXPECT_EQ(again.answer->headers[0].second, "b");
  EXPECT_EQ(again.answer->body, std::string("\0x", 2));
}

TEST(KeyedAnswerStoreTest, AnAnswerWhoseMessageAloneExceedsTheByteBoundIsNotKept) {
  auto store = KeyedAnswerStore::Create({.max_bytes = 4096}).value();
  ASSERT_EQ(store->Begin(kScope, 7, kT0).state, AnswerClaim::kFirst);
  store->Complete(kScope, {.code = 0, .message = std::string(8192, 'm'), .headers = {}, .body = {}}, kT0);
  EXPECT_EQ(store->stats().entries, 0u);
  EXPECT_EQ(store->stats().evicted, 1u);
  EXPECT_EQ(store->Begin(kScope, 7, kT0).state, AnswerClaim::kFirst);  // may run again
}

// Records what a watch was told, and how often.
struct Seen {
  int calls = 0;
  std::optional<RecordedAnswer> answer;
  CompletionWatcher Watcher() {
    return [this](std::optional<RecordedAnswer> a) {
      ++calls;
      answer = std::move(a);
    };
  }
};

class KeyedAnswerStoreWaitTest : public ::testing::Test {
 protected:
  // The first request with fingerprint 7 (the repeats' own) runs.
  void SetUp() override { ASSERT_EQ(store->Begin(kScope, 7, kT0).state, AnswerClaim::kFirst); }
  void Answer(std::string body) {
    store->Complete(kScope, {.code = 0, .message = {}, .headers = {}, .body = std::move(body)}, kT0);
  }

  std::unique_ptr<KeyedAnswerStore> store = KeyedAnswerStore::Create({}).value();
  Seen seen;
};

TEST_F(KeyedAnswerStoreWaitTest, ARunningKeysWatchIsToldItsAnswerOnceWhenItCompletes) {
  EXPECT_NE(store->Watch(kScope, 7, seen.Watcher()), 0u);
  EXPECT_EQ(seen.calls, 0);
  EXPECT_EQ(store->stats().waiting, 1u);
  Answer("charge 1");
  ASSERT_EQ(seen.calls, 1);
  ASSERT_TRUE(seen.answer.has_value());
  EXPECT_EQ(seen.answer->body, "charge 1");
  EXPECT_EQ(store->stats().waiting, 0u);
  Answer("charge 2");  // ignored: done
  EXPECT_EQ(seen.calls, 1);
}

TEST_F(KeyedAnswerStoreWaitTest, AnAbandonedKeysWatchIsToldNothingCameOfIt) {
  store->Watch(kScope, 7, seen.Watcher());
  store->Abandon(kScope);
  EXPECT_EQ(seen.calls, 1);
  EXPECT_FALSE(seen.answer.has_value());
  EXPECT_EQ(store->stats().waiting, 0u);
}

TEST_F(KeyedAnswerStoreWaitTest, AKeyThatIsNotRunningIsAnsweredAtOnce) {
  const IdempotencyScope unknown{"", "demo.PayRequest", "demo.PayReply", "order-2"};
  EXPECT_EQ(store->Watch(unknown, 7, seen.Watcher()), 0u);
  EXPECT_EQ(seen.calls, 1);
  EXPECT_FALSE(seen.answer.has_value());

  Answer("charge 1");
  Seen done;
  EXPECT_EQ(store->Watch(kScope, 7, done.Watcher()), 0u);
  ASSERT_EQ(done.calls, 1);
  EXPECT_EQ(done.answer->body, "charge 1");
  EXPECT_EQ(store->stats().waiting, 0u);
}

TEST_F(KeyedAnswerStoreWaitTest, AKeyReusedForAnotherRequestNeverAnswersTheWatch) {
  // The repeat's first was abandoned and the key reused with another body
  // (fingerprint 8) before the repeat watched: its answer is not the repeat's.
  store->Abandon(kScope);
  ASSERT_EQ(store->Begin(kScope, 8, kT0).state, AnswerClaim::kFirst);
  EXPECT_EQ(store->Watch(kScope, 7, seen.Watcher()), 0u);
  EXPECT_EQ(seen.calls, 1);
  EXPECT_FALSE(seen.answer.has_value());
  Answer("other");
  EXPECT_EQ(seen.calls, 1);
}

TEST_F(KeyedAnswerStoreWaitTest, AWithdrawnWatchIsNeverTold) {
  Seen withdrawn;
  const std::uint64_t a = store->Watch(kScope, 7, seen.Watcher());
  const std::uint64_t b = store->Watch(kScope, 7, withdrawn.Watcher());
  EXPECT_TRUE(store->Unwatch(kScope, b));
  EXPECT_FALSE(store->Unwatch(kScope, b));  // once
  EXPECT_EQ(store->stats().waiting, 1u);
  Answer("charge 1");
  EXPECT_EQ(seen.calls, 1);
  EXPECT_EQ(withdrawn.calls, 0);
  EXPECT_FALSE(store->Unwatch(kScope, a));  // already told
  EXPECT_FALSE(store->Unwatch(kScope, 0));
}

TEST_F(KeyedAnswerStoreWaitTest, CompletionRacingAWithdrawalTellsTheWatchExactlyWhenNotWithdrawn) {
  // The waiter's deadline (Unwatch) against the first's answer (Complete),
  // from two threads: each round, either the watch is told or it was
  // withdrawn, never both and never neither.
  constexpr int kRounds = 2000;
  int told_or_withdrawn_once = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string key = "race-" + std::to_string(round);
    const IdempotencyScope scope{"", "demo.PayRequest", "demo.PayReply", key};
    ASSERT_EQ(store->Begin(scope, 7, kT0).state, AnswerClaim::kFirst);
    std::atomic<int> told{0};
    const std::uint64_t ticket = store->Watch(scope, 7, [&told](std::optional<RecordedAnswer>) { ++told; });
    std::thread first([&] { store->Complete(scope, {.code = 0, .message = {}, .headers = {}, .body = {}}, kT0); });
    const bool withdrawn = store->Unwatch(scope, ticket);
    first.join();
    if (told.load() + (withdrawn ? 1 : 0) == 1) ++told_or_withdrawn_once;
  }
  EXPECT_EQ(told_or_withdrawn_once, kRounds);
  EXPECT_EQ(store->stats().waiting, 0u);
}

TEST_F(KeyedAnswerStoreWaitTest, AwaitingADoneKeyAnswersAtOnce) {
  Answer("charge 1");
  const std::optional<RecordedAnswer> done = store->AwaitCompletion(kScope, Duration::zero());
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->body, "charge 1");
}

TEST_F(KeyedAnswerStoreWaitTest, AwaitingARunningKeyEndsWithItsWait) {
  EXPECT_FALSE(store->AwaitCompletion(kScope, Duration::zero()).has_value());
  EXPECT_FALSE(store->AwaitCompletion(kScope, 1ns).has_value());
  EXPECT_EQ(store->stats().waiting, 0u);
  EXPECT_EQ(store->Begin(kScope, 7, kT0).state, AnswerClaim::kRunning);  // still the first's
}

TEST_F(KeyedAnswerStoreWaitTest, AwaitingAnAbandonedOrUnknownKeyReturnsAtOnce) {
  store->Abandon(kScope);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(store->AwaitCompletion(kScope, 10s).has_value());
  EXPECT_FALSE(store->AwaitCompletion({"", "demo.PayRequest", "demo.PayReply", "order-2"}, 10s).has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);  // not the 10 s waits
}

TEST_F(KeyedAnswerStoreWaitTest, TheFirstsAnswerOrAbandonWakesAWaiter) {
  for (const bool answered : {true, false}) {
    const std::string key = answered ? "answered" : "abandoned";
    const IdempotencyScope scope{"", "demo.PayRequest", "demo.PayReply", key};
    ASSERT_EQ(store->Begin(scope, 7, kT0).state, AnswerClaim::kFirst);
    std::thread first([&] {
      // Only once the waiter is parked, so it must be woken (bounded spin).
      EXPECT_TRUE(testkit::WaitUntil([&] { return store->stats().waiting > 0; }, "the repeat's wait"));
      if (answered) {
        store->Complete(scope, {.code = 0, .message = {}, .headers = {}, .body = "done"}, kT0);
      } else {
        store->Abandon(scope);
      }
    });
    const auto start = std::chrono::steady_clock::now();
    const std::optional<RecordedAnswer> done = store->AwaitCompletion(scope, 10s);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << key;  // not the 10 s wait
    first.join();
    EXPECT_EQ(done.has_value(), answered) << key;
    EXPECT_EQ(done.value_or(RecordedAnswer{}).body, answered ? "done" : "");
    EXPECT_EQ(store->stats().waiting, 0u);
  }
}

}  // namespace
}  // namespace stormguard
