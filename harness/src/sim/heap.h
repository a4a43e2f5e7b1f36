// An indexed binary min-heap over buffer ids: push, update and erase by id in O(log n).
// Each slot holds its key beside its id, so a sift compares neighbouring slots instead of
// loading two keys through two ids (one cache miss less per level on a large heap).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vramlab {

template <class Key> class IndexedHeap {
public:
	explicit IndexedHeap(size_t ids) : pos_(ids, kAbsent) {}
	bool empty() const { return heap_.empty(); }
	size_t size() const { return heap_.size(); }
	bool contains(uint32_t id) const { return pos_[id] != kAbsent; }
	uint32_t top() const { return heap_.empty() ? UINT32_MAX : heap_[0].id; }
	// f(id, key) for every id in the heap, in no particular order.
	template <class F> void for_each(F &&f) const
	{
		for (const Slot &s : heap_)
			f(s.id, s.key);
	}
	// The key of an id in the heap.
	const Key &key(uint32_t id) const { return heap_[pos_[id]].key; }
	void push(uint32_t id, Key k)
	{
		heap_.push_back({k, id});
		up(uint32_t(heap_.size() - 1));
	}
	void update(uint32_t id, Key k)
	{
		const uint32_t i = pos_[id];
		const Key old = heap_[i].key;
		heap_[i].key = k;
		if (k < old)
			up(i);
		else
			down(i);
	}
	void erase(uint32_t id)
	{
		const uint32_t i = pos_[id];
		const Slot last = heap_.back();
		heap_.pop_back();
		pos_[id] = kAbsent;
		if (last.id == id)
			return;
		heap_[i] = last;
		pos_[last.id] = i;
		up(i);
		down(pos_[last.id]);
	}

	// The heap order and the positions (tests). Returns an error text or "".
	const char *check() const
	{
		for (uint32_t i = 0; i < heap_.size(); i++) {
			if (pos_[heap_[i].id] != i)
				return "a position is out of date";
			if (i && less(heap_[i], heap_[(i - 1) / 2]))
				return "a slot is less than its parent";
		}
		size_t n = 0;
		for (uint32_t p : pos_)
			n += p != kAbsent;
		return n == heap_.size() ? "" : "an absent id has a position";
	}

private:
	static constexpr uint32_t kAbsent = UINT32_MAX;
	struct Slot {
		Key key;
		uint32_t id;
	};
	// Ties go to the lower id, so results never depend on insertion history quirks.
	static bool less(const Slot &a, const Slot &b)
	{
		return a.key < b.key || (!(b.key < a.key) && a.id < b.id);
	}
	void up(uint32_t i)
	{
		const Slot s = heap_[i];
		while (i) {
			const uint32_t parent = (i - 1) / 2;
			if (!less(s, heap_[parent]))
				break;
			heap_[i] = heap_[parent];
			pos_[heap_[i].id] = i;
			i = parent;
		}
		heap_[i] = s;
		pos_[s.id] = i;
	}
	void down(uint32_t i)
	{
		const Slot s = heap_[i];
		const uint32_t n = uint32_t(heap_.size());
		for (;;) {
			uint32_t c = 2 * i + 1;
			if (c >= n)
				break;
			if (c + 1 < n && less(heap_[c + 1], heap_[c]))
				c++;
			if (!less(heap_[c], s))
				break;
			heap_[i] = heap_[c];
			pos_[heap_[i].id] = i;
			i = c;
		}
		heap_[i] = s;
		pos_[s.id] = i;
	}
	std::vector<Slot> heap_;
	std::vector<uint32_t> pos_;
};

} // namespace vramlab
