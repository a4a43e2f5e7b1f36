// Runs many traces x VRAM sizes x policies on a few threads. Each trace is decoded once and
// shared by all its runs; at most two traces are held at a time (the one running, the next one
// loading), so a corpus never has to fit in memory.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "sim/sim.h"

namespace vramlab {

struct RunSpec {
	std::vector<std::string> traces;
	std::vector<std::string> policies;
	std::vector<uint64_t> vram_mib;
	SimConfig config;
	ReplayOptions replay; // both corpus defects (filters.h); Exclude leaves a damaged trace out
	unsigned threads = 1;
	bool progress = false; // draw a progress line on stderr
};

struct RunRow {
	std::string trace, policy;
	uint64_t vram_mib = 0;
	uint64_t skipped = 0; // events on destroyed ids left out of this trace
	SimResult r;
};

struct TraceLoad {
	std::string trace;
	uint64_t entries = 0, skipped = 0;
	RepairReport repair;
	uint64_t impossible = 0, impossible_events = 0; // impossible creates; events dropped with them
	bool excluded = false; // OnImpossible::Exclude and the trace has impossible creates
};

struct RunOutput {
	std::vector<RunRow> rows; // trace order, then VRAM size, then policy order (excluded: none)
	std::vector<TraceLoad> loads;
	double seconds = 0;
	uint64_t replayed = 0; // entries replayed over all runs
};

RunOutput run_all(const RunSpec &spec);

// Expands directories into their trace files (sorted); keeps files as they are.
std::vector<std::string> expand_traces(const std::vector<std::string> &args);

} // namespace vramlab
