#include "curl_multi_loop.h"

#include <asio/posix/stream_descriptor.hpp>
#include <chrono>
#include <utility>

#include "stormguard/http/curl_exchange.h"

namespace stormguard::http {

// A socket curl asked us to watch. Waits in flight hold it by shared_ptr, so
// it outlives its removal until they have completed (with operation_aborted).
struct CurlMultiLoop::Watch {
  Watch(asio::io_context& io, curl_socket_t s) : descriptor(io, s) {}
  // The socket is curl's: release it rather than close it.
  ~Watch() { Forget(); }
  void Forget() noexcept {
    wanted = 0;
    if (descriptor.is_open()) descriptor.release();  // deregisters; pending waits abort
  }
  asio::posix::stream_descriptor descriptor;
  int wanted = 0;  // CURL_POLL_IN / CURL_POLL_OUT bits
  bool reading = false;
  bool writing = false;
};

CurlMultiLoop::CurlMultiLoop(asio::io_context& io, OnDone on_done)
    : io_(io), on_done_(std::move(on_done)), multi_((InitCurlOnce(), curl_multi_init())), timer_(io) {
  if (multi_ == nullptr) return;
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlMultiLoop::OnSocket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlMultiLoop::OnTimer);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
}

CurlMultiLoop::~CurlMultiLoop() {
  if (multi_ == nullptr) return;
  // curl closes its sockets during cleanup; stop watching them first, and
  // let no callback reach a loop that is going away.
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, nullptr);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, nullptr);
  for (auto& [s, w] : watches_) w->Forget();
  watches_.clear();
  curl_multi_cleanup(multi_);
}

bool CurlMultiLoop::Add(CURL* easy) noexcept { return curl_multi_add_handle(multi_, easy) == CURLM_OK; }

void CurlMultiLoop::Remove(CURL* easy) noexcept { curl_multi_remove_handle(multi_, easy); }

int CurlMultiLoop::OnSocket(CURL*, curl_socket_t s, int what, void* self, void* watch) noexcept {
  return static_cast<CurlMultiLoop*>(self)->Track(s, what, static_cast<Watch*>(watch));
}

int CurlMultiLoop::Track(curl_socket_t s, int what, Watch* w) noexcept try {
  if (what == CURL_POLL_REMOVE) {
    curl_multi_assign(multi_, s, nullptr);
    if (auto it = watches_.find(s); it != watches_.end()) {
      it->second->Forget();
      watches_.erase(it);
    }
    return 0;
  }
  std::shared_ptr<Watch>& slot = watches_[s];
  if (w == nullptr || slot.get() != w) {
    slot = std::make_shared<Watch>(io_, s);
    curl_multi_assign(multi_, s, slot.get());
  }
  slot->wanted = what;
  if (what & CURL_POLL_IN) Arm(slot, CURL_POLL_IN);
  if (what & CURL_POLL_OUT) Arm(slot, CURL_POLL_OUT);
  return 0;
} catch (...) {  // out of memory, or the reactor refused the socket
  watches_.erase(s);
  return -1;  // curl fails the transfers on this socket
}

void CurlMultiLoop::Arm(const std::shared_ptr<Watch>& w, int direction) {
  const bool in = direction == CURL_POLL_IN;
  bool& pending = in ? w->reading : w->writing;
  if (pending) return;  // one wait per direction; it re-arms itself
  pending = true;
  w->descriptor.async_wait(in ? asio::posix::descriptor_base::wait_read : asio::posix::descriptor_base::wait_write,
                           [this, w, in, direction](std::error_code ec) {
                             (in ? w->reading : w->writing) = false;
                             // Aborted: the socket was removed (or the loop is going away).
                             if (ec == asio::error::operation_aborted || (w->wanted & direction) == 0) return;
                             const curl_socket_t s = w->descriptor.native_handle();
                             Act(s, ec ? CURL_CSELECT_ERR : (in ? CURL_CSELECT_IN : CURL_CSELECT_OUT));
                             if (w->descriptor.is_open() && (w->wanted & direction) != 0) Arm(w, direction);
                           });
}

int CurlMultiLoop::OnTimer(CURLM*, long timeout_ms, void* self) noexcept try {
  auto* loop = static_cast<CurlMultiLoop*>(self);
  if (timeout_ms < 0) {
    loop->timer_.cancel();
    return 0;
  }
  // Armed, never run from here: curl must not be re-entered from its callback.
  loop->timer_.expires_after(std::chrono::milliseconds(timeout_ms));
  loop->timer_.async_wait([loop](std::error_code ec) {
    if (!ec) loop->Act(CURL_SOCKET_TIMEOUT, 0);
  });
  return 0;
} catch (...) {
  return -1;
}

void CurlMultiLoop::Act(curl_socket_t s, int events) {
  int running = 0;
  curl_multi_socket_action(multi_, s, events, &running);
  int queued = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &queued)) {
    if (msg->msg != CURLMSG_DONE) continue;
    CURL* easy = msg->easy_handle;
    const CURLcode code = msg->data.result;
    curl_multi_remove_handle(multi_, easy);  // `msg` is gone from here on
    on_done_(easy, code);
  }
}

}  // namespace stormguard::http
