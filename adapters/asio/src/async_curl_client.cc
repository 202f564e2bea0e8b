#include "stormguard/asio/async_curl_client.h"

#include <asio/associated_cancellation_slot.hpp>
#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <optional>
#include <utility>

#include "curl_multi_loop.h"
#include "stormguard/core/validation.h"
#include "stormguard/http/chain_headers.h"
#include "stormguard/http/curl_exchange.h"

namespace stormguard::http {
namespace {

// The awaiting coroutine's completion handler, type-erased so that a
// transfer is not a template.
struct Completion {
  virtual ~Completion() = default;
  virtual void Post(Result<HttpResponse> r) = 0;
};

template <class Handler>
struct HandlerCompletion final : Completion {
  explicit HandlerCompletion(Handler h) : handler(std::move(h)) {}
  // Posted, never run inline: the coroutine must not resume inside the
  // loop's bookkeeping (it may start or cancel exchanges of its own).
  void Post(Result<HttpResponse> r) override {
    auto ex = asio::get_associated_executor(handler);
    asio::post(ex, [h = std::move(handler), r = std::move(r)]() mutable { std::move(h)(std::move(r)); });
  }
  Handler handler;
};

void* AsPrivate(std::uint64_t id) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(id)); }

std::uint64_t IdOf(CURL* easy) {
  char* p = nullptr;
  curl_easy_getinfo(easy, CURLINFO_PRIVATE, &p);
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
}

}  // namespace

struct AsyncCurlClient::Transfer {
  explicit Transfer(HttpRequest r) : request(std::move(r)), easy(curl_easy_init()) {}
  ~Transfer() {
    if (easy != nullptr) curl_easy_cleanup(easy);
  }
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  void Complete(Result<HttpResponse> r) {
    slot.clear();  // a later cancellation must not reach a finished exchange
    completion->Post(std::move(r));
  }

  std::uint64_t id = 0;
  HttpRequest request;     // curl reads the body from here during the transfer
  std::string connect_to;  // the replica; "" for the URL's own address
  Deadline deadline;
  HeaderList chain;
  CURL* easy;
  std::optional<CurlExchange> exchange;
  std::unique_ptr<Completion> completion;
  asio::cancellation_slot slot;
};

std::vector<std::string> AsyncCurlClientOptions::Validate() const {
  Validator v;
  v.Check(connect_timeout > Duration::zero(), "connect_timeout", "must be positive");
  v.Check(default_timeout > Duration::zero(), "default_timeout", "must be positive");
  v.Check(max_response_bytes >= 1, "max_response_bytes", "must be at least 1");
  v.Check(clock != nullptr, "clock", "must not be null");
  return std::move(v).errors();
}

Result<std::unique_ptr<AsyncCurlClient>> AsyncCurlClient::Create(asio::io_context& io, AsyncCurlClientOptions options) {
  Status s = ValidationStatus("async curl client options", options.Validate());
  if (!s.ok()) return s;
  std::unique_ptr<AsyncCurlClient> client(new AsyncCurlClient(io, std::move(options)));
  if (!client->loop_->ok()) return Status::Internal("curl_multi_init failed");
  return client;
}

AsyncCurlClient::AsyncCurlClient(asio::io_context& io, AsyncCurlClientOptions options)
    : o_(std::move(options)), loop_(std::make_unique<CurlMultiLoop>(io, [this](CURL* easy, CURLcode code) {
        if (auto t = Take(IdOf(easy))) t->Complete(t->exchange->Finish(code, false));
      })) {}

AsyncCurlClient::~AsyncCurlClient() {
  for (auto& [id, t] : transfers_) {
    loop_->Remove(t->easy);
    t->Complete(Status::Cancelled("request cancelled: its client was destroyed"));
  }
}

