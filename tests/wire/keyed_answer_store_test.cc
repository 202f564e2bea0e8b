// The transport-neutral engine: what it records comes back whole, every
// part of it is paid for in the byte bound, and a watch is told exactly
// once. (Begin/Complete/Abandon, the bounds, the TTL and blocking waits are
// covered through the HTTP store's tests.)
#include "stormguard/wire/keyed_answer_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

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

TEST(KeyedAnswerStoreWatchTest, ARunningKeysWatchIsToldItsAnswerOnceWhenItCompletes) {
  auto store = KeyedAnswerStore::Create({}).value();
  ASSERT_EQ(store->Begin(kScope, 7, kT0).state, AnswerClaim::kFirst);
  Seen seen;
  EXPECT_NE(store->Watch(kScope, 7, seen.Watcher()), 0u);
  EXPECT_EQ(seen.calls, 0);
  EXPECT_EQ(store->stats().waiting, 1u);
  store->Complete(kScope, {.code = 0, .message = {}, .headers = {}, .body = "charge 1"}, kT0);
  ASSERT_EQ(seen.calls, 1);
  ASSERT_TRUE(seen.answer.has_value());
  EXPECT_EQ(seen.answer->body, "charge 1");
  EXPECT_EQ(store->stats().waiting, 0u);
  store->Complete(kScope, {.code = 5, .message = {}, .headers = {}, .body = {}}, kT0);  // ignored: done
  EXPECT_EQ(seen.calls, 1);
}

TEST(KeyedAnswerStoreWatchTest, AnAbandonedKeysWatchIsToldNothingCameOfIt) {
  auto store = KeyedAnswerStore::Create({}).value();
  ASSERT_EQ(store->Begin(kScope, 7, kT0).state, AnswerClaim::kFirst);
  Seen seen;
  store->Watch(kScope, 7, seen.Watcher());
  store->Abandon(kScope);
  EXPECT_EQ(seen.calls, 1);
  EXPECT_FALSE(seen.answer.has_value());
  EXPECT_EQ(store->stats().waiting, 0u);
}

TEST(KeyedAnswerStoreWatchTest, AKeyThatIsNotRunningIsAnsweredAtOnce) {
  auto store = KeyedAnswerStore::Create({}).value();
  Seen unknown;
  EXPECT_EQ(store->Watch(kScope, 7, unknown.Watcher()), 0u);
  EXPECT_EQ(unknown.calls, 1);
  EXPECT_FALSE(unknown.answer.has_value());

  ASSERT_EQ(store->Begin(kScope, 7, kT0).state, AnswerClaim::kFirst);
  store->Complete(kScope, {.code = 0, .message = {}, .headers = {}, .body = "charge 1"}, kT0);
  Seen done;
  EXPECT_EQ(store->Watch(kScope, 7, done.Watcher()), 0u);
  ASSERT_EQ(done.calls, 1);
  EXPECT_EQ(done.answer->body, "charge 1");
  EXPECT_EQ(store->stats().waiting, 0u);
}

TEST(KeyedAnswerStoreWatchTest, AKeyReusedForAnotherRequestNeverAnswersTheWatch) {
  // The first was abandoned and the key reused with another body before the
  // repeat watched: that request's answer is not the repeat's.
  auto store = KeyedAnswerStore::Create({}).value();
  ASSERT_EQ(store->Begin(kScope, 8, kT0).state, AnswerClaim::kFirst);
  Seen seen;
  EXPECT_EQ(store->Watch(kScope, 7, seen.Watcher()), 0u);
  EXPECT_EQ(seen.calls, 1);
  EXPECT_FALSE(seen.answer.has_value());
  store->Complete(kScope, {.code = 0, .message = {}, .headers = {}, .body = "other"}, kT0);
  EXPECT_EQ(seen.calls, 1);
}

TEST(KeyedAnswerStoreWatchTest, AWithdrawnWatchIsNeverTold) {
  auto store = KeyedAnswerStore::Create({}).value();
  ASSERT_EQ(store->Begin(kScope, 7, kT0).state, AnswerClaim::kFirst);
  Seen kept, withdrawn;
  const std::uint64_t a = store->Watch(kScope, 7, kept.Watcher());
  const std::uint64_t b = store->Watch(kScope, 7, withdrawn.Watcher());
  EXPECT_TRUE(store->Unwatch(kScope, b));
  EXPECT_FALSE(store->Unwatch(kScope, b));  // once
  EXPECT_EQ(store->stats().waiting, 1u);
  store->Complete(kScope, {.code = 0, .message = {}, .headers = {}, .body = {}}, kT0);
  EXPECT_EQ(kept.calls, 1);
  EXPECT_EQ(withdrawn.calls, 0);
  EXPECT_FALSE(store->Unwatch(kScope, a));  // already told
  EXPECT_FALSE(store->Unwatch(kScope, 0));
}

TEST(KeyedAnswerStoreWatchTest, CompletionRacingAWithdrawalTellsTheWatchExactlyWhenNotWithdrawn) {
  // The waiter's deadline (Unwatch) against the first's answer (Complete),
  // from two threads: each round, either the watch is told or it was
  // withdrawn, never both and never neither.
  auto store = KeyedAnswerStore::Create({}).value();
  constexpr int kRounds = 2000;
  int told_or_withdrawn_once = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string key = "order-" + std::to_string(round);
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

}  // namespace
}  // namespace stormguard
