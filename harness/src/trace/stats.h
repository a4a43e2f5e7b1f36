// Per-trace counts (Appendix A of the thesis) and the corpus-defect counts (trace-format.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "trace/format.h"

namespace vramlab {

struct TraceStats {
	std::string name; // file base name
	uint64_t buffers = 0, runtime_ms = 0, creates = 0, cpu_ops = 0, reads = 0, writes = 0,
	         destroys = 0;
	uint64_t events_on_destroyed = 0; // non-create events on an id already destroyed
	uint64_t repeated_destroys = 0;   // destroys of an id already destroyed (also counted above)
	uint64_t never_used = 0;          // buffers created that never get another event
	uint64_t impossible = 0;          // creates over kImpossibleAbove (filters.h)
	uint64_t impossible_gib_plus = 0; // of those, 1 GiB or more
	uint64_t largest_create = 0;      // bytes
	uint64_t frames = 0;              // v2 FRAME records
	uint64_t cs = 0;                  // v2.1 CS records (each buffer in one counts as a read
	                                  // or, with a write domain, a write)
};

// never_used, if given, receives per buffer id whether it got no entry of its own (what
// Repairer needs), from the same single pass.
TraceStats compute_stats(TraceReader &r, const std::string &name,
                         std::vector<bool> *never_used = nullptr);
std::string base_name(const std::string &path);

} // namespace vramlab
