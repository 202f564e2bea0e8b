// Pipelines for the client tests: fixed handles, as HttpClient takes them.
#pragma once

#include <gtest/gtest.h>

#include <utility>

#include "stormguard/pipeline/pipeline_ref.h"

namespace stormguard::http::testkit {

inline PipelineRef Built(const PipelineBuilder& builder) {
  auto p = builder.Build();
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? std::move(p).value() : PipelineRef();
}

inline PipelineRef RetryPipeline(RetryOptions retry) { return Built(PipelineBuilder().AddRetry(std::move(retry))); }

}  // namespace stormguard::http::testkit
