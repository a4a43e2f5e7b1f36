// What one simulation takes and gives, and the list of policies.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "mlp/mlp.h"
#include "sim/compact.h"
#include "sim/timeline.h"

namespace vramlab {

struct SimConfig {
	uint64_t vram = 256ull << 20;          // bytes
	bool minmax = false;                   // placement: min-max (else bottom-up)
	uint64_t threshold = 512 << 10;        // min-max: buffers >= this go top-down
	const Mlp *mlp = nullptr;              // score policy weights
	uint32_t check_every = 0;              // check invariants every N entries (0 = never)
	uint32_t timeline_every = 0;           // holes and swaps every N entries (0 = none)
	// Tests: every placement as (buffer id, address), in order. Off the hot path (move-ins only).
	std::vector<std::pair<uint32_t, uint64_t>> *placements = nullptr;
	// Tests: adds the entries that larger lanes of replay_lanes() did not replay because they
	// followed a smaller one.
	uint64_t *followed = nullptr;
};

struct SimResult {
	uint64_t cost = 0;
	uint64_t evictions = 0, evicted_bytes = 0;
	uint64_t eviction_events = 0; // entries that caused at least one eviction
	uint64_t entries = 0;         // entries replayed
	uint64_t moves_in = 0;        // buffers moved into VRAM (creates included)
	uint64_t declined = 0;        // move-ins a policy declined (served from RAM)
	uint64_t frag_sum = 0, frag_samples = 0;
	uint32_t frag_peak = 0;
	Timeline timeline; // with SimConfig::timeline_every
	bool cut = false;
	uint32_t cut_at = 0; // the create the run was cut at
	double frag_mean() const { return frag_samples ? double(frag_sum) / frag_samples : 0; }
};

using SimFn = SimResult (*)(const CompactTrace &, const SimConfig &);
// Several VRAM sizes in one pass (replay_lanes()): element k is the run at vram[k].
using SimLanesFn = std::vector<SimResult> (*)(const CompactTrace &, const SimConfig &,
                                              std::span<const uint64_t> vram);
// An eviction policy (src/policies/registry.cc lists them).
struct PolicyInfo {
	const char *name;
	const char *summary;
	SimFn run;
	SimLanesFn run_lanes = nullptr; // when sizes share work (else one run per size)
};
const std::vector<PolicyInfo> &policies();

// A policy as the command line names it: placement x eviction. "lru", "gdsf", ... place
// bottom-up; "minmax+gdsf" places buffers >= the threshold top-down; "minmax" is minmax+lru.
// A min-max name may end in "@SIZE", its own threshold ("minmax@1M"): else the config's.
struct Policy {
	std::string name;
	const PolicyInfo *eviction;
	bool minmax;
	uint64_t threshold = 0; // 0: the config's
	SimResult run(const CompactTrace &t, const SimConfig &c) const
	{
		return eviction->run(t, placed(c));
	}
	// The runs at each of `vram` (SimConfig::vram ignored), in one pass where the policy
	// shares work between sizes and nothing asks for one run's placements.
	std::vector<SimResult> run_sizes(const CompactTrace &t, const SimConfig &c,
	                                 std::span<const uint64_t> vram) const
	{
		SimConfig p = placed(c);
		if (eviction->run_lanes && !c.placements)
			return eviction->run_lanes(t, p, vram);
		std::vector<SimResult> out;
		for (uint64_t v : vram) {
			p.vram = v;
			out.push_back(eviction->run(t, p));
		}
		return out;
	}

private:
	// the config with this policy's placement (min-max and its threshold)
	SimConfig placed(const SimConfig &c) const
	{
		SimConfig p = c;
		p.minmax = minmax;
		if (threshold)
			p.threshold = threshold;
		return p;
	}
};
Policy find_policy(const std::string &name); // throws std::invalid_argument

SimResult simulate_lru(const CompactTrace &, const SimConfig &);
SimResult simulate_minmax(const CompactTrace &, const SimConfig &);
SimResult simulate_score(const CompactTrace &, const SimConfig &);
SimResult simulate_score_age(const CompactTrace &, const SimConfig &);
std::vector<SimResult> simulate_score_lanes(const CompactTrace &, const SimConfig &,
                                            std::span<const uint64_t> vram);
std::vector<SimResult> simulate_score_age_lanes(const CompactTrace &, const SimConfig &,
                                                std::span<const uint64_t> vram);
SimResult simulate_gdsf(const CompactTrace &, const SimConfig &);
SimResult simulate_belady(const CompactTrace &, const SimConfig &);

} // namespace vramlab
