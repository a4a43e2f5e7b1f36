// The offline references of issue 36: what window eviction and admission could reach if the
// kernel knew when each BO is next used. Model only; a row of the decision table with one of
// them says how much of the possible gain an online rule reaches.
//
// - Clairvoyant window choice: among every window of VRAM that holds the BO (any position,
//   not only the walk's LRU prefix; obstacles excluded), the one whose victims are next used
//   latest (the earliest next use among them, as late as possible), then the one that evicts
//   the fewest pages. Belady's rule for one victim, applied to a contiguous set.
// - Clairvoyant admission (with that window): a BO that needs an eviction is left in GTT
//   (when its placement allows GTT) if it is next used later than the window's earliest
//   victim: Belady's bypass.
// Variable sizes make the true optimum NP-hard; these are references, not bounds.
#pragma once
#include <cstdint>
#include <vector>

#include "kmodel/kernel_trace.h"

namespace vramlab {

// When each BO is next named, in submission numbers (trace order, from 0).
struct Future {
	static constexpr uint64_t kNever = UINT64_MAX;
	std::vector<uint64_t> reloc_next; // per relocation of the trace: its BO's next submission
	std::vector<uint64_t> first_use;  // per BO id: its first submission
};
Future trace_future(const KernelTrace &t);

// One allocated node of VRAM, address order.
struct OracleNode {
	uint64_t start, pages, next_use;
	bool movable; // evictable now (not pinned, reserved by this submission or guarded)
};
struct OracleWindow {
	uint64_t start = UINT64_MAX; // UINT64_MAX: no window holds the BO
	uint64_t earliest_next = 0;  // the earliest next use of its victims (kNever: none is used)
	uint64_t pages = 0;          // the pages it evicts
};
// The clairvoyant window for `size` pages in a VRAM of `vram` pages whose nodes are `nodes`
// (sorted by start, not overlapping); ties by position: lowest start, or highest with `high`.
// O(n) after the sort.
OracleWindow clairvoyant_window(const std::vector<OracleNode> &nodes, uint64_t vram, uint64_t size,
                                bool high);

} // namespace vramlab
