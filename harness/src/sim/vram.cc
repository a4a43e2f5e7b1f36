#include "sim/vram.h"

#include <algorithm>
#include <stdexcept>

namespace vramlab {

Vram::Vram(uint64_t size) : size_(size), free_(size), mid_end_(size), mid_size_(size)
{
	b_.emplace_back();
	bmax_.push_back(0);
	insert(0, 0, 0, size);
}

void Vram::find_max() const
{
	uint64_t m = 0;
	for (uint64_t l : bmax_)
		m = std::max(m, l);
	max_ = m;
	max_ok_ = true;
}

void Vram::block_max(size_t k)
{
	const Block &x = b_[k];
	uint64_t m = 0;
	for (unsigned i = 0; i < x.n; i++)
		m = std::max(m, x.len[i]);
	bmax_[k] = m;
}

// A hole before index i of block k; a full block is split in two first.
void Vram::insert(size_t k, unsigned i, uint64_t a, uint64_t l)
{
	if (b_[k].n == kBlock) {
		constexpr unsigned half = kBlock / 2;
		b_.insert(b_.begin() + ptrdiff_t(k) + 1, Block{});
		bmax_.insert(bmax_.begin() + ptrdiff_t(k) + 1, 0);
		Block &lo = b_[k], &hi = b_[k + 1];
		std::copy(lo.addr + half, lo.addr + kBlock, hi.addr);
		std::copy(lo.len + half, lo.len + kBlock, hi.len);
		lo.n = hi.n = half;
		block_max(k);
		block_max(k + 1);
		if (i > half) {
			k++;
			i -= half;
		}
	}
	Block &x = b_[k];
	std::copy_backward(x.addr + i, x.addr + x.n, x.addr + x.n + 1);
	std::copy_backward(x.len + i, x.len + x.n, x.len + x.n + 1);
	x.addr[i] = a;
	x.len[i] = l;
	x.n++;
	bmax_[k] = std::max(bmax_[k], l);
	count_++;
}

// Only for a hole merged into its neighbour: the largest hole stays what it was.
void Vram::erase(At a)
{
	Block &x = b_[a.k];
	const uint64_t l = x.len[a.i];
	std::copy(x.addr + a.i + 1, x.addr + x.n, x.addr + a.i);
	std::copy(x.len + a.i + 1, x.len + x.n, x.len + a.i);
	x.n--;
	count_--;
	if (!x.n) {
		b_.erase(b_.begin() + ptrdiff_t(a.k));
		bmax_.erase(bmax_.begin() + ptrdiff_t(a.k));
	} else if (l == bmax_[a.k]) {
		block_max(a.k);
	}
}

uint64_t Vram::place(uint64_t b, bool top_down)
{
	const size_t nb = bmax_.size();
	size_t k;
	if (top_down) {
		for (k = nb; k-- && bmax_[k] <= b;)
			;
	} else {
		for (k = 0; k < nb && bmax_[k] <= b; k++)
			;
	}
	if (k >= nb)
		throw std::logic_error("Vram::place: no hole fits");
	Block &x = b_[k];
	unsigned i;
	if (top_down) {
		for (i = x.n; i-- && x.len[i] <= b;)
			;
	} else {
		for (i = 0; x.len[i] <= b; i++)
			;
	}
	free_ -= b;
	if (x.addr[i] + x.len[i] == mid_end_) { // the middle hole
		mid_size_ -= b;
		if (top_down)
			mid_end_ -= b;
	}
	const bool block_max_shrinks = x.len[i] == bmax_[k];
	x.len[i] -= b; // never 0: the hole was larger
	uint64_t at;
	if (top_down) {
		at = x.addr[i] + x.len[i];
	} else {
		at = x.addr[i];
		x.addr[i] += b;
	}
	if (block_max_shrinks) {
		if (max_ok_ && bmax_[k] == max_)
			max_ok_ = false;
		block_max(k);
	}
	return at;
}

void Vram::release(uint64_t a, uint64_t b)
{
	free_ += b;
	// the block of the last hole below a (none: k == nb)
	const size_t nb = b_.size();
	size_t k = nb;
	{
		size_t lo = 0, hi = nb; // the first block starting above a
		while (lo < hi) {
			const size_t mid = (lo + hi) / 2;
			if (b_[mid].addr[0] < a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo)
			k = lo - 1;
	}
	bool has_prev = false, has_next = false;
	At prev{}, next{};
	if (k < nb) {
		const Block &x = b_[k];
		const unsigned i = unsigned(std::lower_bound(x.addr, x.addr + x.n, a) - x.addr);
		has_prev = true;
		prev = {k, i - 1};
		if (i < x.n)
			has_next = true, next = {k, i};
		else if (k + 1 < nb)
			has_next = true, next = {k + 1, 0};
	} else if (nb) {
		has_next = true;
		next = {0, 0};
	}
	const bool join_prev = has_prev && addr(prev) + len(prev) == a;
	const bool join_next = has_next && addr(next) == a + b;
	if (a == mid_end_) { // the middle hole grows up, and over the hole after it
		const uint64_t over = join_next ? len(next) : 0;
		mid_end_ = a + b + over;
		mid_size_ += b + over;
	} else if (a + b == mid_end_ - mid_size_) { // ... or down, and over the hole before
		mid_size_ += b + (join_prev ? len(prev) : 0);
	}
	uint64_t merged;
	size_t grew;
	if (join_prev && join_next) {
		merged = len(prev) += b + len(next);
		grew = prev.k;
		bmax_[grew] = std::max(bmax_[grew], merged);
		erase(next);
	} else if (join_prev) {
		merged = len(prev) += b;
		grew = prev.k;
		bmax_[grew] = std::max(bmax_[grew], merged);
	} else if (join_next) {
		addr(next) = a;
		merged = len(next) += b;
		grew = next.k;
		bmax_[grew] = std::max(bmax_[grew], merged);
	} else {
		merged = b;
		if (has_prev)
			insert(prev.k, prev.i + 1, a, b);
		else if (nb)
			insert(0, 0, a, b);
		else { // no hole at all before
			b_.emplace_back();
			bmax_.push_back(0);
			insert(0, 0, a, b);
		}
	}
	if (max_ok_)
		max_ = std::max(max_, merged);
}

Vram Vram::grown(uint64_t size) const
{
	if (size < size_)
		throw std::invalid_argument("Vram::grown: smaller than the VRAM it grows");
	const uint64_t delta = size - size_;
	Vram v(*this);
	v.size_ = size;
	for (size_t k = 0; k < v.b_.size(); k++) {
		Block &x = v.b_[k];
		for (unsigned i = 0; i < x.n; i++) {
			if (x.addr[i] + x.len[i] == mid_end_)
				x.len[i] += delta;
			else
				x.addr[i] = grown_addr(x.addr[i], delta);
		}
		v.block_max(k);
	}
	v.free_ = free_ + delta;
	v.max_ok_ = false;
	v.mid_end_ = mid_end_ + delta;
	v.mid_size_ = mid_size_ + delta;
	return v;
}

std::vector<Vram::Hole> Vram::hole_list() const
{
	std::vector<Hole> out;
	out.reserve(count_);
	for (const Block &x : b_)
		for (unsigned i = 0; i < x.n; i++)
			out.push_back({x.addr[i], x.len[i]});
	return out;
}

const char *Vram::check() const
{
	if (b_.size() != bmax_.size())
		return "block maxima out of step";
	for (size_t k = 0; k < b_.size(); k++) {
		if (!b_[k].n || b_[k].n > kBlock)
			return "an empty or overfull block";
		if (*std::max_element(b_[k].len, b_[k].len + b_[k].n) != bmax_[k])
			return "a block's largest hole is out of date";
	}
	const auto holes = hole_list();
	if (holes.size() != count_)
		return "hole count mismatch";
	uint64_t sum = 0, max = 0;
	bool mid = false;
	for (size_t i = 0; i < holes.size(); i++) {
		sum += holes[i].size;
		max = std::max(max, holes[i].size);
		mid |= holes[i].addr + holes[i].size == mid_end_ && holes[i].size == mid_size_;
		if (holes[i].addr + holes[i].size > size_)
			return "hole beyond the end of VRAM";
		if (i && holes[i - 1].addr + holes[i - 1].size >= holes[i].addr)
			return "holes overlap or touch (not merged)";
	}
	if (sum != free_)
		return "free bytes do not add up";
	if (max_ok_ && max_ != max)
		return "the largest hole is out of date";
	if (!mid)
		return "the middle hole is lost";
	return "";
}

} // namespace vramlab
