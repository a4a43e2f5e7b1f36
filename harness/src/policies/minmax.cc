// minmax: the thesis's two-ended placement with LRU eviction, as a function for the tests
// (the command line's "minmax" and "minmax+<eviction>" go through find_policy()).
//
//   placement: size >= threshold -> highest hole that fits, at its high end (top-down)
//              otherwise         -> lowest hole that fits, at its low end (bottom-up)
//
// Upstream Linux 3.15 took this as TTM_PL_FLAG_TOPDOWN for radeon BOs above 512 KiB.
#include "policies/lru.h"

namespace vramlab {

SimResult simulate_minmax(const CompactTrace &t, const SimConfig &c)
{
	SimConfig m = c;
	m.minmax = true;
	return replay<LruPolicy>(t, m);
}

} // namespace vramlab
