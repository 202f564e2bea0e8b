// Pipelines for the client tests: shared, as HttpClient takes them.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "stormguard/pipeline/pipeline.h"

namespace stormguard::http::testing {

inline std::shared_ptr<const Pipeline> Share(const PipelineBuilder& builder) {
  auto p = builder.Build();
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::make_shared<const Pipeline>(std::move(p).value());
}

inline std::shared_ptr<const Pipeline> RetryPipeline(RetryOptions retry) {
  return Share(PipelineBuilder().AddRetry(std::move(retry)));
}

}  // namespace stormguard::http::testing
