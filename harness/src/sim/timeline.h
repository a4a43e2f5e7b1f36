// Fragmentation and swapping over one replay, for the thesis's Figures 7-15 (a line of holes
// over time with a bar wherever eviction happened). Every `every` operations make one point:
// the fewest and the most holes seen in them (the thesis's "dense vertical movement" of a
// thrashing run shows as a wide band) and how many of them evicted. Both models feed it one
// call per operation, so a point covers the same operations in either.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace vramlab {

struct Timeline {
	uint32_t every = 0; // operations per point; 0: not recorded
	std::vector<uint32_t> holes_min, holes_max, swaps;
	uint64_t ops = 0; // operations added

	// One operation done: the holes in VRAM after it, and whether it evicted anything.
	void add(uint32_t holes, bool evicted)
	{
		lo_ = std::min(lo_, holes);
		hi_ = std::max(hi_, holes);
		sw_ += evicted;
		ops++;
		if (++n_ == every)
			flush();
	}
	// Closes a last, partial point (a replay's end).
	void finish()
	{
		if (n_)
			flush();
	}
	size_t points() const { return swaps.size(); }

private:
	void flush()
	{
		holes_min.push_back(lo_);
		holes_max.push_back(hi_);
		swaps.push_back(sw_);
		n_ = sw_ = hi_ = 0;
		lo_ = UINT32_MAX;
	}
	uint32_t n_ = 0, sw_ = 0, lo_ = UINT32_MAX, hi_ = 0;
};

} // namespace vramlab
