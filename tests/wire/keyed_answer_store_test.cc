// The transport-neutral engine: what it records comes back whole, and every
// part of it is paid for in the byte bound. (Begin/Complete/Abandon, the
// bounds, the TTL and waiting are covered through the HTTP store's tests.)
#include "stormguard/wire/keyed_answer_store.h"

#include <gtest/gtest.h>

#include <chrono>

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

}  // namespace
}  // namespace stormguard
