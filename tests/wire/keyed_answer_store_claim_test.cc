// The keyed answer store's claims: a key runs once per scope and request,
// a repeat finds it running or done, a reuse with another request is a
// mismatch, and only a running key can be completed or abandoned.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "stormguard/wire/keyed_answer_store.h"
#include "wire/keyed_answer_store_test_util.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using namespace testkit;  // kT0, kRequest, Pay, Answer

std::unique_ptr<KeyedAnswerStore> Store() { return KeyedAnswerStore::Create({.max_entries = 10, .ttl = 1h}).value(); }

TEST(KeyedAnswerStoreClaimTest, FirstRunsARepeatFindsItRunningThenGetsItsAnswer) {
  auto store = Store();
  EXPECT_EQ(store->Begin(Pay("k"), kRequest, kT0).state, AnswerClaim::kFirst);
  const AnswerClaim running = store->Begin(Pay("k"), kRequest, kT0);
  EXPECT_EQ(running.state, AnswerClaim::kRunning);
  EXPECT_FALSE(running.answer.has_value());
  store->Complete(Pay("k"), Answer("charged", 201), kT0);
  const AnswerClaim again = store->Begin(Pay("k"), kRequest, kT0 + 1s);
  ASSERT_EQ(again.state, AnswerClaim::kDone);
  EXPECT_EQ(again.answer->code, 201);
  EXPECT_EQ(again.answer->body, "charged");
  const IdempotencyStats s = store->stats();
  EXPECT_EQ(s.first, 1u);
  EXPECT_EQ(s.concurrent, 1u);
  EXPECT_EQ(s.replayed, 1u);
  EXPECT_EQ(s.mismatched, 0u);
  EXPECT_EQ(s.entries, 1u);
}

TEST(KeyedAnswerStoreClaimTest, AKeyIsScopedByCallerMethodAndPath) {
  auto store = Store();
  store->Begin(Pay("k"), kRequest, kT0);
  store->Complete(Pay("k"), Answer("charged", 201), kT0);
  for (const IdempotencyScope& other :
       {IdempotencyScope{"", "PUT", "/pay", "k"}, IdempotencyScope{"", "POST", "/refund", "k"},
        IdempotencyScope{"alice", "POST", "/pay", "k"}, IdempotencyScope{"", "POST", "/pay", "k2"},
        // Length prefixes keep parts apart: none of these is ("", "POST", "/pay", "k").
        IdempotencyScope{"", "POST", "/pa", "yk"}, IdempotencyScope{"", "POS", "T/pay", "k"},
        IdempotencyScope{"P", "OST", "/pay", "k"}}) {
    EXPECT_EQ(store->Begin(other, kRequest, kT0).state, AnswerClaim::kFirst)
        << other.caller << "|" << other.method << "|" << other.path << "|" << other.key;
  }
  EXPECT_EQ(store->Begin(Pay("k"), kRequest, kT0).state, AnswerClaim::kDone);
}

TEST(KeyedAnswerStoreClaimTest, AKeyReusedWithAnotherRequestIsAMismatchAndKeepsTheFirst) {
  auto store = Store();
  const std::uint64_t five = BodyFingerprint("{\"amount\": 5}");
  const std::uint64_t nine = BodyFingerprint("{\"amount\": 9}");
  store->Begin(Pay("k"), five, kT0);
  EXPECT_EQ(store->Begin(Pay("k"), nine, kT0).state, AnswerClaim::kMismatch);  // while the first runs
  store->Complete(Pay("k"), Answer("charged 5", 201), kT0);
  const AnswerClaim late = store->Begin(Pay("k"), nine, kT0);
  EXPECT_EQ(late.state, AnswerClaim::kMismatch);
  EXPECT_FALSE(late.answer.has_value());
  EXPECT_EQ(store->Begin(Pay("k"), five, kT0).answer->body, "charged 5");  // the first's still
  EXPECT_EQ(store->stats().mismatched, 2u);
  EXPECT_EQ(store->stats().replayed, 1u);
}

TEST(KeyedAnswerStoreClaimTest, BodyFingerprintIsFnv1a64) {
  EXPECT_EQ(BodyFingerprint(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(BodyFingerprint("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(BodyFingerprint("foobar"), 0x85944171f73967e8ULL);
  EXPECT_EQ(BodyFingerprint("\xff"), 0xaf64724c8602eb6eULL);  // bytes are unsigned
}

TEST(KeyedAnswerStoreClaimTest, AnAbandonedKeyRunsAgainAndCostsNothing) {
  auto store = Store();
  const std::size_t empty = store->stats().bytes;
  store->Begin(Pay("k"), kRequest, kT0);
  EXPECT_GT(store->stats().bytes, empty);
  store->Abandon(Pay("k"));
  EXPECT_EQ(store->stats().entries, 0u);
  EXPECT_EQ(store->stats().bytes, empty);
  EXPECT_EQ(store->Begin(Pay("k"), kRequest, kT0).state, AnswerClaim::kFirst);
  EXPECT_EQ(store->stats().first, 2u);
}

TEST(KeyedAnswerStoreClaimTest, OnlyARunningKeyIsAbandonedOrCompleted) {
  auto store = Store();
  store->Begin(Pay("k"), kRequest, kT0);
  store->Complete(Pay("k"), Answer("first", 201), kT0);
  store->Abandon(Pay("k"));                               // done: kept
  store->Complete(Pay("k"), Answer("second", 500), kT0);  // done: the first answer stays
  const AnswerClaim again = store->Begin(Pay("k"), kRequest, kT0);
  ASSERT_EQ(again.state, AnswerClaim::kDone);
  EXPECT_EQ(again.answer->body, "first");

  store->Complete(Pay("never-begun"), Answer("x", 201), kT0);
  store->Abandon(Pay("never-begun"));
  EXPECT_EQ(store->stats().entries, 1u);
  EXPECT_EQ(store->Begin(Pay("never-begun"), kRequest, kT0).state, AnswerClaim::kFirst);
}

TEST(KeyedAnswerStoreClaimTest, ValidateNamesBadFields) {
  auto s = KeyedAnswerStore::Create({.max_entries = 0, .max_bytes = 0, .ttl = 0s});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("max_entries: must be at least 1"), std::string::npos);
  EXPECT_NE(s.status().message().find("max_bytes: must be at least 1"), std::string::npos);
  EXPECT_NE(s.status().message().find("ttl: must be positive"), std::string::npos);
  EXPECT_FALSE(KeyedAnswerStore::Create({.ttl = -1s}).ok());
  EXPECT_TRUE(KeyedAnswerStore::Create({.max_entries = 1, .max_bytes = 1, .ttl = 1ns}).ok());
}

}  // namespace
}  // namespace stormguard
