// Re-attribution of the events the thesis converter wrote under a destroyed buffer's index
// (trace-format.md). The converter named a buffer by the FIRST buffer ever created at its driver
// address, so a later buffer at a recycled address kept its create entry but every other event of
// it went to the first buffer's index. We undo that: an event on a destroyed index belongs to a
// buffer created after that destroy that never received an entry of its own (a "candidate").
// Rule when several candidates exist (ambiguous): the earliest-created one, because malloc hands a
// just-freed address to the next allocation. Only ids change; every count of Appendix A stays.
#pragma once
#include <cstdint>
#include <set>
#include <vector>

#include "trace/event.h"

namespace vramlab {

struct RepairReport {
	uint64_t moved = 0;      // events given to another buffer
	uint64_t claimed = 0;    // candidates that became the owner of an address
	uint64_t ambiguous = 0;  // claims made with more than one candidate available
	uint64_t unresolved = 0; // events on a destroyed id with no candidate: left in place
};

class Repairer {
public:
	// never_used[i]: buffer i receives no entry of its own in the input (first pass).
	explicit Repairer(std::vector<bool> never_used);
	// Returns the id the event belongs to (Create events pass through).
	uint32_t map(EventType t, uint32_t id);
	const RepairReport &report() const { return rep_; }

private:
	struct Slot {
		uint32_t owner;
		bool dead = false;
		uint32_t freed_at = 0; // creates seen when the owner was destroyed
	};
	std::vector<bool> never_used_;
	std::vector<Slot> slots_; // per index written in the input
	std::set<uint32_t> pending_;
	uint32_t creates_ = 0;
	RepairReport rep_;
};

} // namespace vramlab
