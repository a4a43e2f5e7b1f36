// A trace decoded once into the compact form every simulation replays: 4 bytes an entry.
// Frames, scores and contexts are dropped (the model has no use for them); events on destroyed
// ids are skipped or repaired here (ReplayReader), once, not in the replay loop, and counted.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "trace/filters.h"
#include "trace/format.h"
#include "trace/repair.h"

namespace vramlab {

struct CompactTrace {
	static constexpr unsigned kTypeShift = 29;
	static constexpr uint32_t kIdMask = (1u << kTypeShift) - 1;
	static uint32_t pack(EventType t, uint32_t id) { return uint32_t(t) << kTypeShift | id; }

	std::string name;
	std::vector<uint32_t> ops;   // type << 29 | buffer id; only create/read/write/cpu/destroy
	std::vector<uint64_t> size;  // per buffer
	std::vector<uint8_t> prio;   // per buffer: high priority (create flag or a v2.2 use; 0/1)
	uint64_t skipped = 0;        // events on destroyed ids left out
	std::vector<uint64_t> skipped_at_create; // of those, before the k-th create (cut runs)
	RepairReport repair;         // what repair did (OnDestroyed::Repair)
	uint64_t impossible = 0;     // impossible creates in the source (filters.h), kept or skipped
	uint64_t impossible_events = 0; // with OnImpossible::Skip: later events on them dropped
	bool truncated = false;      // a v2 file cut short, read up to its last FRAME
};

CompactTrace load_compact(const std::string &path, ReplayOptions opt);
CompactTrace load_compact(const ReplayReader::Opener &open, const std::string &name,
                          ReplayOptions opt);

} // namespace vramlab
