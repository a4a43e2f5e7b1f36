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

// A lane policy (sim/replay.h): the statistics, the tick and the refresh schedule do not depend
// on the VRAM size, so several sizes share them; each size has its own heap, and its own keys
// only when the network reads the VRAM size (input 1).
template <bool kByKeyAge> class ScoreLanes {
public:
	ScoreLanes(const CompactTrace &t, const SimConfig &c, std::span<const uint64_t> vram)
	    : t_(t), vram_(vram.begin(), vram.end()), mlp_(weights(c)),
	      nk_(mlp_.uses_input(1) ? vram_.size() : 1), st_(t.size.size()), key_(t.size.size() * nk_),
	      heap_(vram_.size(), IndexedHeap<uint64_t>(t.size.size()))
	{
	}
	void created(uint32_t id, uint32_t)
	{
		tick_++;
		St &s = st_[id];
		s = St{};
		s.last_read = s.last_write = s.last_cpu = s.last_gpu = s.scored = tick_;
		rank(id, s);
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
			rank(id, s);
			s.scored = tick_;
			for (size_t k = 0; k < heap_.size(); k++)
				if (heap_[k].contains(id))
					heap_[k].update(id, key(unsigned(k), id));
		}
	}
	void cpu(uint32_t id)
	{
		st_[id].cpu_ops++;
		st_[id].last_cpu = tick_;
	}
	void inserted(unsigned k, uint32_t id, uint64_t) { heap_[k].push(id, key(k, id)); }
	void touched(unsigned, uint32_t) {}
	void removed(unsigned k, uint32_t id) { heap_[k].erase(id); }
	uint32_t victim(unsigned k, uint32_t, uint64_t) const { return heap_[k].top(); }
	// Lane `to` takes up where lane `from` is (replay_lanes(): it has followed it so far)
	void fork(unsigned from, unsigned to)
	{
		if (nk_ == 1) {
			heap_[to] = heap_[from];
			return;
		}
		IndexedHeap<uint64_t> &h = heap_[to];
		h = IndexedHeap<uint64_t>(st_.size());
		heap_[from].for_each([&](uint32_t id, uint64_t) { h.push(id, key(to, id)); });
	}
	bool admit(unsigned k, uint32_t in, uint32_t victim) const { return key(k, victim) <= key(k, in); }

private:
	static constexpr uint32_t kRefreshTicks = 600;
	// 32 bytes, aligned: one cache line per access. The keys live apart (used on refresh only).
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
	uint64_t key(unsigned k, uint32_t id) const { return key_[id * nk_ + (nk_ == 1 ? 0 : k)]; }
	// key = tick * 10000 + the network's score, once, or once per size if it reads the size
	void rank(uint32_t id, const St &s)
	{
		BufferStats b;
		b.size = t_.size[id];
		b.high_prio = t_.prio[id];
		b.since_read = tick_ - s.last_read;
		b.since_write = tick_ - s.last_write;
		b.since_cpu = tick_ - s.last_cpu;
		b.reads = s.reads;
		b.writes = s.writes;
		b.cpu_ops = s.cpu_ops;
		for (size_t k = 0; k < nk_; k++) {
			b.vram_size = vram_[k];
			key_[id * nk_ + k] = uint64_t(tick_) * 10000 + mlp_.score(b);
		}
	}

	const CompactTrace &t_;
	const std::vector<uint64_t> vram_;
	const MlpPlan mlp_;
	const size_t nk_; // keys per buffer: 1, or one per lane
	std::vector<St> st_;
	std::vector<uint64_t> key_;
	std::vector<IndexedHeap<uint64_t>> heap_; // per lane: the residents by key
	uint32_t tick_ = 0;
};

} // namespace

SimResult simulate_score(const CompactTrace &t, const SimConfig &c)
{
	return replay_lanes<ScoreLanes<false>, 1>(t, c, std::span<const uint64_t>(&c.vram, 1))[0];
}

SimResult simulate_score_age(const CompactTrace &t, const SimConfig &c)
{
	return replay_lanes<ScoreLanes<true>, 1>(t, c, std::span<const uint64_t>(&c.vram, 1))[0];
}

std::vector<SimResult> simulate_score_lanes(const CompactTrace &t, const SimConfig &c,
                                            std::span<const uint64_t> vram)
{
	return replay_lanes<ScoreLanes<false>>(t, c, vram);
}

std::vector<SimResult> simulate_score_age_lanes(const CompactTrace &t, const SimConfig &c,
                                                std::span<const uint64_t> vram)
{
	return replay_lanes<ScoreLanes<true>>(t, c, vram);
}

} // namespace vramlab
