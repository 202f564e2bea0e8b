#include "stormguard/grpc/chain_metadata.h"

#include <algorithm>
#include <cstdint>

namespace stormguard::rpc {

void PrepareAttempt(const CallContext& attempt, TimePoint now, grpc::ClientContext& out,
                    const AttemptMetadataOptions& options) {
  if (!attempt.deadline.is_infinite()) {
    // A finite deadline may still lie centuries away: saturate, never overflow.
    const auto sys_now = std::chrono::system_clock::now();
    const auto headroom = std::chrono::duration_cast<Duration>(std::chrono::system_clock::time_point::max() - sys_now);
    const Duration left = std::clamp(attempt.deadline.Remaining(now), Duration::zero(), headroom);
    out.set_deadline(sys_now + std::chrono::duration_cast<std::chrono::system_clock::duration>(left));
  }
  if (attempt.attempt > 1) {
    out.AddMetadata(std::string(kAttemptKey), EncodeRetryAttempt(attempt.attempt).str());
  }
  if (!attempt.idempotency_key.empty()) {
    out.AddMetadata(std::string(kIdempotencyKey), attempt.idempotency_key);
  }
  if (options.ask_sidecar_not_to_retry) {
    out.AddMetadata(std::string(kEnvoyMaxRetriesKey), std::string(kEnvoyNoRetriesValue));
  }
}

IncomingChain ReadIncomingChain(const ClientMetadata& metadata, std::size_t max_key_length) {
  IncomingChain in;
  bool seen_key = false;
  for (const auto& [name_ref, value_ref] : metadata) {
    const std::string_view name(name_ref.data(), name_ref.size());
    const std::string_view value(value_ref.data(), value_ref.size());
    if (name == kAttemptKey) {
      in.is_retry = in.is_retry || DecodeRetryAttempt(value).value_or(1) >= 2;
    } else if (name == kEnvoyAttemptCountKey) {
      in.is_retry = in.is_retry || DecodeEnvoyAttemptCount(value).value_or(1) >= 2;
    } else if (name == kPreviousAttemptsKey) {
      in.is_retry = in.is_retry || DecodeGrpcPreviousAttempts(value).value_or(0) >= 1;
    } else if (name == kIdempotencyKey) {
      // A repeated key is as unusable as a bad one: which would be the operation?
      const auto key = DecodeIdempotencyKey(value, max_key_length);
      in.unreadable_key = in.unreadable_key || !key || seen_key;
      in.idempotency_key = in.unreadable_key ? std::string() : std::string(*key);
      seen_key = true;
    }
  }
  return in;
}

Duration RemainingOf(const grpc::ServerContextBase& context) {
  const gpr_timespec deadline = context.raw_deadline();
  return RemainingUntil(deadline, gpr_now(deadline.clock_type));
}

Duration RemainingUntil(gpr_timespec deadline, gpr_timespec now) noexcept {
  if (deadline.tv_sec == gpr_inf_future(GPR_CLOCK_REALTIME).tv_sec) return kInfiniteDuration;
  // Whole seconds first, overflow-checked: either time may be any int64.
  std::int64_t seconds = 0;
  if (__builtin_sub_overflow(deadline.tv_sec, now.tv_sec, &seconds)) {
    return deadline.tv_sec > now.tv_sec ? kMaxWireDuration : Duration::zero();
  }
  if (seconds < 0) return Duration::zero();  // the nanoseconds add less than a second
  if (seconds > kMaxWireDuration / std::chrono::seconds(1)) return kMaxWireDuration;
  const std::int64_t nanos = std::int64_t{deadline.tv_nsec} - now.tv_nsec;
  const Duration left = std::chrono::seconds(seconds) + std::chrono::nanoseconds(nanos);
  return std::clamp(left, Duration::zero(), kMaxWireDuration);
}

}  // namespace stormguard::rpc
