// What two runs of the same model must agree on, as text ("" when they agree).
#pragma once
#include <string>

#include "kmodel/kernel_model.h"
#include "sim/sim.h"

namespace vramlab {

inline std::string differ(const SimResult &a, const SimResult &b)
{
#define VRAMLAB_CMP(f)                                                                       \
	if (a.f != b.f)                                                                      \
		return #f ": " + std::to_string(a.f) + " vs " + std::to_string(b.f);
	VRAMLAB_CMP(cost)
	VRAMLAB_CMP(evictions)
	VRAMLAB_CMP(evicted_bytes)
	VRAMLAB_CMP(eviction_events)
	VRAMLAB_CMP(entries)
	VRAMLAB_CMP(moves_in)
	VRAMLAB_CMP(declined)
	VRAMLAB_CMP(frag_sum)
	VRAMLAB_CMP(frag_samples)
	VRAMLAB_CMP(frag_peak)
	VRAMLAB_CMP(cut)
	return "";
}

inline std::string differ(const KernelResult &a, const KernelResult &b)
{
	for (int m = 0; m < 3; m++)
		if (!(a.mem[m] == b.mem[m]))
			return "memory type " + std::to_string(m) + " counters";
	VRAMLAB_CMP(cs)
	VRAMLAB_CMP(cs_rejected)
	VRAMLAB_CMP(creates)
	VRAMLAB_CMP(creates_refused)
	VRAMLAB_CMP(cpu_maps)
	VRAMLAB_CMP(destroys)
	VRAMLAB_CMP(threshold_cs)
	VRAMLAB_CMP(threshold_bos)
	VRAMLAB_CMP(gtt_accesses)
	VRAMLAB_CMP(gtt_access_bytes)
	VRAMLAB_CMP(vram_in_from_gtt)
	VRAMLAB_CMP(stamp)
	VRAMLAB_CMP(windows)
	VRAMLAB_CMP(window_fallbacks)
	VRAMLAB_CMP(window_escalations)
	VRAMLAB_CMP(window_repack_scans)
	VRAMLAB_CMP(window_repacks)
	VRAMLAB_CMP(window_nofit)
	VRAMLAB_CMP(window_saved_pages)
	VRAMLAB_CMP(window_cold)
	VRAMLAB_CMP(window_idle)
	VRAMLAB_CMP(admit_bypasses)
	VRAMLAB_CMP(admit_cost_tests)
	VRAMLAB_CMP(admit_same_from)
	VRAMLAB_CMP(admit_same_to)
	VRAMLAB_CMP(guards)
	VRAMLAB_CMP(guard_refusals)
	VRAMLAB_CMP(impossible_noevict)
	VRAMLAB_CMP(digest)
#undef VRAMLAB_CMP
	return "";
}

} // namespace vramlab
