// tools/number_flag.h: number flags that refuse NaN, infinities and negative seeds.
//
// CLI11's Range lets "nan" through (every comparison with NaN is false), and
// its integer conversion turns "-1" into 2^64 - 1. Every number flag of the
// CLI goes through one of these instead:
//
//   cmd.add_option("--rate", rate, "requests per second")->check(FiniteRange(0.001, 1e7));
//   // `--rate nan`  -> "--rate: 'nan' is not a finite number"
//   // `--rate 0`    -> "--rate: '0' is not in [0.001, 1e+07]"
//   AddSeedOption(cmd, seed, "random seed");
//   // `--seed -1`   -> "--seed: '-1' is not an integer from 0 to 18446744073709551615"
//
// Thread safety: plain functions; options write their target during parse.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace stormguard::cli {

// A decimal number (no hex, no NaN or infinity) in [lo, hi].
CLI::Validator FiniteRange(double lo, double hi);

// Adds --seed, an unsigned 64-bit integer written in decimal digits only.
CLI::Option* AddSeedOption(CLI::App& app, std::uint64_t& seed, const std::string& description);

}  // namespace stormguard::cli