Result<std::unique_ptr<AsyncCurlClient::Transfer>> AsyncCurlClient::Prepare(const CallContext& ctx, HttpRequest request,
                                                                            std::string connect_to) const {
  if (request.idempotency_key.empty()) request.idempotency_key = ctx.idempotency_key;
  if (Status key = CheckIdempotencyKey(request.idempotency_key); !key.ok()) return key;
  if (ctx.stop.stop_requested()) return Status::Cancelled("request cancelled before it was sent");
  const TimePoint now = o_.clock->Now();
  const Deadline deadline = ctx.deadline.Within(now, o_.default_timeout);
  if (deadline.Expired(now)) return Status::DeadlineExceeded("deadline passed before sending");
  auto t = std::make_unique<Transfer>(std::move(request));
  if (t->easy == nullptr) return Status::Internal("curl_easy_init failed");
  t->deadline = deadline;
  t->connect_to = std::move(connect_to);
  if (o_.chain_protocol) {
    CallContext attempt = ctx;
    attempt.deadline = deadline;
    attempt.idempotency_key = t->request.idempotency_key;
    AppendRequestChainHeaders(attempt, now, {.absolute_deadline = o_.absolute_deadline}, t->chain);
  }
  t->exchange.emplace(t->easy, t->request, t->chain,
                      TransportLimits{deadline, o_.connect_timeout, now, o_.max_response_bytes, t->connect_to});
  return t;
}

asio::awaitable<HttpResult> AsyncCurlClient::Send(CallContext ctx, HttpRequest request) {
  co_return co_await Exchange(std::move(ctx), std::move(request), nullptr);
}

asio::awaitable<HttpResult> AsyncCurlClient::Send(CallContext ctx, HttpRequest request, CallRouting& routing) {
  co_return co_await Exchange(std::move(ctx), std::move(request), &routing);
}

asio::awaitable<HttpResult> AsyncCurlClient::Exchange(CallContext ctx, HttpRequest request, CallRouting* routing) {
  PickedEndpoint replica = routing != nullptr ? routing->Pick(o_.clock->Now()) : PickedEndpoint();
  std::string endpoint = replica ? replica.address() : std::string();
  Result<std::unique_ptr<Transfer>> prepared = Prepare(ctx, std::move(request), endpoint);
  if (!prepared.ok()) co_return HttpResult{.status = std::move(prepared).status()};
  // As HttpClient maps it: uncapped, the pipeline's retry and hedge clamp a pause.
  const ResponseMapping mapping = ResponseMapping::For(prepared.value()->request, o_.chain_protocol);
  Result<HttpResponse> r = co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(Result<HttpResponse>)>(
      [this](auto handler, std::unique_ptr<Transfer> t) {
        t->id = next_id_++;
        t->slot = asio::get_associated_cancellation_slot(handler);
        if (t->slot.is_connected()) {
          t->slot.assign([this, id = t->id](asio::cancellation_type type) {
            if ((type & asio::cancellation_type::terminal) != asio::cancellation_type::none) Cancel(id);
          });
        }
        t->completion = std::make_unique<HandlerCompletion<decltype(handler)>>(std::move(handler));
        Start(std::move(t));
      },
      asio::use_awaitable, std::move(prepared).value());
  if (replica) routing->Report(replica, ReplicaOutcome(r), o_.clock->Now());
  if (!r.ok()) co_return HttpResult{.status = std::move(r).status(), .attempts = 1};
  Status status = StatusOfResponse(*r, mapping);
  co_return HttpResult{
      .status = std::move(status), .response = std::move(r).value(), .attempts = 1, .endpoint = std::move(endpoint)};
}

void AsyncCurlClient::Start(std::unique_ptr<Transfer> t) {
  curl_easy_setopt(t->easy, CURLOPT_PRIVATE, AsPrivate(t->id));
  Transfer& started = *t;
  transfers_.emplace(started.id, std::move(t));
  if (!loop_->Add(started.easy)) Take(started.id)->Complete(Status::Internal("curl refused the transfer"));
}

std::unique_ptr<AsyncCurlClient::Transfer> AsyncCurlClient::Take(std::uint64_t id) {
  auto node = transfers_.extract(id);
  return node.empty() ? nullptr : std::move(node.mapped());
}

void AsyncCurlClient::Cancel(std::uint64_t id) {
  std::unique_ptr<Transfer> t = Take(id);
  if (t == nullptr) return;
  loop_->Remove(t->easy);  // at once: curl forgets the transfer and its connection
  if (t->deadline.Expired(o_.clock->Now())) {
    t->Complete(Status::DeadlineExceeded("request cancelled at its deadline"));
  } else {
    t->Complete(t->exchange->Finish(CURLE_OK, /*cancelled=*/true));
  }
}

}  // namespace stormguard::http
