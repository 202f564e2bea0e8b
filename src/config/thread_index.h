// src/config/thread_index.h: a small number per live thread, for per-thread
// slots in an array (the registry's references).
//
// Numbers are below a fixed limit and unique among live threads; a thread's
// number is given back when it exits and may go to a later thread. A
// thread that finds every number taken gets -1 (and keeps it).
#pragma once

namespace stormguard::config::config_internal {

// The calling thread's number in [0, limit), or -1. The first call on a
// thread takes a process-wide lock; later calls read a thread_local.
// `limit` must be the same on every call.
int ThreadIndex(int limit) noexcept;

}  // namespace stormguard::config::config_internal
