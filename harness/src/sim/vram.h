// Simulated VRAM: one linear range, contiguous buffers, free extents (holes) in address order
// in blocks of up to 32, each block's largest hole beside it: first fit from either end scans
// the blocks' maxima, then one block; a release finds its neighbours by binary search. The
// corpus keeps a few hundred holes at most (the thesis's fragmentation figure), where a few
// short scans beat a balanced tree's dependent loads (docs/models.md).
// A hole fits a buffer when it is strictly larger (cost-model.md).
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
	bool fits(uint64_t b) const
	{
		if (!max_ok_)
			find_max();
		return max_ > b;
	}
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
	// Checks the holes (order, no adjacent holes, the sums). Returns an error text or "".
	const char *check() const;

private:
	static constexpr unsigned kBlock = 32;
	struct Block {
		uint32_t n = 0; // holes in it, >= 1
		uint64_t addr[kBlock], len[kBlock];
	};
	struct At { // a hole: block k, index i
		size_t k;
		unsigned i;
	};
	uint64_t &addr(At a) { return b_[a.k].addr[a.i]; }
	uint64_t &len(At a) { return b_[a.k].len[a.i]; }
	void find_max() const;
	void block_max(size_t k); // recomputes bmax_[k]
	void insert(size_t k, unsigned i, uint64_t addr, uint64_t len);
	void erase(At a);
	std::vector<Block> b_;       // in address order
	std::vector<uint64_t> bmax_; // per block, its largest hole
	uint32_t count_ = 0;
	uint64_t size_, free_;
	mutable uint64_t max_ = 0; // the largest hole, when max_ok_
	mutable bool max_ok_ = false;
	uint64_t mid_end_, mid_size_;
};

} // namespace vramlab
