#include "stormguard/fleet/lease_store.h"

#include <algorithm>
#include <numeric>

namespace stormguard {

std::vector<double> FairShares(double capacity, std::span<const double> demands) {
  std::vector<std::size_t> order(demands.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return demands[a] < demands[b]; });
  std::vector<double> shares(demands.size(), 0.0);
  double left = std::max(capacity, 0.0);
  // Smallest demand first: each gets what it asks while that stays within
  // an equal split of what is left; from the first that asks more, every
  // remaining instance gets that equal split.
  for (std::size_t k = 0; k < order.size(); ++k) {
    const double level = left / static_cast<double>(order.size() - k);
    const double share = std::clamp(demands[order[k]], 0.0, level);
    shares[order[k]] = share;
    left -= share;
  }
  return shares;
}

Result<Lease> InMemoryLeaseStore::Refresh(std::string_view instance_id, double demand, TimePoint now) {
  std::lock_guard lock(mu_);
  // Silent for two more leases past its own: forgotten.
  std::erase_if(entries_, [&](const auto& e) { return e.second.expiry + 2 * lease_length_ <= now; });
  const auto it = entries_.try_emplace(std::string(instance_id)).first;
  it->second.demand = std::max(demand, 0.0);
  const double static_share = capacity_ / static_cast<double>(entries_.size());
  std::vector<double> demands;
  double others_granted = 0;
  std::size_t self = 0;
  for (auto e = entries_.begin(); e != entries_.end(); ++e) {
    if (e == it) {
      self = demands.size();
      demands.push_back(e->second.demand);
      continue;
    }
    // A silent instance keeps what it may be spending on its own.
    const bool silent = e->second.expiry <= now;
    const double holds = silent ? std::min(e->second.demand, static_share) : e->second.granted;
    others_granted += holds;
    demands.push_back(silent ? holds : e->second.demand);
  }
  const double fair = FairShares(capacity_, demands)[self];
  // Never promise more than the others' current grants leave free.
  it->second.granted = std::clamp(capacity_ - others_granted, 0.0, fair);
  it->second.expiry = now + lease_length_;
  return Lease{.rate = it->second.granted, .expiry = it->second.expiry, .instances = static_cast<int>(entries_.size())};
}

void InMemoryLeaseStore::Clear() {
  std::lock_guard lock(mu_);
  entries_.clear();
}

}  // namespace stormguard
