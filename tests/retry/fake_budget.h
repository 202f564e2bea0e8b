// A RetryBudget that records how the driver used it and allows a fixed
// number of retries: the retry tests check the protocol, not a real budget.
#pragma once

#include <string>
#include <vector>

#include "stormguard/retry/retry_budget.h"

namespace stormguard::testkit {

class FakeBudget final : public RetryBudget {
 public:
  explicit FakeBudget(int retries_allowed) : allowed_(retries_allowed) {}
  std::string_view name() const noexcept override { return "fake"; }
  void OnRequestStart(TimePoint) noexcept override { log.push_back("start"); }
  void OnRequestEnd(TimePoint) noexcept override { log.push_back("end"); }
  void RecordSuccess(TimePoint) noexcept override { log.push_back("success"); }
  void RecordFailure(TimePoint) noexcept override { log.push_back("failure"); }
  bool TryAcquireRetry(TimePoint) noexcept override {
    if (allowed_ <= 0) {
      log.push_back("refuse");
      return false;
    }
    --allowed_;
    log.push_back("acquire");
    return true;
  }
  void OnRetryEnd(TimePoint) noexcept override { log.push_back("retry_end"); }

  std::vector<std::string> log;

 private:
  int allowed_;
};

}  // namespace stormguard::testkit
