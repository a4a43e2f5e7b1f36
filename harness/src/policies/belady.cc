// belady: an offline reference that knows the future, adapted to contiguous buffers.
//
//   when b does not fit:
//     for every run of neighbouring address ranges (holes and residents) just long enough to
//     hold b (span > size(b)), take the run's earliest next GPU use of its residents;
//     evict the residents of the run whose earliest next use is the latest
//     (never used again = infinitely far); ties: fewest resident bytes, then lowest address
//   placement: bottom-up first fit
//
// The textbook rule (evict the single buffer used farthest in the future) ignores that a hole
// must be contiguous and evicts far more than LRU here. This is a reference, not an optimum.
// Next-use positions come from a precomputed backward pass over the trace.
#include <deque>
#include <map>

#include "sim/replay.h"

namespace vramlab {

namespace {

class BeladyPolicy {
public:
	BeladyPolicy(const CompactTrace &t, const SimConfig &c)
	    : size_(t.size.data()), vram_(c.vram), next_use_at_(t.ops.size()),
	      next_(t.size.size(), kNever)
	{
		// next_use_at_[i]: position of the next read/write of the buffer of entry i.
		std::vector<uint32_t> upcoming(t.size.size(), kNever);
		for (size_t i = t.ops.size(); i-- > 0;) {
			const uint32_t op = t.ops[i];
			const uint32_t id = op & CompactTrace::kIdMask;
			next_use_at_[i] = upcoming[id];
			const auto type = EventType(op >> CompactTrace::kTypeShift);
			if (type == EventType::Read || type == EventType::Write)
				upcoming[id] = uint32_t(i);
		}
	}
	void created(uint32_t id, uint32_t pos) { next_[id] = next_use_at_[pos]; }
	void gpu(uint32_t id, uint32_t pos, bool) { next_[id] = next_use_at_[pos]; }
	void cpu(uint32_t) {}
	void inserted(uint32_t id, uint64_t addr)
	{
		by_addr_.emplace(addr, id);
		addr_of_.resize(std::max<size_t>(addr_of_.size(), id + 1));
		addr_of_[id] = addr;
		run_.clear();
	}
	void touched(uint32_t) {}
	void removed(uint32_t id) { by_addr_.erase(addr_of_[id]); }
	uint32_t victim(uint32_t, uint64_t b)
	{
		if (run_.empty())
			choose_run(b);
		if (run_.empty())
			return kNoBuffer;
		const uint32_t v = run_.front();
		run_.pop_front();
		return v;
	}
	bool admit(uint32_t, uint32_t) const { return true; }

private:
	static constexpr uint32_t kNever = UINT32_MAX;
	struct Block {
		uint64_t start, end;
		uint32_t id; // kNoBuffer for a hole
	};

	void choose_run(uint64_t b)
	{
		// The address space as alternating holes and residents.
		blocks_.clear();
		uint64_t at = 0;
		for (auto &[addr, id] : by_addr_) {
			if (addr > at)
				blocks_.push_back({at, addr, kNoBuffer});
			blocks_.push_back({addr, addr + size_[id], id});
			at = addr + size_[id];
		}
		if (at < vram_)
			blocks_.push_back({at, vram_, kNoBuffer});

		// Slide a window [i, j]: for each start i the shortest run whose span exceeds b.
		// The deque keeps the residents of the window by increasing next use (sliding minimum).
		std::deque<size_t> mins;
		size_t j = 0, best_i = SIZE_MAX, best_j = 0;
		uint32_t best_use = 0;
		uint64_t best_bytes = 0, bytes = 0;
		for (size_t i = 0; i < blocks_.size(); i++) {
			if (j < i) {
				j = i;
				bytes = 0;
				mins.clear();
			}
			while (j < blocks_.size() && (j == i || blocks_[j - 1].end - blocks_[i].start <= b))
				add(j++, mins, bytes);
			if (blocks_[j - 1].end - blocks_[i].start > b && !mins.empty()) {
				const uint32_t use = next_[blocks_[mins.front()].id];
				if (best_i == SIZE_MAX || use > best_use ||
				    (use == best_use && bytes < best_bytes)) {
					best_i = i;
					best_j = j;
					best_use = use;
					best_bytes = bytes;
				}
			}
			// Slide the start past block i.
			if (blocks_[i].id != kNoBuffer) {
				bytes -= blocks_[i].end - blocks_[i].start;
				if (!mins.empty() && mins.front() == i)
					mins.pop_front();
			}
		}
		run_.clear();
		if (best_i == SIZE_MAX)
			return;
		for (size_t k = best_i; k < best_j; k++)
			if (blocks_[k].id != kNoBuffer)
				run_.push_back(blocks_[k].id);
	}

	void add(size_t k, std::deque<size_t> &mins, uint64_t &bytes) const
	{
		const Block &blk = blocks_[k];
		if (blk.id == kNoBuffer)
			return;
		bytes += blk.end - blk.start;
		const uint32_t use = next_[blk.id];
		while (!mins.empty() && next_[blocks_[mins.back()].id] >= use)
			mins.pop_back();
		mins.push_back(k);
	}

	const uint64_t *size_;
	uint64_t vram_;
	std::vector<uint32_t> next_use_at_; // per entry
	std::vector<uint32_t> next_;        // per buffer: position of its next GPU use
	std::vector<uint64_t> addr_of_;
	std::map<uint64_t, uint32_t> by_addr_;
	std::vector<Block> blocks_;
	std::deque<uint32_t> run_;
};

} // namespace

SimResult simulate_belady(const CompactTrace &t, const SimConfig &c)
{
	return replay<BeladyPolicy>(t, c);
}

} // namespace vramlab
