// One keyed call's part in the at-most-once protocol over a
// KeyedAnswerStore, shared by ServerGuard::Serve (sync services) and
// ServeCallback (callback services): only how a repeat waits differs.
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/server_context.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "stormguard/core/time.h"
#include "stormguard/wire/keyed_answer_store.h"

namespace stormguard::rpc::grpc_internal {

class KeyedCall {
 public:
  // `request` and `reply` must outlive the call (gRPC keeps them until it ends).
  KeyedCall(KeyedAnswerStore& store, std::string caller, std::string key, const google::protobuf::Message& request,
            google::protobuf::Message& reply);

  // kFirst: run the handler, then Finish. kRunning: wait for the first (the
  // store's AwaitCompletion or Watch), then Waited. Otherwise `answer`.
  struct Claim {
    AnswerClaim::State state;
    grpc::Status answer;
  };
  Claim Begin(TimePoint now);
  // The handler answered (the reply filled): records what a repeat would
  // get again, or forgets the key so that a retry runs.
  void Finish(const grpc::Status& status, TimePoint now);
  // A repeat's answer once its wait ended: the first's recorded answer, or,
  // with none, a refusal a keyed call retries (DEADLINE_EXCEEDED when its
  // own time ran out, UNAVAILABLE when the first failed and was forgotten).
  grpc::Status Waited(const std::optional<RecordedAnswer>& done, bool out_of_time);

  IdempotencyScope scope() const noexcept;
  std::uint64_t fingerprint() const noexcept { return fingerprint_; }
  KeyedAnswerStore& store() const noexcept { return store_; }

 private:
  KeyedAnswerStore& store_;
  const std::string caller_;
  const std::string key_;
  const std::string_view request_type_, reply_type_;  // the descriptors' names: static
  google::protobuf::Message& reply_;
  const std::uint64_t fingerprint_;
};

}  // namespace stormguard::rpc::grpc_internal
