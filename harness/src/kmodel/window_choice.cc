#include "kmodel/window_choice.h"

#include <algorithm>
#include <vector>

namespace vramlab {

uint64_t lightest_window(uint64_t l, uint64_t r, uint64_t size,
                         std::span<const WindowCandidate> in_span, bool high, bool ends_only)
{
	std::vector<WindowCandidate> c(in_span.begin(), in_span.end());
	std::sort(c.begin(), c.end(),
	          [](const WindowCandidate &a, const WindowCandidate &b) { return a.start < b.start; });
	std::vector<uint64_t> prefix(c.size() + 1, 0); // weights summed in address order
	for (size_t i = 0; i < c.size(); i++)
		prefix[i + 1] = prefix[i] + c[i].pages * (uint64_t(c[i].rank) + 1);
	// weight of the candidates overlapping [s, s + size): a contiguous run in address order
	auto cost = [&](uint64_t s) {
		const auto first = std::partition_point(c.begin(), c.end(), [&](const WindowCandidate &x) {
			return x.start + x.pages <= s;
		});
		const auto last = std::partition_point(c.begin(), c.end(), [&](const WindowCandidate &x) {
			return x.start < s + size;
		});
		return first < last ? prefix[size_t(last - c.begin())] - prefix[size_t(first - c.begin())]
		                    : 0;
	};
	// The cost changes only where a window edge crosses a candidate's edge: the span's ends,
	// right after a candidate, or ending right at one, are every start worth trying.
	std::vector<uint64_t> starts{l, r - size};
	for (const WindowCandidate &x : ends_only ? std::span<const WindowCandidate>() : c) {
		if (x.start + x.pages + size <= r)
			starts.push_back(x.start + x.pages);
		if (x.start >= l + size)
			starts.push_back(x.start - size);
	}
	uint64_t best = high ? r - size : l, best_cost = cost(best);
	for (uint64_t s : starts) {
		const uint64_t w = cost(s);
		if (w < best_cost || (w == best_cost && (high ? s > best : s < best))) {
			best = s;
			best_cost = w;
		}
	}
	return best;
}

} // namespace vramlab
