// bench/alloc_counter.h: counts heap allocations, so benchmarks can report
// "allocs/call" next to their time (global operator new is replaced in
// alloc_counter.cc for the whole bench binary, over-aligned forms included).
#pragma once

#include <cstdint>

namespace stormguard::bench {

// Allocations made by the calling thread since it started.
std::uint64_t ThreadAllocations() noexcept;

}  // namespace stormguard::bench
