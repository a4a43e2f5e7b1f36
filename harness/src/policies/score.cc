// score: the thesis's neural-network ranking (docs/score.md).
//
//   on create of b:      key[b] = tick * 10000 + mlp(stats of b)
//   on GPU access of b:  if tick - last GPU access (or create) of b > 600:
//                            key[b] = tick * 10000 + mlp(stats including this access)
//   victim:              the resident buffer with the lowest key
//   admit b:             only if the victim's key <= key[b]; otherwise b is served from RAM
//   placement:           bottom-up first fit
//
// A tick is one replayed create, read or write. Residents sit in an indexed min-heap by key.
//
// score-age differs in one line: it refreshes when the key itself is more than 600 ticks old,
// so a buffer used every frame keeps a fresh key (the rule as written, `score`, never refreshes
// a buffer that is used at least every 600 ticks, which ranks busy buffers as old).
#include <stdexcept>

#include "sim/heap.h"
#include "sim/replay.h"

namespace vramlab {

namespace {

template <bool kByKeyAge> class ScorePolicy {
public:
	ScorePolicy(const CompactTrace &t, const SimConfig &c)
	    : t_(t), vram_(c.vram), mlp_(weights(c)), st_(t.size.size()), key_(t.size.size()), heap_(t.size.size())
	{
	}
	void created(uint32_t id, uint32_t)
	{
		tick_++;
		St &s = st_[id];
		s = St{};
		s.last_read = s.last_write = s.last_cpu = s.last_gpu = s.scored = tick_;
		key_[id] = rank(id, s);
	}
	void gpu(uint32_t id, uint32_t, bool write)
	{
		tick_++;
		St &s = st_[id];
		const bool refresh = tick_ - (kByKeyAge ? s.scored : s.last_gpu) > kRefreshTicks;
		if (write) {
			s.writes++;
			s.last_write = tick_;
		} else {
			s.reads++;
			s.last_read = tick_;
		}
		s.last_gpu = tick_;
		if (refresh) { // from the statistics including this access, as Mesa does at flush
			key_[id] = rank(id, s);
			s.scored = tick_;
			if (heap_.contains(id))
				heap_.update(id, key_[id]);
		}
	}
	void cpu(uint32_t id)
	{
		st_[id].cpu_ops++;
		st_[id].last_cpu = tick_;
	}
	void inserted(uint32_t id, uint64_t) { heap_.push(id, key_[id]); }
	void touched(uint32_t) {}
	void removed(uint32_t id) { heap_.erase(id); }
	uint32_t victim(uint32_t, uint64_t) const { return heap_.top(); }
	bool admit(uint32_t in, uint32_t victim) const { return key_[victim] <= key_[in]; }

private:
	static constexpr uint32_t kRefreshTicks = 600;
	// 32 bytes, aligned: one cache line per access. The key lives apart (used on refresh only).
	struct alignas(32) St {
		uint32_t reads = 0, writes = 0, cpu_ops = 0;
		uint32_t last_read = 0, last_write = 0, last_cpu = 0, last_gpu = 0;
		uint32_t scored = 0; // tick of the last key computation
	};
	static const Mlp &weights(const SimConfig &c)
	{
		if (!c.mlp)
			throw std::invalid_argument("the score policy needs weights");
		return *c.mlp;
	}
	uint64_t rank(uint32_t id, const St &s) const
	{
		BufferStats b;
		b.size = t_.size[id];
		b.vram_size = vram_;
		b.high_prio = t_.prio[id];
		b.since_read = tick_ - s.last_read;
		b.since_write = tick_ - s.last_write;
		b.since_cpu = tick_ - s.last_cpu;
		b.reads = s.reads;
		b.writes = s.writes;
		b.cpu_ops = s.cpu_ops;
		return uint64_t(tick_) * 10000 + mlp_.score(b);
	}

	const CompactTrace &t_;
	uint64_t vram_;
	const MlpPlan mlp_;
	std::vector<St> st_;
	std::vector<uint64_t> key_;
	IndexedHeap<uint64_t> heap_;
	uint32_t tick_ = 0;
};

} // namespace

SimResult simulate_score(const CompactTrace &t, const SimConfig &c)
{
	return replay<ScorePolicy<false>>(t, c);
}

SimResult simulate_score_age(const CompactTrace &t, const SimConfig &c)
{
	return replay<ScorePolicy<true>>(t, c);
}

} // namespace vramlab
