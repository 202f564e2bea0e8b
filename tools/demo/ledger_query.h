// tools/demo/ledger_query.h: read service C's ledger over HTTP (GET /admin/stats).
//
//   Result<BottomSnapshot> now = ReadLedger(c_port);
//   Result<BottomSnapshot> last = ReadSettledLedger(c_port, 3s);  // once C is idle
//
// Thread safety: pure functions over one HTTP request each.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

#include "demo/bottom_ledger.h"
#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard::demo {

Result<BottomSnapshot> ReadLedger(int port);

// GET `path` of a demo service on `port`, parsed as JSON.
Result<nlohmann::json> ReadAdminJson(int port, const std::string& path);

// The ledger once nothing is in flight at C any more, or as it stands when
// `drain_limit` has passed (C may still be finishing slow work).
Result<BottomSnapshot> ReadSettledLedger(int port, Duration drain_limit);
// The same over any way of reading it (the gRPC demo's C answers a Stats call).
Result<BottomSnapshot> ReadSettledLedger(const std::function<Result<BottomSnapshot>()>& read, Duration drain_limit);

}  // namespace stormguard::demo
