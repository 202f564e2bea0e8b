#include "demo/slow_window.h"

#include <charconv>
#include <string>

namespace stormguard::demo {
namespace {

Status Millis(const httplib::Params& params, const std::string& name, std::int64_t& out) {
  const std::size_t n = params.count(name);
  if (n != 1) return Status::InvalidArgument(name + ": " + (n == 0 ? "missing" : "given more than once"));
  const std::string& text = params.find(name)->second;
  const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (err != std::errc() || end != text.data() + text.size() || out < 1 || out > kMaxSlowMs) {
    return Status::InvalidArgument(name + ": '" + text.substr(0, 32) + "' is not a whole number of ms in [1, " +
                                   std::to_string(kMaxSlowMs) + "]");
  }
  return Status::Ok();
}

}  // namespace

Status SlowWindow::Open(const httplib::Params& params, TimePoint now) {
  std::int64_t delay_ms = 0, for_ms = 0;
  if (Status s = Millis(params, "delay_ms", delay_ms); !s.ok()) return s;
  if (Status s = Millis(params, "for_ms", for_ms); !s.ok()) return s;
  std::lock_guard lock(mu_);
  delay_ = std::chrono::milliseconds(delay_ms);
  until_ = now + std::chrono::milliseconds(for_ms);
  return Status::Ok();
}

Duration SlowWindow::DelayAt(TimePoint now) const {
  std::lock_guard lock(mu_);
  return now < until_ ? delay_ : Duration::zero();
}

}  // namespace stormguard::demo
