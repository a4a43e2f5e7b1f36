// drm_mm as TTM's range manager uses it for VRAM (drivers/gpu/drm/drm_mm.c, 6.12), in pages:
//
// - DRM_MM_INSERT_BEST (bottom-up BOs): best_hole() takes the smallest hole at least as large
//   as the request; among holes of that size the one added last (insert_hole_size() puts an
//   equal size after the existing ones and best_hole() takes the last that fits). The node
//   goes at the hole's low end.
// - DRM_MM_INSERT_HIGH (TTM_PL_FLAG_TOPDOWN): the highest-addressed hole at least as large as
//   the request (find_hole_addr() + next_hole_high_addr()); the node goes at its high end.
// - add_hole() runs for the part of a hole an insertion leaves and for the merged hole a
//   removal leaves (drm_mm_remove_node() re-adds the previous node's hole), so each of those
//   holes is "added last" at that moment.
//
// The layout is chosen for the replay's hot path (an eviction frees a node, a return from GTT
// takes a hole): every question is answered by flat per-page tables and bitmaps, never by a
// tree, so a step is a few independent loads instead of a chain of dependent descents.
// - Holes by their first and by their end page (exact matches: a removal's neighbours, the
//   window scan's merges).
// - One list per exact size, newest first: a hole (re)added goes to the front and the add
//   counter only grows, so the front is drm_mm's "added last" of that size. A bitmap over the
//   sizes finds the smallest non-empty size at least as large as a request.
// - A bitmap over hole starts: address order (insert_at()'s hole, hole_list()).
// - For INSERT_HIGH only, built on its first use: a max tree over hole starts.
// About 12 bytes a page (64 MiB of VRAM: 192 KiB), so VRAM is limited to kMaxPages (16 GiB);
// src/reference/drm_mm_treap.h is the tree version it is fuzzed against.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vramlab {

// A set of positions 0..n-1 with O(log64 n) next/previous queries: one bit per position, and
// above it one bit per non-zero word of the level below, up to a single word.
class BitIndex {
public:
	static constexpr uint64_t kNone = UINT64_MAX;
	explicit BitIndex(uint64_t n = 0);
	void set(uint64_t i);
	void clear(uint64_t i);
	bool test(uint64_t i) const { return lv_[0][i >> 6] >> (i & 63) & 1; }
	uint64_t next(uint64_t i) const; // the smallest set position >= i, or kNone
	uint64_t prev(uint64_t i) const; // the largest set position <= i, or kNone

private:
	std::vector<std::vector<uint64_t>> lv_;
};

class DrmMm {
public:
	static constexpr uint64_t kMaxPages = 1ull << 22; // 16 GiB of 4 KiB pages
	// Throws std::invalid_argument above kMaxPages.
	explicit DrmMm(uint64_t pages);
	enum class Mode { Best, High };
	// The start page of a new node of `pages` pages, or UINT64_MAX (-ENOSPC).
	uint64_t insert(uint64_t pages, Mode mode);
	// A node of `pages` pages at `start`, which must lie in one hole (drm_mm_insert_node_in_range()
	// with the range narrowed to exactly it): the hole's part below it is added anew, then the
	// part above. False if no hole holds it.
	bool insert_at(uint64_t start, uint64_t pages);
	void remove(uint64_t start, uint64_t pages);

	uint64_t size() const { return size_; }
	uint64_t free_pages() const { return free_; }
	size_t holes() const { return count_; }
	struct Hole {
		uint64_t start, pages, seq;
	};
	std::vector<Hole> hole_list() const; // address order
	// The start of the hole ending at `end`, the end of the hole starting at `start`, or
	// UINT64_MAX when there is none (drm_mm_scan_add_block()'s merged span, window eviction).
	uint64_t hole_ending_at(uint64_t end) const
	{
		const uint32_t t = end <= size_ ? by_end_[end] : kNil;
		return t == kNil ? UINT64_MAX : h_[t].start;
	}
	uint64_t hole_starting_at(uint64_t start) const
	{
		const uint32_t t = start < size_ ? by_start_[start] : kNil;
		return t == kNil ? UINT64_MAX : uint64_t(h_[t].start) + h_[t].pages;
	}
	const char *check() const; // "" or what is broken

private:
	static constexpr uint32_t kNil = UINT32_MAX;
	struct H {
		uint32_t start, pages;
		uint64_t seq;          // drm_mm's add order: larger = added later
		uint32_t prev, next;   // the list of holes of this size, newest first
	};
	uint32_t add_hole(uint64_t start, uint64_t pages);
	void rm_hole(uint32_t t);
	// The hole t becomes [start, start + pages), added now (a new seq, front of its list).
	void reshape_hole(uint32_t t, uint64_t start, uint64_t pages);
	void link(uint32_t t);
	void unlink(uint32_t t);
	void high_set(uint32_t start, uint32_t pages);
	uint32_t highest_fit(uint64_t pages);

	std::vector<H> h_;
	std::vector<uint32_t> free_ids_;
	std::vector<uint32_t> by_start_, by_end_, size_head_; // hole ids or kNil
	BitIndex sizes_, starts_;
	// INSERT_HIGH's max tree: leaf high_n_ + s holds the size of the hole starting at s; empty
	// until the first High insertion, then kept up to date by link()/unlink()
	std::vector<uint32_t> high_;
	uint64_t high_n_ = 0;
	uint64_t size_, free_ = 0, seq_ = 0;
	size_t count_ = 0;
};

} // namespace vramlab
