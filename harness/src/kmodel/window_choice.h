// Which window of a span window eviction takes (issue 36, "weigh the victims"). The scan stops
// at the first span of candidates and holes that can hold the BO (the walk's LRU prefix, so
// never more bytes than the walk would evict); the first rule places the BO at the span's
// start (top-down: its end), whatever that evicts. The lightest window is the placement inside
// the same span whose overlapped candidates weigh least: pages x (rank + 1), rank 0 being the
// least recently used candidate, so a window of cold bytes is cheaper than one of hot bytes.
// Kept out of kernel_model.cc: one rule, one file, a pure function the tests call directly.
#pragma once
#include <cstdint>
#include <span>

namespace vramlab {

struct WindowCandidate {
	uint64_t start = 0, pages = 0; // where it lies in VRAM (pages)
	uint32_t rank = 0;             // its position in the scan: 0 = least recently used
};

// Among the windows [s, s + size) inside the span [l, r) (r - l >= size), the start of the one
// whose overlapped candidates weigh least; ties go to the lowest start, or the highest with
// `high` (a top-down BO). `in_span`: every candidate inside the span, any order (the span holds
// only candidates and holes). With `ends_only`, only the two windows that leave the rest of the
// span in one piece (at its start or at its end) are weighed. O(k log k) for k candidates.
uint64_t lightest_window(uint64_t l, uint64_t r, uint64_t size,
                         std::span<const WindowCandidate> in_span, bool high,
                         bool ends_only = false);

} // namespace vramlab
