#include "stormguard/core/function_ref.h"

#include <gtest/gtest.h>

#include <string>

namespace stormguard {
namespace {

int Twice(FunctionRef<int(int)> f) { return f(f(1)); }

TEST(FunctionRefTest, CallsTheReferencedCallableWithItsState) {
  int calls = 0;
  auto add_ten = [&calls](int x) {
    ++calls;
    return x + 10;
  };
  EXPECT_EQ(Twice(add_ten), 21);
  EXPECT_EQ(calls, 2);
}

TEST(FunctionRefTest, WorksWithConstCallablesAndMoveOnlyArguments) {
  const auto length = [](std::string s) { return s.size(); };
  FunctionRef<std::size_t(std::string)> f(length);
  EXPECT_EQ(f(std::string("four")), 4u);
}

TEST(FunctionRefTest, ConvertsTheResultToTheDeclaredType) {
  auto half = [](int x) { return x / 2.0; };
  FunctionRef<int(int)> f(half);
  EXPECT_EQ(f(5), 2);
}

}  // namespace
}  // namespace stormguard
