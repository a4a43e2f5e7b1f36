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
// Holes are kept in an address-ordered treap augmented with subtree maxima (for INSERT_HIGH
// and merging) and a size-ordered set (for INSERT_BEST): both O(log holes).
//
// The kernel model's allocator until issue 49 (kmodel/drm_mm.h replaced it with flat per-page
// indexes, about 3x faster per eviction); kept as the reference the new one is fuzzed against
// (tests/test_drm_mm.cc, fuzz/fuzz_differential.cc), at any page count.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <set>
#include <tuple>
#include <vector>

namespace vramlab {

class TreapDrmMm {
public:
	explicit TreapDrmMm(uint64_t pages);
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
	size_t holes() const { return by_size_.size(); }
	struct Hole {
		uint64_t start, pages, seq;
	};
	std::vector<Hole> hole_list() const; // address order
	// The start of the hole ending at `end`, the end of the hole starting at `start`, or
	// UINT64_MAX when there is none (drm_mm_scan_add_block()'s merged span, window eviction).
	uint64_t hole_ending_at(uint64_t end) const
	{
		const uint32_t t = ending_at(end);
		return t == kNil ? UINT64_MAX : n_[t].start;
	}
	uint64_t hole_starting_at(uint64_t start) const
	{
		const uint32_t t = find(start);
		return t == kNil ? UINT64_MAX : n_[t].start + n_[t].pages;
	}
	const char *check() const;           // "" or what is broken

private:
	static constexpr uint32_t kNil = UINT32_MAX;
	struct Node {
		uint64_t start, pages, seq, max;
		uint32_t pri, l, r;
	};
	void add_hole(uint64_t start, uint64_t pages);
	void rm_hole(uint32_t t);
	// The hole t becomes [start, start + pages), added now; its place in address order must
	// not change (it does not: holes never overlap). No split or merge.
	void reshape_hole(uint32_t t, uint64_t start, uint64_t pages);
	bool reshape_in(uint32_t node, uint32_t t, uint64_t start, uint64_t pages);
	uint32_t highest_fit(uint64_t pages) const;
	uint32_t find(uint64_t start) const;          // hole starting at start, or kNil
	uint32_t ending_at(uint64_t end) const;       // hole ending at end, or kNil
	void pull(uint32_t t);
	void split(uint32_t t, uint64_t key, uint32_t &a, uint32_t &b);
	uint32_t merge(uint32_t a, uint32_t b);

	std::vector<Node> n_;
	std::vector<uint32_t> free_nodes_;
	uint32_t root_ = kNil;
	// (pages, ~seq, node): begin of lower_bound({p, 0, 0}) is best_hole(p). Its nodes come
	// from a pool: holes are added and removed on every move.
	std::pmr::unsynchronized_pool_resource pool_;
	std::pmr::set<std::tuple<uint64_t, uint64_t, uint32_t>> by_size_{&pool_};
	uint64_t size_, free_ = 0, seq_ = 0;
	uint32_t rng_ = 0x2545f491u;
};

} // namespace vramlab
