#include "kmodel/oracle.h"

#include <algorithm>

#include "trace/event.h"

namespace vramlab {

std::vector<uint32_t> oracle_scores(const KernelTrace &kt, uint32_t window)
{
	const uint64_t w = window;
	std::vector<uint64_t> next(kt.size.size(), UINT64_MAX); // next submission naming a BO
	std::vector<uint32_t> s(kt.relocs.size(), kScoreNeutral);
	for (size_t c = kt.cs.size(); c-- > 0;) {
		const KernelCs &cs = kt.cs[c];
		for (uint32_t k = 0; k < cs.n; k++) {
			const uint32_t id = kt.relocs[cs.first + k].id;
			const uint64_t d = next[id] == UINT64_MAX ? w : std::min(w, next[id] - c);
			// the smallest score whose offset is d - 1: ceil(((d - 1) << 32) / w) below neutral
			const uint64_t want = d - 1;
			s[cs.first + k] = want == 0 ? kScoreNeutral
			                            : uint32_t(0xffffffffull - ((want << 32) + w - 1) / w);
		}
		for (uint32_t k = 0; k < cs.n; k++)
			next[kt.relocs[cs.first + k].id] = c;
	}
	return s;
}

KernelTrace with_oracle_scores(const KernelTrace &kt, uint32_t window)
{
	const std::vector<uint32_t> s = oracle_scores(kt, window);
	KernelTrace k = kt;
	for (size_t r = 0; r < k.relocs.size(); r++)
		k.relocs[r].score = s[r];
	for (KernelCs &c : k.cs)
		c.scores = true;
	return k;
}

} // namespace vramlab
