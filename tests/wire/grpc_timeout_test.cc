#include "stormguard/wire/grpc_timeout.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stormguard/core/random.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;

std::string Enc(Duration d) { return EncodeGrpcTimeout(d).str(); }

TEST(GrpcTimeoutTest, EncodesWithFinestUnitThatFitsInEightDigits) {
  EXPECT_EQ(Enc(1ns), "1n");
  EXPECT_EQ(Enc(99'999'999ns), "99999999n");
  EXPECT_EQ(Enc(100'000'000ns), "100000u");
  EXPECT_EQ(Enc(1500ms), "1500000u");
  EXPECT_EQ(Enc(99'999'999us), "99999999u");
  EXPECT_EQ(Enc(100'000'000us), "100000m");
  EXPECT_EQ(Enc(99'999'999ms), "99999999m");
  EXPECT_EQ(Enc(100'000'000ms), "100000S");
  EXPECT_EQ(Enc(99'999'999s), "99999999S");
}

TEST(GrpcTimeoutTest, SwitchesToMinutesAndHoursPastEightDigitsOfSeconds) {
  EXPECT_EQ(Enc(100'000'000s), "1666667M");  // 1666666.67 minutes, rounded up
  EXPECT_EQ(Enc(99'999'999min), "99999999M");
  EXPECT_EQ(Enc(100'000'000min), "1666667H");
}

TEST(GrpcTimeoutTest, RoundsUpSoEncodingNeverShortensTheDeadline) {
  EXPECT_EQ(Enc(100'000'001ns), "100001u");
  EXPECT_EQ(Enc(1s + 1ns), "1000001u");
  EXPECT_EQ(Enc(100'000'000ms + 1ns), "100001S");
  EXPECT_EQ(Enc(100'000'000s + 1ns), "1666667M");
}

TEST(GrpcTimeoutTest, ZeroOrNegativeEncodesAsOneNanosecond) {
  EXPECT_EQ(Enc(0ns), "1n");
  EXPECT_EQ(Enc(-5s), "1n");
  EXPECT_EQ(Enc(Duration::min()), "1n");
}

TEST(GrpcTimeoutTest, InfiniteEncodesAsAValueThatDecodesAsInfinite) {
  EXPECT_EQ(Enc(kInfiniteDuration), "2562048H");
  EXPECT_EQ(DecodeGrpcTimeout(Enc(kInfiniteDuration)), kInfiniteDuration);
}

TEST(GrpcTimeoutTest, DecodesEveryUnit) {
  EXPECT_EQ(DecodeGrpcTimeout("1H"), Duration(1h));
  EXPECT_EQ(DecodeGrpcTimeout("2M"), Duration(2min));
  EXPECT_EQ(DecodeGrpcTimeout("3S"), Duration(3s));
  EXPECT_EQ(DecodeGrpcTimeout("4m"), Duration(4ms));
  EXPECT_EQ(DecodeGrpcTimeout("5u"), Duration(5us));
  EXPECT_EQ(DecodeGrpcTimeout("6n"), Duration(6ns));
}

TEST(GrpcTimeoutTest, AcceptsEightDigitsAndRejectsNine) {
  EXPECT_EQ(DecodeGrpcTimeout("99999999S"), Duration(99'999'999s));
  EXPECT_EQ(DecodeGrpcTimeout("00000001S"), Duration(1s));
  EXPECT_EQ(DecodeGrpcTimeout("100000000S"), std::nullopt);
  EXPECT_EQ(DecodeGrpcTimeout("000000001S"), std::nullopt);
}

TEST(GrpcTimeoutTest, ZeroDecodesAsAnExpiredBudget) {
  EXPECT_EQ(DecodeGrpcTimeout("0n"), Duration::zero());
  EXPECT_EQ(DecodeGrpcTimeout("0H"), Duration::zero());
}

TEST(GrpcTimeoutTest, ValuesPastDurationRangeDecodeAsInfinite) {
  EXPECT_EQ(DecodeGrpcTimeout("2562047H"), Duration(2'562'047h));
  EXPECT_EQ(DecodeGrpcTimeout("2562048H"), kInfiniteDuration);
  EXPECT_EQ(DecodeGrpcTimeout("99999999H"), kInfiniteDuration);
  EXPECT_EQ(DecodeGrpcTimeout("99999999M"), Duration(99'999'999min));
}

TEST(GrpcTimeoutTest, RejectsGarbageAsAbsent) {
  const std::vector<std::string> garbage = {"",
                                            "S",
                                            "1",
                                            "1s",
                                            "1h",
                                            "1x",
                                            "-1S",
                                            "+1S",
                                            " 1S",
                                            "1S ",
                                            "1 S",
                                            "1.5S",
                                            "0x1S",
                                            "1SS",
                                            "1e3m",
                                            "\xEF\xBC\x91S" /* fullwidth 1 */,
                                            std::string("1\0S", 3),
                                            std::string("\0", 1)};
  for (const std::string& g : garbage) {
    EXPECT_EQ(DecodeGrpcTimeout(g), std::nullopt) << "input: " << g;
  }
}

// The unit a value was encoded in, from its last character.
Duration UnitOf(std::string_view text) {
  switch (text.back()) {
    case 'n': return 1ns;
    case 'u': return 1us;
    case 'm': return 1ms;
    case 'S': return 1s;
    case 'M': return 1min;
    default: return 1h;
  }
}

void ExpectRoundTripNeverShortens(Duration d) {
  const std::string text = Enc(d);
  ASSERT_LE(text.size(), 9u) << text;
  const auto back = DecodeGrpcTimeout(text);
  ASSERT_TRUE(back.has_value()) << text;
  EXPECT_GE(*back, d) << text;
  EXPECT_LT(*back - d, UnitOf(text)) << text;
}

TEST(GrpcTimeoutTest, RoundTripNeverShortensAndLosesLessThanOneUnitAtEveryBoundary) {
  const std::vector<Duration> units = {1ns, 1us, 1ms, 1s, 1min, 1h};
  for (const Duration unit : units) {
    for (const std::int64_t v : {1LL, 9LL, 10LL, 99'999'999LL, 100'000'000LL, 100'000'001LL}) {
      if (v > Duration::max() / unit) continue;  // not a Duration
      const Duration d = unit * v;
      for (const Duration delta : {-1ns, 0ns, 1ns}) {
        if (d + delta > Duration::zero()) ExpectRoundTripNeverShortens(d + delta);
      }
    }
  }
}

TEST(GrpcTimeoutTest, RoundTripNeverShortensForRandomDurationsOfEveryMagnitude) {
  Random rng(20240601);
  for (int i = 0; i < 20000; ++i) {
    const int bits = static_cast<int>(rng.Below(63));
    const auto ns = static_cast<std::int64_t>(rng.NextU64() >> (63 - bits));  // < 2^bits
    ExpectRoundTripNeverShortens(Duration(ns == 0 ? 1 : ns));
  }
}

TEST(GrpcTimeoutTest, ExactValuesRoundTripExactly) {
  for (const Duration d :
       {Duration(1ns), Duration(7us), Duration(250ms), Duration(30s), Duration(5min), Duration(3h)}) {
    EXPECT_EQ(DecodeGrpcTimeout(Enc(d)), d) << Enc(d);
  }
}

TEST(GrpcTimeoutTest, CodecsAreNoexcept) {
  static_assert(noexcept(EncodeGrpcTimeout(Duration())));
  static_assert(noexcept(DecodeGrpcTimeout(std::string_view())));
}

}  // namespace
}  // namespace stormguard
