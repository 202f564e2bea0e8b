// The memory a call waiting in its retry backoff holds in the pipeline: one
// block with the frame and the retry's state (async_frame.h), taken from a
// size class of the block cache (128, 160, 192, 224, 256, 320, 384, 448,
// ...). bench/async_benchmark.cc's BM_Async_Backoff_100k measures it with
// the coroutine driver's frames, against BM_Async_Backoff_100k_Baseline.
#include <gtest/gtest.h>

#include <cstddef>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/pipeline/async_frame.h"
#include "stormguard/pipeline/async_wait.h"
#include "stormguard/pipeline/stages/retry_stage.h"

namespace stormguard {
namespace {
using testkit::Unwrap;

// A typed frame as the coroutine driver makes one: a Result<T> call whose
// attempt and done are one pointer each, no fallback.
struct FrameSizeAttempt {
  void* call;
  void operator()(CallContext&, Completion<Result<int>>) const {}
};
struct FrameSizeDone {
  void* call;
  void operator()(Result<int>) const {}
};
using DriverFrame =
    pipeline_internal::AsyncFrame<Result<int>, FrameSizeAttempt, FrameSizeDone, pipeline_internal::NoFallback>;

constexpr std::size_t RoundToMaxAlign(std::size_t n) {
  return (n + alignof(std::max_align_t) - 1) & ~(alignof(std::max_align_t) - 1);
}

// 392 bytes before issue 31's change (class 448): the frame kept its block's size,
// and the wait's fields left 8 bytes of padding. 368 (class 384) while the
// wait locked a std::mutex and the retry's flags took a word of their own.
TEST(AsyncFrameSizeTest, AFrameWaitingInARetryBackoffFitsTheBlockClassOf320Bytes) {
  const RetryStage retry(Unwrap(RetryPolicy::Create({.max_attempts = 2})), Clock::Real());
  const std::size_t state = retry.async()->async_state().size;
  EXPECT_LE(RoundToMaxAlign(sizeof(DriverFrame)) + state, 320u)
      << "frame " << sizeof(DriverFrame) << " + retry state " << state;
}

// The wait every waiting stage keeps in its state (retry, bulkhead, rate
// limiter, chaos): its fields leave no padding but at its end, and its
// lock is one byte (168 bytes with a std::mutex).
TEST(AsyncFrameSizeTest, AnAsyncWaitHasNoPaddingAndAOneByteLock) { EXPECT_LE(sizeof(AsyncWait), 128u); }

}  // namespace
}  // namespace stormguard
