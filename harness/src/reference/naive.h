// Naive reference implementations of both models, for differential testing: every structure is a
// vector scanned from end to end, every rule written the most direct way. They must give exactly
// what the fast ones give (tests/test_differential.cc, fuzz/fuzz_differential.cc).
#pragma once
#include <cstdint>
#include <random>
#include <string>

#include "kmodel/kernel_model.h"
#include "sim/sim.h"

namespace vramlab {

// The thesis model (replay.h) for lru, score, score-age and gdsf, each bottom-up or with
// "minmax+" (and "minmax" = minmax+lru).
SimResult naive_thesis(const CompactTrace &t, const SimConfig &c, const std::string &policy);
// The kernel model (kernel_model.cc).
KernelResult naive_kernel(const KernelTrace &t, const KernelConfig &c);

// Small random traces for both models: `bytes` drive every choice (a fuzzer's input), or a
// seeded generator does.
struct RandomTraces {
	CompactTrace thesis;
	KernelTrace kernel;
};
RandomTraces random_traces(const uint8_t *bytes, size_t n);
RandomTraces random_traces(uint64_t seed, size_t events);

} // namespace vramlab
