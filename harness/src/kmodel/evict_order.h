// TTM's VRAM eviction order as the kernel model keeps it (kernel_model.cc): radeon's LRU, the
// series' key order, or bo->priority's lists. Its own file: the rule a reader looks for when the
// question is "which BO does the walk reach first".
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kmodel/kernel_model.h"

namespace vramlab {

// TTM's VRAM eviction order: (key, order of moves to the LRU tail), O(1) per move. New keys
// lie in the window [stamp - W + 1, stamp] (radeon_bo_evict_key()), or are all 0 with LRU: one
// intrusive list per key of the window, in a ring, and one settled list for older keys. A key
// leaves the window (the stamp advanced past it) before any larger one, so splicing its list
// onto the settled one keeps that sorted. With levels (the bo->priority variant) the key is
// the priority and each of TTM's priority lists is an LRU list, walked lowest first.
class EvictOrder {
public:
	static constexpr uint32_t kNone = UINT32_MAX;
	EvictOrder(size_t n, bool by_key, uint32_t window, uint64_t stamp, bool levels)
	    : prev_(n), next_(n), key_(n), slot_(n), by_key_(by_key), levels_(levels), window_(window),
	      stamp_(stamp)
	{
		ring_.resize(kRing);
		bits_.assign(kRing / 64, 0);
	}
	size_t size() const { return size_; }
	uint64_t key(uint32_t id) const { return key_[id]; }
	void grow(size_t n) // room for ids < n (a live model learns of buffers as they come)
	{
		if (n <= prev_.size())
			return;
		prev_.resize(n);
		next_.resize(n);
		key_.resize(n);
		slot_.resize(n);
	}

	void add(uint32_t id, uint64_t key)
	{
		key_[id] = key;
		size_++;
		if (levels_) {
			slot_[id] = kLevel0 + uint32_t(key);
			return append(level_[key], id);
		}
		if (!by_key_ || key + window_ <= stamp_) {
			slot_[id] = kSettled;
			if (by_key_ && settled_.tail != kNone && key_[settled_.tail] > key)
				return insert_sorted(id);
			return append(settled_, id);
		}
		const uint32_t s = uint32_t(key & (kRing - 1));
		slot_[id] = s;
		append(ring_[s], id);
		bits_[s / 64] |= 1ull << (s % 64);
	}
	// del + add, with nothing to do when the entry is already last with that key
	void to_tail(uint32_t id, uint64_t key)
	{
		if (levels_ && key_[id] == key && next_[id] == kNone)
			return;
		if (!levels_ && key_[id] == key && next_[id] == kNone &&
		    (slot_[id] == kSettled ? (!by_key_ || key + window_ <= stamp_)
		                           : slot_[id] == uint32_t(key & (kRing - 1)) &&
		                                     key + window_ > stamp_))
			return;
		del(id);
		add(id, key);
	}
	void del(uint32_t id)
	{
		size_--;
		const uint32_t s = slot_[id];
		List &l = s == kSettled ? settled_ : s >= kLevel0 ? level_[s - kLevel0] : ring_[s];
		const uint32_t p = prev_[id], n = next_[id];
		(p == kNone ? l.head : next_[p]) = n;
		(n == kNone ? l.tail : prev_[n]) = p;
		if (s < kLevel0 && l.head == kNone)
			bits_[s / 64] &= ~(1ull << (s % 64));
	}
	// The stamp is now `stamp` (one more than before): the key stamp - W leaves the window.
	void advance(uint64_t stamp)
	{
		stamp_ = stamp;
		if (!by_key_)
			return;
		const uint32_t s = uint32_t((stamp - window_) & (kRing - 1));
		List &l = ring_[s];
		if (l.head == kNone)
			return;
		for (uint32_t i = l.head; i != kNone; i = next_[i])
			slot_[i] = kSettled;
		if (settled_.tail == kNone) {
			settled_ = l;
		} else {
			next_[settled_.tail] = l.head;
			prev_[l.head] = settled_.tail;
			settled_.tail = l.tail;
		}
		l = {};
		bits_[s / 64] &= ~(1ull << (s % 64));
	}
	// Calls f(id) in eviction order until it returns true; f may del(id) of the id it got.
	template <class F> bool walk(F &&f)
	{
		if (levels_) {
			for (const List &l : level_)
				for (uint32_t i = l.head, n; i != kNone; i = n) {
					n = next_[i];
					if (f(i))
						return true;
				}
			return false;
		}
		for (uint32_t i = settled_.head, n; i != kNone; i = n) {
			n = next_[i];
			if (f(i))
				return true;
		}
		if (!by_key_)
			return false;
		for (uint64_t k = stamp_ + 1 - window_; k <= stamp_; k++) {
			const uint32_t s = uint32_t(k & (kRing - 1));
			if (!(bits_[s / 64] >> (s % 64) & 1)) {
				if (!bits_[s / 64] && s % 64 == 0)
					k += 63; // a whole empty word
				continue;
			}
			for (uint32_t i = ring_[s].head, n; i != kNone; i = n) {
				n = next_[i];
				if (f(i))
					return true;
			}
		}
		return false;
	}

	// walk() of a plain LRU (no keys, no levels: one list) from entry `id` on: the predicted
	// and the clairvoyant window resume their gather there (kernel_model.cc)
	template <class F> bool walk_from(uint32_t id, F &&f)
	{
		plain_only();
		for (uint32_t i = id, n; i != kNone; i = n) {
			n = next_[i];
			if (f(i))
				return true;
		}
		return false;
	}

private:
	void plain_only() const
	{
		if (by_key_ || levels_)
			throw std::logic_error("EvictOrder: not a plain LRU (one list)");
	}
	static constexpr uint32_t kRing = 8192, kSettled = UINT32_MAX, kLevel0 = UINT32_MAX - 8;
	struct List {
		uint32_t head = kNone, tail = kNone;
	};
	void append(List &l, uint32_t id)
	{
		prev_[id] = l.tail;
		next_[id] = kNone;
		(l.tail == kNone ? l.head : next_[l.tail]) = id;
		l.tail = id;
	}
	// A key older than the window (a BO coming back into VRAM during the submission that will
	// give it its new key): after every settled entry of a key not larger.
	void insert_sorted(uint32_t id)
	{
		uint32_t after = settled_.tail;
		while (after != kNone && key_[after] > key_[id])
			after = prev_[after];
		const uint32_t before = after == kNone ? settled_.head : next_[after];
		prev_[id] = after;
		next_[id] = before;
		(after == kNone ? settled_.head : next_[after]) = id;
		(before == kNone ? settled_.tail : prev_[before]) = id;
	}
	std::vector<uint32_t> prev_, next_;
	std::vector<uint64_t> key_;
	std::vector<uint32_t> slot_;
	std::vector<List> ring_;
	std::vector<uint64_t> bits_;
	List settled_;
	List level_[kTtmPriorities];
	size_t size_ = 0;
	bool by_key_, levels_;
	uint64_t window_, stamp_;
};

} // namespace vramlab
