#include "kmodel/clairvoyant.h"

#include <algorithm>
#include <stdexcept>

namespace vramlab {

Future trace_future(const KernelTrace &t)
{
	Future f;
	f.reloc_next.assign(t.relocs.size(), Future::kNever);
	f.first_use.assign(t.size.size(), Future::kNever);
	// A BO's destroy ends its life: with no use after it, its space comes back then, so it
	// counts as its next use (the number of submissions before the destroy). Ids are never
	// reused: nothing names a BO after its destroy.
	uint64_t cs_before = 0;
	for (uint32_t op : t.ops) {
		const uint32_t arg = op & KernelTrace::kMask;
		switch (KernelTrace::Op(op >> KernelTrace::kShift)) {
		case KernelTrace::Cs: cs_before++; break;
		case KernelTrace::Destroy:
			if (arg < f.first_use.size() && f.first_use[arg] == Future::kNever)
				f.first_use[arg] = cs_before;
			break;
		default: break;
		}
	}
	for (size_t c = t.cs.size(); c-- > 0;) {
		const KernelCs &cs = t.cs[c];
		if (cs.first + uint64_t(cs.n) > t.relocs.size())
			throw std::logic_error("trace_future: a submission's relocations lie outside the trace");
		// all of a submission's relocations first (a BO it names twice is next used later,
		// not by itself), then their BOs' first use is this submission
		for (uint32_t k = 0; k < cs.n; k++) {
			const uint32_t id = t.relocs[cs.first + k].id;
			if (id < f.first_use.size())
				f.reloc_next[cs.first + k] = f.first_use[id];
		}
		for (uint32_t k = 0; k < cs.n; k++) {
			const uint32_t id = t.relocs[cs.first + k].id;
			if (id < f.first_use.size())
				f.first_use[id] = c;
		}
	}
	return f;
}

uint64_t cheapest_window(const std::vector<OracleNode> &nodes, uint64_t vram, uint64_t size,
                         bool high)
{
	if (size == 0 || size > vram)
		return UINT64_MAX;
	const size_t n = nodes.size();
	// windows aligned where the kernel's scan aligns them: at the bottom of a hole or node
	// (best fit), or ending at the top of one (top-down)
	std::vector<uint64_t> starts;
	auto add = [&](uint64_t edge) {
		if (!high && edge + size <= vram)
			starts.push_back(edge);
		if (high && edge >= size)
			starts.push_back(edge - size);
	};
	add(high ? vram : 0);
	for (const OracleNode &x : nodes) {
		add(x.start);
		add(x.start + x.pages);
	}
	std::sort(starts.begin(), starts.end());
	starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
	std::vector<uint64_t> cost(n + 1, 0), blocked(n + 1, 0); // prefix sums in address order
	for (size_t i = 0; i < n; i++) {
		cost[i + 1] = cost[i] + nodes[i].pages * (nodes[i].next_use == Future::kNever ? 1 : 2);
		blocked[i + 1] = blocked[i] + !nodes[i].movable;
	}
	uint64_t best = UINT64_MAX, best_cost = UINT64_MAX;
	size_t first = 0, last = 0;
	for (uint64_t s : starts) {
		while (first < n && nodes[first].start + nodes[first].pages <= s)
			first++;
		while (last < n && nodes[last].start < s + size)
			last++;
		const size_t lo = std::min(first, last);
		if (blocked[last] != blocked[lo])
			continue; // an obstacle in the window
		const uint64_t w = cost[last] - cost[lo];
		if (w < best_cost || (w == best_cost && high)) { // ascending: high keeps the last
			best = s;
			best_cost = w;
		}
	}
	return best;
}

} // namespace vramlab
