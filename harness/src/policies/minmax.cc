// minmax: the thesis's two-ended placement with LRU eviction.
//
//   placement: size >= threshold -> highest hole that fits, at its high end (top-down)
//              otherwise         -> lowest hole that fits, at its low end (bottom-up)
//   eviction:  LRU
//
// Upstream Linux 3.15 took this as TTM_PL_FLAG_TOPDOWN for radeon BOs above 512 KiB.
#include "policies/lru.h"

namespace vramlab {

namespace {
class MinMaxPolicy : public LruPolicy {
public:
	MinMaxPolicy(const CompactTrace &t, const SimConfig &c)
	    : LruPolicy(t, c), size_(t.size.data()), threshold_(c.threshold)
	{
	}
	bool top_down(uint32_t id) const { return size_[id] >= threshold_; }

private:
	const uint64_t *size_;
	uint64_t threshold_;
};
} // namespace

SimResult simulate_minmax(const CompactTrace &t, const SimConfig &c)
{
	return replay<MinMaxPolicy>(t, c);
}

} // namespace vramlab
