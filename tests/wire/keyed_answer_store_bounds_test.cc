// The keyed answer store's bounds: a done entry lives `ttl` from its
// completion, the count and byte bounds evict the oldest completion first,
// every byte of an answer is paid for, and a running entry is never dropped.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>

#include "stormguard/wire/keyed_answer_store.h"
#include "wire/keyed_answer_store_test_util.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using namespace testkit;  // kT0, kRequest, Pay, Answer

std::unique_ptr<KeyedAnswerStore> Store(std::size_t entries, Duration ttl, std::size_t bytes = std::size_t{64} << 20) {
  return KeyedAnswerStore::Create({.max_entries = entries, .max_bytes = bytes, .ttl = ttl}).value();
}

void RunAndComplete(KeyedAnswerStore& store, std::string_view key, TimePoint at, std::string body = "x") {
  ASSERT_EQ(store.Begin(Pay(key), kRequest, at).state, AnswerClaim::kFirst) << key;
  store.Complete(Pay(key), Answer(std::move(body)), at);
}

TEST(KeyedAnswerStoreBoundsTest, ADoneEntryLivesItsTtlFromItsCompletion) {
  auto store = Store(10, 10s);
  ASSERT_EQ(store->Begin(Pay("k"), kRequest, kT0).state, AnswerClaim::kFirst);
  store->Complete(Pay("k"), Answer("x"), kT0 + 5s);  // ran 5 s: its TTL starts here
  EXPECT_EQ(store->Begin(Pay("k"), kRequest, kT0 + 15s - 1ns).state, AnswerClaim::kDone);
  EXPECT_EQ(store->stats().expired, 0u);
  EXPECT_EQ(store->Begin(Pay("k"), kRequest, kT0 + 15s).state, AnswerClaim::kFirst);
  EXPECT_EQ(store->stats().expired, 1u);
}

TEST(KeyedAnswerStoreBoundsTest, ExpiryStopsAtTheFirstEntryStillAlive) {
  auto store = Store(10, 10s);
  RunAndComplete(*store, "old", kT0);
  RunAndComplete(*store, "young", kT0 + 5s);
  EXPECT_EQ(store->Begin(Pay("other"), kRequest, kT0 + 10s).state, AnswerClaim::kFirst);
  EXPECT_EQ(store->stats().expired, 1u);
  EXPECT_EQ(store->stats().entries, 2u);  // young and other
  EXPECT_EQ(store->Begin(Pay("young"), kRequest, kT0 + 10s).state, AnswerClaim::kDone);
  EXPECT_EQ(store->Begin(Pay("old"), kRequest, kT0 + 10s).state, AnswerClaim::kFirst);
}

TEST(KeyedAnswerStoreBoundsTest, ARunningEntryNeverExpires) {
  auto store = Store(10, 10s);
  ASSERT_EQ(store->Begin(Pay("k"), kRequest, kT0).state, AnswerClaim::kFirst);
  EXPECT_EQ(store->Begin(Pay("k"), kRequest, kT0 + 1000h).state, AnswerClaim::kRunning);
  EXPECT_EQ(store->stats().expired, 0u);
}

TEST(KeyedAnswerStoreBoundsTest, TheCountBoundEvictsTheOldestCompletionFirst) {
  auto store = Store(2, 1h);
  // Begun a, b; completed b, a: b completed first, so b goes first.
  ASSERT_EQ(store->Begin(Pay("a"), kRequest, kT0).state, AnswerClaim::kFirst);
  ASSERT_EQ(store->Begin(Pay("b"), kRequest, kT0).state, AnswerClaim::kFirst);
  store->Complete(Pay("b"), Answer("b"), kT0);
  store->Complete(Pay("a"), Answer("a"), kT0);
  RunAndComplete(*store, "c", kT0);
  const IdempotencyStats s = store->stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.evicted, 1u);
  EXPECT_EQ(s.expired, 0u);
  EXPECT_EQ(store->Begin(Pay("a"), kRequest, kT0).state, AnswerClaim::kDone);
  EXPECT_EQ(store->Begin(Pay("c"), kRequest, kT0).state, AnswerClaim::kDone);
  EXPECT_EQ(store->Begin(Pay("b"), kRequest, kT0).state, AnswerClaim::kFirst);  // evicted
}

