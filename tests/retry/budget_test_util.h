// Test helpers shared by the retry budget tests.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "core/thread_test_util.h"
#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard::testkit {

// Any time after the clock's epoch, so that a test can also step back from it.
inline constexpr TimePoint kBudgetNow = TimePoint(std::chrono::hours(1));

// The budget a Create() returned; fails the test if it returned an error.
template <class Budget>
std::shared_ptr<Budget> Unwrap(Result<std::shared_ptr<Budget>> created) {
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return created.ok() ? std::move(created).value() : nullptr;
}

// Create() refused the options as INVALID_ARGUMENT.
template <class Budget>
void ExpectInvalidArgument(const Result<std::shared_ptr<Budget>>& created) {
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace stormguard::testkit

// What every <budget>_test.cc uses: `using namespace stormguard::budget_test;`.
namespace stormguard::budget_test {
using namespace std::chrono_literals;
using ::stormguard::testkit::ExpectInvalidArgument;
using ::stormguard::testkit::RunConcurrently;
using ::stormguard::testkit::Unwrap;
using ::testing::UnorderedElementsAre;
inline constexpr TimePoint kNow = ::stormguard::testkit::kBudgetNow;
}  // namespace stormguard::budget_test
