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

} // namespace vramlab