TEST(KeyedAnswerStoreBoundsTest, RunningEntriesAreNeverEvicted) {
  auto store = Store(1, 1h);
  ASSERT_EQ(store->Begin(Pay("running"), kRequest, kT0).state, AnswerClaim::kFirst);
  ASSERT_EQ(store->Begin(Pay("other"), kRequest, kT0).state, AnswerClaim::kFirst);
  EXPECT_EQ(store->stats().entries, 2u);  // past the bound: one per request in flight
  EXPECT_EQ(store->Begin(Pay("running"), kRequest, kT0).state, AnswerClaim::kRunning);
  EXPECT_EQ(store->stats().evicted, 0u);
  // Once one completes the bound holds again, at the completed one's cost.
  store->Complete(Pay("other"), Answer("x"), kT0);
  EXPECT_EQ(store->stats().entries, 1u);
  EXPECT_EQ(store->stats().evicted, 1u);
  EXPECT_EQ(store->Begin(Pay("running"), kRequest, kT0).state, AnswerClaim::kRunning);
}

TEST(KeyedAnswerStoreBoundsTest, EveryPartOfAnAnswerIsPaidFor) {
  auto store = Store(10, 1h);
  ASSERT_EQ(store->Begin(Pay("k"), kRequest, kT0).state, AnswerClaim::kFirst);
  const std::size_t running = store->stats().bytes;
  EXPECT_GT(running, std::string_view("0:4:POST4:/payk").size());  // the scope, and the bookkeeping
  store->Complete(
      Pay("k"),
      {.code = 0, .message = std::string(100, 'm'), .headers = {{"ab", "cde"}}, .body = std::string(1000, 'b')}, kT0);
  EXPECT_EQ(store->stats().bytes, running + 100 + 1000 + sizeof(std::pair<std::string, std::string>) + 5);
}

TEST(KeyedAnswerStoreBoundsTest, TheByteBoundEvictsTheOldestFirstAndGivesEveryByteBack) {
  auto store = Store(1000, 1h, 4000);  // room for two 1500-byte answers, not three
  const std::string body(1500, 'x');
  RunAndComplete(*store, "a", kT0, body);
  RunAndComplete(*store, "b", kT0, body);
  const std::size_t two = store->stats().bytes;
  RunAndComplete(*store, "c", kT0, body);
  IdempotencyStats s = store->stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.evicted, 1u);
  EXPECT_EQ(s.bytes, two);  // "a" gave back exactly what "c" costs
  EXPECT_LE(s.bytes, 4000u);
  EXPECT_EQ(store->Begin(Pay("a"), kRequest, kT0).state, AnswerClaim::kFirst);
  EXPECT_EQ(store->Begin(Pay("b"), kRequest, kT0).state, AnswerClaim::kDone);
  store->Abandon(Pay("a"));
  EXPECT_EQ(store->stats().bytes, two);
}

TEST(KeyedAnswerStoreBoundsTest, AnAnswerLargerThanTheWholeBoundIsNotKept) {
  auto store = Store(1000, 1h, 4000);
  RunAndComplete(*store, "small", kT0);
  RunAndComplete(*store, "big", kT0, std::string(5000, 'x'));
  const IdempotencyStats s = store->stats();
  EXPECT_EQ(s.entries, 0u);  // "small" went first, then "big" itself
  EXPECT_EQ(s.bytes, 0u);
  EXPECT_EQ(s.evicted, 2u);
  EXPECT_EQ(store->Begin(Pay("big"), kRequest, kT0).state, AnswerClaim::kFirst);  // may run again
}

TEST(KeyedAnswerStoreBoundsTest, ExpiryAndEvictionGiveEveryByteBack) {
  auto store = Store(1, 10s);
  const std::size_t empty = store->stats().bytes;
  RunAndComplete(*store, "a", kT0, std::string(300, 'x'));
  ASSERT_EQ(store->Begin(Pay("b"), kRequest, kT0).state, AnswerClaim::kFirst);
  EXPECT_EQ(store->stats().evicted, 1u);  // a, as b began: the bound holds while b runs
  EXPECT_EQ(store->stats().entries, 1u);
  store->Complete(Pay("b"), Answer(std::string(300, 'x')), kT0);
  ASSERT_EQ(store->Begin(Pay("c"), kRequest, kT0 + 10s).state, AnswerClaim::kFirst);  // expires b
  store->Abandon(Pay("c"));
  const IdempotencyStats s = store->stats();
  EXPECT_EQ(s.evicted, 1u);
  EXPECT_EQ(s.expired, 1u);
  EXPECT_EQ(s.entries, 0u);
  EXPECT_EQ(s.bytes, empty);
}

}  // namespace
}  // namespace stormguard
