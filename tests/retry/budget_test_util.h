// Test helpers shared by the retry budget tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "stormguard/core/result.h"

namespace stormguard::testing {

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

}  // namespace stormguard::testing
