#include "kmodel/clairvoyant.h"

#include <algorithm>
#include <bit>
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

void sort_belady(std::vector<BeladyCandidate> &c, BeladyScratch &scratch)
{
	const size_t n = c.size();
	for (size_t i = 1; i < n; i++)
		if (c[i - 1].rank >= c[i].rank)
			throw std::logic_error("sort_belady: candidates not in rank order");
	const auto before = [](const BeladyCandidate &x, const BeladyCandidate &y) {
		return belady_before(x, y);
	};
	if (n <= 8) { // a radix pass costs 256 counters
		std::sort(c.begin(), c.end(), before);
		return;
	}
	// Never used again sorts first of all: as the largest finite key plus one it keeps its
	// place and leaves the range small
	uint64_t lo = Future::kNever, hi = 0;
	bool never = false;
	for (const BeladyCandidate &x : c) {
		if (x.next_use == Future::kNever) {
			never = true;
			continue;
		}
		lo = std::min(lo, x.next_use);
		hi = std::max(hi, x.next_use);
	}
	if (lo == Future::kNever)
		return; // all never used again: rank order is Belady's
	const uint64_t top = never ? hi + 1 : hi; // hi < kNever
	const unsigned ib = unsigned(std::bit_width(n - 1));
	const unsigned kb = unsigned(std::bit_width(top - lo));
	if (kb + ib > 64) {
		std::sort(c.begin(), c.end(), before);
		return;
	}
	// (top - key) << ib | index: ascending is Belady's order; an LSD radix sort of the key
	// part is stable, so equal keys stay in index order, which is rank order
	std::vector<uint64_t> &a = scratch.a, &b = scratch.b;
	a.resize(n);
	b.resize(n);
	for (size_t i = 0; i < n; i++) {
		const uint64_t k = c[i].next_use == Future::kNever ? top : c[i].next_use;
		a[i] = (top - k) << ib | i;
	}
	// every digit's counts in one read, then a scatter per digit that is not the same for all
	const unsigned digits = (kb + 7) / 8;
	uint32_t count[8][257];
	std::fill(&count[0][0], &count[digits][0], 0u);
	for (uint64_t v : a)
		for (unsigned d = 0; d < digits; d++)
			count[d][((v >> (ib + 8 * d)) & 0xff) + 1]++;
	for (unsigned d = 0; d < digits; d++) {
		uint32_t *cd = count[d];
		const unsigned shift = ib + 8 * d;
		if (cd[((a[0] >> shift) & 0xff) + 1] == n)
			continue; // one value of this digit: the order stays
		for (int x = 0; x < 256; x++)
			cd[x + 1] += cd[x];
		for (uint64_t v : a)
			b[cd[(v >> shift) & 0xff]++] = v;
		a.swap(b);
	}
	const uint64_t mask = (uint64_t(1) << ib) - 1;
	scratch.out.resize(n);
	for (size_t i = 0; i < n; i++)
		scratch.out[i] = c[a[i] & mask];
	c.swap(scratch.out);
}

} // namespace vramlab
