// What the discovery tests share: a real etcd, a ReplicaSet a discovery
// keeps, the problems it reported, and replicas registered in this process.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "etcd_process.h"
#include "eventually.h"
#include "stormguard/config_sources/etcd_discovery.h"
#include "stormguard/config_sources/etcd_registration.h"

namespace stormguard::config_sources::testkit {

inline constexpr char kReplicaPrefix[] = "/sg/replicas/inventory/";

class DiscoveryFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(etcd_.Start());
    set_ = std::shared_ptr<ReplicaSet>(ReplicaSet::Create({}).value());
    auto discovery = EtcdDiscovery::Start({.etcd = {.endpoint = etcd_.endpoint(), .key = kReplicaPrefix, .seed = 7}},
                                          set_, Recorder());
    ASSERT_TRUE(discovery.ok()) << discovery.status().ToString();
    discovery_ = std::move(*discovery);
  }

  // A registration in this process; its failures are recorded with the discovery's problems.
  std::unique_ptr<EtcdRegistration> Register(const std::string& address, Duration ttl = std::chrono::seconds(10)) {
    auto r = EtcdRegistration::Start({.etcd = {.endpoint = etcd_.endpoint(), .key = kReplicaPrefix, .seed = 3},
                                      .address = address,
                                      .ttl = ttl},
                                     Recorder());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(*r) : nullptr;
  }

  std::function<void(const Status&)> Recorder() {
    return [this](const Status& s) {
      std::lock_guard lock(mu_);
      problems_.push_back(s.message());
    };
  }

  std::vector<std::string> Problems() {
    std::lock_guard lock(mu_);
    return problems_;
  }
  // Whether a problem reported so far contains `text`.
  bool Told(const std::string& text) {
    const std::vector<std::string> all = Problems();
    return std::any_of(all.begin(), all.end(), [&](const std::string& p) { return p.find(text) != std::string::npos; });
  }

  // Before the discovery and the registrations, whose threads report to them until they stop.
  std::mutex mu_;
  std::vector<std::string> problems_;
  EtcdProcess etcd_;
  std::shared_ptr<ReplicaSet> set_;
  std::unique_ptr<EtcdDiscovery> discovery_;
};

}  // namespace stormguard::config_sources::testkit
