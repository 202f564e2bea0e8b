// stormguard/pipeline/stages/all.h: every stage the builder can add, one file each.
//
// Outside in, as they usually sit in a pipeline: fallback, timeout, retry,
// hedge, circuit breaker, bulkhead, rate limiter, adaptive concurrency,
// adaptive throttle, idempotency key, attempt timeout (the timeout file
// holds both timeouts), chaos (fault injection).
// Each stage declares its own placement rules (Stage::placement()).
#pragma once

// In pipeline order, as said above: not sorted.
// clang-format off
#include "stormguard/pipeline/stages/fallback_stage.h"
#include "stormguard/pipeline/stages/timeout_stage.h"
#include "stormguard/pipeline/stages/retry_stage.h"
#include "stormguard/pipeline/stages/hedge_stage.h"
#include "stormguard/pipeline/stages/circuit_breaker_stage.h"
#include "stormguard/pipeline/stages/bulkhead_stage.h"
#include "stormguard/pipeline/stages/rate_limiter_stage.h"
#include "stormguard/pipeline/stages/adaptive_concurrency_stage.h"
#include "stormguard/pipeline/stages/adaptive_throttle_stage.h"
#include "stormguard/pipeline/stages/global_rate_limit_stage.h"
#include "stormguard/pipeline/stages/idempotency_key_stage.h"
#include "stormguard/pipeline/stages/chaos_stage.h"
// clang-format on
