// One unary gRPC call written by hand on a bare HTTP/2 connection, for the
// metadata gRPC's own client refuses to send (control bytes, a grpc-timeout
// past what it would write): a server must cope with whatever a peer sends.
//
//   RawAnswer a = RawUnaryCall(server.address(), "/stormguard.test.Echo/Say", request.SerializeAsString(),
//                              {{"idempotency-key", "ab\x01cd"}});
//   EXPECT_EQ(a.grpc_status, "3");  // INVALID_ARGUMENT
//
// The request headers are HPACK literals without indexing; the answer's
// headers are read for grpc-status and grpc-message only (a fresh connection
// per call, so gRPC writes both as literals). Bounded: 5 s per read, 256 frames.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stormguard::rpc::testkit {

struct RawAnswer {
  std::string grpc_status;   // empty when none arrived
  std::string grpc_message;  // percent-encoded, as sent
  std::string reply;         // the reply message's bytes, without gRPC's 5-byte prefix
};

namespace raw_internal {

inline void PutInt(std::string& out, std::uint8_t first, int prefix_bits, std::size_t v) {
  const std::size_t max = (std::size_t{1} << prefix_bits) - 1;
  if (v < max) {
    out.push_back(static_cast<char>(first | v));
    return;
  }
  out.push_back(static_cast<char>(first | max));
  for (v -= max; v >= 128; v /= 128) out.push_back(static_cast<char>(0x80 | (v % 128)));
  out.push_back(static_cast<char>(v));
}

inline void PutLiteral(std::string& out, std::string_view name, std::string_view value) {
  out.push_back(0);  // literal without indexing, new name
  PutInt(out, 0, 7, name.size());
  out.append(name);
  PutInt(out, 0, 7, value.size());
  out.append(value);
}

inline std::string Frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, std::string_view payload) {
  std::string out;
  for (const int shift : {16, 8, 0}) out.push_back(static_cast<char>((payload.size() >> shift) & 0xff));
  out.push_back(static_cast<char>(type));
  out.push_back(static_cast<char>(flags));
  for (const int shift : {24, 16, 8, 0}) out.push_back(static_cast<char>((stream >> shift) & 0xff));
  return out.append(payload);
}

// Reads an HPACK integer; false past the end.
inline bool GetInt(std::string_view& in, int prefix_bits, std::size_t& v) {
  if (in.empty()) return false;
  const std::size_t max = (std::size_t{1} << prefix_bits) - 1;
  v = static_cast<std::uint8_t>(in[0]) & max;
  in.remove_prefix(1);
  if (v < max) return true;
  for (int shift = 0; !in.empty() && shift < 28; shift += 7) {
    const auto b = static_cast<std::uint8_t>(in[0]);
    in.remove_prefix(1);
    v += std::size_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

inline bool GetString(std::string_view& in, std::string& out) {
  if (in.empty()) return false;
  const bool huffman = (static_cast<std::uint8_t>(in[0]) & 0x80) != 0;
  std::size_t n = 0;
  if (!GetInt(in, 7, n) || n > in.size()) return false;
  out = huffman ? std::string("<huffman>") : std::string(in.substr(0, n));
  in.remove_prefix(n);
  return true;
}

// Picks grpc-status and grpc-message out of a header block.
inline void ReadHeaders(std::string_view in, RawAnswer& answer) {
  while (!in.empty()) {
    const auto b = static_cast<std::uint8_t>(in[0]);
    std::size_t index = 0;
    if ((b & 0x80) != 0 || (b & 0xe0) == 0x20) {  // indexed field, table size update
      if (!GetInt(in, (b & 0x80) != 0 ? 7 : 5, index)) return;
      continue;
    }
    if (!GetInt(in, (b & 0x40) != 0 ? 6 : 4, index)) return;
    std::string name, value;
    if ((index == 0 && !GetString(in, name)) || !GetString(in, value)) return;
    if (name == "grpc-status") answer.grpc_status = value;
    if (name == "grpc-message") answer.grpc_message = value;
  }
}

}  // namespace raw_internal

// Calls `path` on `address` (127.0.0.1:port) with `message` (a serialized request)
// and `metadata` after the pseudo-headers, as stream 1 of a new connection.
inline RawAnswer RawUnaryCall(const std::string& address, std::string_view path, std::string_view message,
                              const std::vector<std::pair<std::string, std::string>>& metadata) {
  using namespace raw_internal;
  RawAnswer answer;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval limit{.tv_sec = 5, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(std::stoi(address.substr(address.rfind(':') + 1))));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return answer;
  }
  std::string block;
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{":method", "POST"},
                                                        {":scheme", "http"},
                                                        {":path", std::string(path)},
                                                        {":authority", "localhost"},
                                                        {"content-type", "application/grpc"},
                                                        {"te", "trailers"}}) {
    PutLiteral(block, name, value);
  }
  for (const auto& [name, value] : metadata) PutLiteral(block, name, value);
  std::string out = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + Frame(4, 0, 0, "");
  constexpr std::size_t kMaxFrame = 16384;  // the peer's default
  for (std::size_t at = 0; at < block.size(); at += kMaxFrame) {
    const bool last = at + kMaxFrame >= block.size();
    out += Frame(at == 0 ? 1 : 9, last ? 0x4 : 0, 1, std::string_view(block).substr(at, kMaxFrame));
  }
  std::string data(1, '\0');
  for (const int shift : {24, 16, 8, 0}) data.push_back(static_cast<char>((message.size() >> shift) & 0xff));
  out += Frame(0, 0x1, 1, data.append(message));  // END_STREAM
  bool sent = ::send(fd, out.data(), out.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(out.size());

  std::string in;
  for (int frames = 0; sent && frames < 256;) {
    if (in.size() >= 9) {
      const std::size_t n = (static_cast<std::uint8_t>(in[0]) << 16) | (static_cast<std::uint8_t>(in[1]) << 8) |
                            static_cast<std::uint8_t>(in[2]);
      if (in.size() >= 9 + n) {
        const auto type = static_cast<std::uint8_t>(in[3]);
        const auto flags = static_cast<std::uint8_t>(in[4]);
        const std::string_view payload = std::string_view(in).substr(9, n);
        ++frames;
        if (type == 4 && (flags & 0x1) == 0) {  // the peer's SETTINGS: acknowledge
          const std::string ack = Frame(4, 0x1, 0, "");
          sent = ::send(fd, ack.data(), ack.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(ack.size());
        }
        if (type == 0) answer.reply.append(payload);
        if (type == 1 || type == 9) ReadHeaders(payload, answer);
        const bool ended = (type == 0 || type == 1) && (flags & 0x1) != 0;
        in.erase(0, 9 + n);
        if (ended || type == 3 || type == 7) break;  // END_STREAM, RST_STREAM, GOAWAY
        continue;
      }
    }
    char buf[16384];
    const ssize_t got = ::recv(fd, buf, sizeof buf, 0);
    if (got <= 0) break;
    in.append(buf, static_cast<std::size_t>(got));
  }
  ::close(fd);
  answer.reply.erase(0, 5);  // gRPC's message prefix
  return answer;
}

}  // namespace stormguard::rpc::testkit
