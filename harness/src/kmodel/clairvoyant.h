// The offline references of issue 36: what window eviction and admission could reach if the
// kernel knew when each BO is next used. Model only; a row of the decision table with one of
// them says how much of the possible gain an online rule reaches.
//
// - Clairvoyant window choice: window eviction's drm_mm scan (the span, the window at its
//   start or top: the same placement rule as the kernel's) fed with every evictable BO in
//   Belady's order (next used last first) instead of the walk's LRU prefix, unbounded. The
//   first span that holds the BO is then the one whose victims' earliest next use is latest
//   among the spans that form in that order: Belady's rule for one victim, applied to a
//   contiguous set.
// - Clairvoyant admission (with that window): a BO that needs an eviction is left in GTT if
//   it is next used later than every victim of that window: Belady's bypass.
// Variable sizes make the true optimum NP-hard; these are references, not bounds.
#pragma once
#include <cstdint>
#include <vector>

#include "kmodel/kernel_trace.h"

namespace vramlab {

// When each BO is next named, in submission numbers (trace order, from 0); a BO named no more
// is "next used" at its destroy (the submissions before it), when its space comes back anyway:
// evicting it gains that space only until then, and costs a copy. Without that, Belady's order
// evicts a BO about to be destroyed first, and a trace that creates a buffer per frame and
// destroys the last one then pays one eviction a frame where LRU pays none (worldofgoo1).
struct Future {
	static constexpr uint64_t kNever = UINT64_MAX;
	std::vector<uint64_t> reloc_next; // per relocation of the trace: its BO's next submission
	std::vector<uint64_t> first_use;  // per BO id: its first submission (or its destroy)
};
Future trace_future(const KernelTrace &t);

// Belady's order for eviction candidates: the BO next used last first (never used again:
// first of all), ties in the walk's order (LRU rank).
struct BeladyCandidate {
	uint64_t next_use;
	uint32_t rank, id;
};
inline bool belady_before(const BeladyCandidate &a, const BeladyCandidate &b)
{
	return a.next_use != b.next_use ? a.next_use > b.next_use : a.rank < b.rank;
}

// Sorts c, given in rank order (ascending; std::logic_error otherwise), into Belady's order:
// the order std::sort with belady_before gives, by a radix sort on next_use (the window scans
// sort a few hundred candidates at every eviction; a comparison sort was most of decide's
// time, docs/models.md "Issue 49"). scratch is reused from call to call.
struct BeladyScratch {
	std::vector<uint64_t> a, b;
	std::vector<BeladyCandidate> out;
};
void sort_belady(std::vector<BeladyCandidate> &c, BeladyScratch &scratch);

} // namespace vramlab
