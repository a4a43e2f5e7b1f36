// An indexed binary min-heap over buffer ids: push, update and erase by id in O(log n).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vramlab {

template <class Key> class IndexedHeap {
public:
	explicit IndexedHeap(size_t ids) : pos_(ids, kAbsent), key_(ids) {}
	bool empty() const { return heap_.empty(); }
	size_t size() const { return heap_.size(); }
	bool contains(uint32_t id) const { return pos_[id] != kAbsent; }
	uint32_t top() const { return heap_.empty() ? UINT32_MAX : heap_[0]; }
	const Key &key(uint32_t id) const { return key_[id]; }
	void push(uint32_t id, Key k)
	{
		key_[id] = k;
		pos_[id] = uint32_t(heap_.size());
		heap_.push_back(id);
		up(pos_[id]);
	}
	void update(uint32_t id, Key k)
	{
		const Key old = key_[id];
		key_[id] = k;
		if (k < old)
			up(pos_[id]);
		else
			down(pos_[id]);
	}
	void erase(uint32_t id)
	{
		const uint32_t i = pos_[id];
		const uint32_t last = heap_.back();
		heap_.pop_back();
		pos_[id] = kAbsent;
		if (last == id)
			return;
		heap_[i] = last;
		pos_[last] = i;
		up(i);
		down(pos_[last]);
	}

private:
	static constexpr uint32_t kAbsent = UINT32_MAX;
	// Ties go to the lower id, so results never depend on insertion history quirks.
	bool less(uint32_t a, uint32_t b) const
	{
		return key_[a] < key_[b] || (!(key_[b] < key_[a]) && a < b);
	}
	void up(uint32_t i)
	{
		const uint32_t id = heap_[i];
		while (i) {
			const uint32_t parent = (i - 1) / 2;
			if (!less(id, heap_[parent]))
				break;
			heap_[i] = heap_[parent];
			pos_[heap_[i]] = i;
			i = parent;
		}
		heap_[i] = id;
		pos_[id] = i;
	}
	void down(uint32_t i)
	{
		const uint32_t id = heap_[i];
		const uint32_t n = uint32_t(heap_.size());
		for (;;) {
			uint32_t c = 2 * i + 1;
			if (c >= n)
				break;
			if (c + 1 < n && less(heap_[c + 1], heap_[c]))
				c++;
			if (!less(heap_[c], id))
				break;
			heap_[i] = heap_[c];
			pos_[heap_[i]] = i;
			i = c;
		}
		heap_[i] = id;
		pos_[id] = i;
	}
	std::vector<uint32_t> heap_, pos_;
	std::vector<Key> key_;
};

} // namespace vramlab
