// lru: evict the least recently used resident buffer (recency = last create or GPU access).
//
//   on create / GPU access of b:  move b to the front of the list
//   victim:                       the back of the list
//   placement:                    bottom-up first fit
//
// An intrusive doubly linked list over buffer ids: every operation is O(1).
#pragma once
#include <vector>

#include "sim/replay.h"

namespace vramlab {

class LruPolicy {
public:
	LruPolicy(const CompactTrace &t, const SimConfig &) : prev_(t.size.size()), next_(t.size.size())
	{
	}
	void created(uint32_t, uint32_t) {}
	void gpu(uint32_t, uint32_t, bool) {}
	void cpu(uint32_t) {}
	void inserted(uint32_t id, uint64_t) { push_front(id); }
	void touched(uint32_t id)
	{
		if (head_ == id)
			return;
		unlink(id);
		push_front(id);
	}
	void removed(uint32_t id) { unlink(id); }
	uint32_t victim(uint32_t, uint64_t) const { return tail_; }
	bool admit(uint32_t, uint32_t) const { return true; }

private:
	void push_front(uint32_t id)
	{
		prev_[id] = kNoBuffer;
		next_[id] = head_;
		if (head_ != kNoBuffer)
			prev_[head_] = id;
		else
			tail_ = id;
		head_ = id;
	}
	void unlink(uint32_t id)
	{
		const uint32_t p = prev_[id], n = next_[id];
		if (p != kNoBuffer)
			next_[p] = n;
		else
			head_ = n;
		if (n != kNoBuffer)
			prev_[n] = p;
		else
			tail_ = p;
	}
	std::vector<uint32_t> prev_, next_;
	uint32_t head_ = kNoBuffer, tail_ = kNoBuffer;
};

} // namespace vramlab
