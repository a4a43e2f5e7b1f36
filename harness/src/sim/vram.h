// Simulated VRAM: one linear range, contiguous buffers, free extents (holes) kept in a treap
// ordered by address and augmented with the largest hole of each subtree, so that first fit from
// either end is O(log holes). A hole fits a buffer when it is strictly larger (cost-model.md).
//
// It also follows the "middle" hole: the one the whole range started as, which bottom-up
// placements take from below and top-down ones from above. A placement never empties a hole
// (strict fit), so the middle hole lives as long as the VRAM. A larger VRAM that made the same
// placements is this one with the middle hole longer by the difference and everything above it
// shifted up by it, for as long as every placement here fitted the middle hole or went where
// the larger VRAM puts it too: grown() builds it (replay_lanes()).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vramlab {

class Vram {
public:
	explicit Vram(uint64_t size);

	uint64_t size() const { return size_; }
	uint64_t free_bytes() const { return free_; }
	uint32_t holes() const { return count_; }
	// Is there a hole strictly larger than b?
	bool fits(uint64_t b) const { return root_ != kNil && n_[root_].max > b; }
	// Places b in the lowest (or, top_down, the highest) hole that fits, at its low (high) end.
	// Precondition: fits(b).
	uint64_t place(uint64_t b, bool top_down);
	// Frees [addr, addr + b) and merges it with neighbouring holes.
	void release(uint64_t addr, uint64_t b);
	// The middle hole: [mid_end() - mid_size(), mid_end()).
	uint64_t mid_end() const { return mid_end_; }
	uint64_t mid_size() const { return mid_size_; }
	// Where an address of this VRAM lies in grown(size() + delta): above the middle hole it
	// moves up by delta.
	uint64_t grown_addr(uint64_t addr, uint64_t delta) const
	{
		return addr >= mid_end_ ? addr + delta : addr;
	}
	// This VRAM as one of `size` bytes (>= size()) with the same buffers: the middle hole longer
	// by the difference, every hole above it shifted up by it.
	Vram grown(uint64_t size) const;

	struct Hole {
		uint64_t addr, size;
	};
	std::vector<Hole> hole_list() const; // in address order (tests, invariant checks)
	// Checks the tree (order, augmentation, no adjacent holes). Returns an error text or "".
	const char *check() const;

private:
	static constexpr uint32_t kNil = UINT32_MAX;
	struct Node {
		uint64_t addr, size, max;
		uint32_t pri, l, r;
	};
	uint32_t alloc(uint64_t addr, uint64_t size);
	void pull(uint32_t t) const;
	void split(uint32_t t, uint64_t key, uint32_t &a, uint32_t &b); // a: < key, b: >= key
	uint32_t merge(uint32_t a, uint32_t b);
	// The searches record the nodes they pass through in `path` (root first, the found node
	// last), so that a hole changed in place is fixed up along it, not found again.
	uint32_t find_first(uint64_t b, std::vector<uint32_t> &path) const;
	uint32_t find_last(uint64_t b, std::vector<uint32_t> &path) const;
	void resize(uint32_t t, uint64_t addr, uint64_t size); // same order position
	// the same, t being the last node of `path`: the maxima are pulled up along it
	void resize_on(const std::vector<uint32_t> &path, uint64_t addr, uint64_t size);
	bool resize_in(uint32_t t, uint64_t key, uint64_t addr, uint64_t size);
	uint32_t pred(uint64_t addr, std::vector<uint32_t> &path) const; // largest address < addr
	uint32_t find(uint64_t addr, std::vector<uint32_t> &path) const;
	void erase(uint64_t addr);
	void insert(uint64_t addr, uint64_t size);

	mutable std::vector<Node> n_;
	std::vector<uint32_t> path_a_, path_b_; // scratch for the searches' paths
	std::vector<uint32_t> free_nodes_;
	uint32_t root_ = kNil;
	uint32_t count_ = 0;
	uint64_t size_, free_;
	uint32_t rng_ = 0x9e3779b9u;
	uint64_t mid_end_, mid_size_;
};

} // namespace vramlab
