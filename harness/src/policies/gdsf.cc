// gdsf: Greedy-Dual-Size-Frequency with the thesis's cost model.
//
//   H(b) = L + freq(b) * move_cost(b) / size(b)       move_cost = 18 B + 1.5 latency (clamped)
//   on create / GPU access of b:  freq(b)++, H(b) recomputed
//   victim:                       the resident buffer with the lowest H
//   on eviction of v:             L = H(v)   (ageing: the old values deflate over time)
//   placement:                    bottom-up first fit
//
// freq counts every create and GPU access since the buffer was created. Ties: lowest id.
#include "sim/heap.h"
#include "sim/replay.h"

namespace vramlab {

namespace {

class GdsfPolicy {
public:
	GdsfPolicy(const CompactTrace &t, const SimConfig &)
	    : size_(t.size.data()), freq_(t.size.size(), 0), heap_(t.size.size())
	{
	}
	void created(uint32_t id, uint32_t) { freq_[id] = 1; }
	void gpu(uint32_t id, uint32_t, bool) { freq_[id]++; }
	void cpu(uint32_t) {}
	void inserted(uint32_t id, uint64_t) { heap_.push(id, value(id)); }
	void touched(uint32_t id) { heap_.update(id, value(id)); }
	void removed(uint32_t id)
	{
		if (evicting_ == id) {
			inflation_ = heap_.key(id);
			evicting_ = kNoBuffer;
		}
		heap_.erase(id);
	}
	uint32_t victim(uint32_t, uint64_t)
	{
		evicting_ = heap_.top();
		return evicting_;
	}
	bool admit(uint32_t, uint32_t) const { return true; }

private:
	double value(uint32_t id) const
	{
		const double b = double(size_[id]);
		return inflation_ + double(freq_[id]) * double(cost::move(size_[id])) / b;
	}
	const uint64_t *size_;
	std::vector<uint32_t> freq_;
	IndexedHeap<double> heap_;
	double inflation_ = 0;
	uint32_t evicting_ = kNoBuffer;
};

} // namespace

SimResult simulate_gdsf(const CompactTrace &t, const SimConfig &c) { return replay<GdsfPolicy>(t, c); }

} // namespace vramlab
