#include "kmodel/clairvoyant.h"

#include <algorithm>
#include <deque>
#include <stdexcept>

namespace vramlab {

Future trace_future(const KernelTrace &t)
{
	Future f;
	f.reloc_next.assign(t.relocs.size(), Future::kNever);
	f.first_use.assign(t.size.size(), Future::kNever);
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

OracleWindow clairvoyant_window(const std::vector<OracleNode> &nodes, uint64_t vram, uint64_t size,
                                bool high)
{
	OracleWindow best;
	if (size == 0 || size > vram)
		return best;
	const size_t n = nodes.size();
	// Where the victims change: a window starting at 0, ending at the top, starting right
	// after a node or ending right at one's start.
	std::vector<uint64_t> starts{0, vram - size};
	for (const OracleNode &x : nodes) {
		if (x.start + x.pages + size <= vram)
			starts.push_back(x.start + x.pages);
		if (x.start >= size)
			starts.push_back(x.start - size);
	}
	std::sort(starts.begin(), starts.end());
	starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
	std::vector<uint64_t> pages(n + 1, 0), blocked(n + 1, 0); // prefix sums
	for (size_t i = 0; i < n; i++) {
		pages[i + 1] = pages[i] + nodes[i].pages;
		blocked[i + 1] = blocked[i] + !nodes[i].movable;
	}
	std::deque<size_t> mins; // node indexes of [first, last), next uses increasing
	size_t first = 0, last = 0;
	for (uint64_t s : starts) {
		while (first < n && nodes[first].start + nodes[first].pages <= s)
			first++;
		while (last < n && nodes[last].start < s + size) {
			while (!mins.empty() && nodes[mins.back()].next_use >= nodes[last].next_use)
				mins.pop_back();
			mins.push_back(last++);
		}
		while (!mins.empty() && mins.front() < first)
			mins.pop_front();
		if (last > first && blocked[last] != blocked[first])
			continue; // an obstacle in the window
		const uint64_t earliest = mins.empty() || last <= first ? Future::kNever
		                                                        : nodes[mins.front()].next_use;
		const uint64_t p = last > first ? pages[last] - pages[first] : 0;
		const bool better = best.start == UINT64_MAX || earliest > best.earliest_next ||
		                    (earliest == best.earliest_next &&
		                     (p < best.pages || (p == best.pages && high && s > best.start)));
		if (better)
			best = {s, earliest, p};
	}
	return best;
}

} // namespace vramlab
