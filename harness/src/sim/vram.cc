#include "sim/vram.h"

#include <algorithm>
#include <stdexcept>

namespace vramlab {

Vram::Vram(uint64_t size) : size_(size), free_(size), mid_end_(size), mid_size_(size)
{
	n_.reserve(1024);
	insert(0, size);
}

uint32_t Vram::alloc(uint64_t addr, uint64_t size)
{
	rng_ ^= rng_ << 13;
	rng_ ^= rng_ >> 17;
	rng_ ^= rng_ << 5;
	Node nd{addr, size, size, rng_, kNil, kNil};
	if (!free_nodes_.empty()) {
		uint32_t i = free_nodes_.back();
		free_nodes_.pop_back();
		n_[i] = nd;
		return i;
	}
	n_.push_back(nd);
	return static_cast<uint32_t>(n_.size() - 1);
}

void Vram::pull(uint32_t t) const
{
	Node &x = n_[t];
	uint64_t m = x.size;
	if (x.l != kNil && n_[x.l].max > m)
		m = n_[x.l].max;
	if (x.r != kNil && n_[x.r].max > m)
		m = n_[x.r].max;
	x.max = m;
}

void Vram::split(uint32_t t, uint64_t key, uint32_t &a, uint32_t &b)
{
	if (t == kNil) {
		a = b = kNil;
		return;
	}
	if (n_[t].addr < key) {
		split(n_[t].r, key, n_[t].r, b);
		a = t;
	} else {
		split(n_[t].l, key, a, n_[t].l);
		b = t;
	}
	pull(t);
}

uint32_t Vram::merge(uint32_t a, uint32_t b)
{
	if (a == kNil)
		return b;
	if (b == kNil)
		return a;
	if (n_[a].pri > n_[b].pri) {
		n_[a].r = merge(n_[a].r, b);
		pull(a);
		return a;
	}
	n_[b].l = merge(a, n_[b].l);
	pull(b);
	return b;
}

void Vram::insert(uint64_t addr, uint64_t size)
{
	uint32_t a, b;
	split(root_, addr, a, b);
	root_ = merge(merge(a, alloc(addr, size)), b);
	count_++;
}

void Vram::erase(uint64_t addr)
{
	uint32_t a, b, m, c;
	split(root_, addr, a, b);
	split(b, addr + 1, m, c);
	if (m != kNil) {
		free_nodes_.push_back(m);
		count_--;
	}
	root_ = merge(a, c);
}

bool Vram::resize_in(uint32_t t, uint64_t key, uint64_t addr, uint64_t size)
{
	if (t == kNil)
		return false;
	bool ok;
	if (key < n_[t].addr) {
		ok = resize_in(n_[t].l, key, addr, size);
	} else if (key > n_[t].addr) {
		ok = resize_in(n_[t].r, key, addr, size);
	} else {
		n_[t].addr = addr;
		n_[t].size = size;
		ok = true;
	}
	pull(t);
	return ok;
}

void Vram::resize(uint32_t t, uint64_t addr, uint64_t size)
{
	resize_in(root_, n_[t].addr, addr, size);
}

void Vram::resize_on(const std::vector<uint32_t> &path, uint64_t addr, uint64_t size)
{
	Node &x = n_[path.back()];
	x.addr = addr;
	x.size = size;
	for (size_t i = path.size(); i--;)
		pull(path[i]);
}

uint32_t Vram::find_first(uint64_t b, std::vector<uint32_t> &path) const
{
	path.clear();
	uint32_t t = root_;
	while (t != kNil) {
		path.push_back(t);
		const Node &x = n_[t];
		if (x.l != kNil && n_[x.l].max > b)
			t = x.l;
		else if (x.size > b)
			return t;
		else
			t = x.r;
	}
	return kNil;
}

uint32_t Vram::find_last(uint64_t b, std::vector<uint32_t> &path) const
{
	path.clear();
	uint32_t t = root_;
	while (t != kNil) {
		path.push_back(t);
		const Node &x = n_[t];
		if (x.r != kNil && n_[x.r].max > b)
			t = x.r;
		else if (x.size > b)
			return t;
		else
			t = x.l;
	}
	return kNil;
}

uint32_t Vram::pred(uint64_t addr, std::vector<uint32_t> &path) const
{
	path.clear();
	uint32_t t = root_, best = kNil;
	size_t depth = 0; // the path up to best
	while (t != kNil) {
		path.push_back(t);
		if (n_[t].addr < addr) {
			best = t;
			depth = path.size();
			t = n_[t].r;
		} else {
			t = n_[t].l;
		}
	}
	path.resize(depth);
	return best;
}

uint32_t Vram::find(uint64_t addr, std::vector<uint32_t> &path) const
{
	path.clear();
	uint32_t t = root_;
	while (t != kNil) {
		path.push_back(t);
		if (n_[t].addr == addr)
			return t;
		t = addr < n_[t].addr ? n_[t].l : n_[t].r;
	}
	return kNil;
}

uint64_t Vram::place(uint64_t b, bool top_down)
{
	const uint32_t t = top_down ? find_last(b, path_a_) : find_first(b, path_a_);
	const uint64_t haddr = n_[t].addr, hsize = n_[t].size;
	free_ -= b;
	if (haddr + hsize == mid_end_) { // the middle hole
		mid_size_ -= b;
		if (top_down)
			mid_end_ -= b;
	}
	if (top_down) {
		resize_on(path_a_, haddr, hsize - b);
		return haddr + hsize - b;
	}
	resize_on(path_a_, haddr + b, hsize - b);
	return haddr;
}

void Vram::release(uint64_t addr, uint64_t b)
{
	free_ += b;
	const uint32_t p = pred(addr, path_a_);
	const bool join_prev = p != kNil && n_[p].addr + n_[p].size == addr;
	const uint32_t s = find(addr + b, path_b_);
	if (addr == mid_end_) { // the middle hole grows up, and over the hole after it
		const uint64_t next = s != kNil ? n_[s].size : 0;
		mid_end_ = addr + b + next;
		mid_size_ += b + next;
	} else if (addr + b == mid_end_ - mid_size_) { // ... or down, and over the hole before
		mid_size_ += b + (join_prev ? n_[p].size : 0);
	}
	if (join_prev && s != kNil) {
		const uint64_t grow = b + n_[s].size;
		erase(addr + b); // the tree changes: p is found again
		resize(p, n_[p].addr, n_[p].size + grow);
	} else if (join_prev) {
		resize_on(path_a_, n_[p].addr, n_[p].size + b);
	} else if (s != kNil) {
		resize_on(path_b_, addr, n_[s].size + b);
	} else {
		insert(addr, b);
	}
}

Vram Vram::grown(uint64_t size) const
{
	if (size < size_)
		throw std::invalid_argument("Vram::grown: smaller than the VRAM it grows");
	const uint64_t delta = size - size_;
	Vram v(size);
	v.erase(0);
	for (const Hole &h : hole_list()) {
		if (h.addr + h.size == mid_end_)
			v.insert(h.addr, h.size + delta);
		else
			v.insert(grown_addr(h.addr, delta), h.size);
	}
	v.free_ = free_ + delta;
	v.mid_end_ = mid_end_ + delta;
	v.mid_size_ = mid_size_ + delta;
	return v;
}

std::vector<Vram::Hole> Vram::hole_list() const
{
	std::vector<Hole> out;
	std::vector<uint32_t> stack;
	uint32_t t = root_;
	while (t != kNil || !stack.empty()) {
		while (t != kNil) {
			stack.push_back(t);
			t = n_[t].l;
		}
		t = stack.back();
		stack.pop_back();
		out.push_back({n_[t].addr, n_[t].size});
		t = n_[t].r;
	}
	return out;
}

const char *Vram::check() const
{
	auto holes = hole_list();
	if (holes.size() != count_)
		return "hole count mismatch";
	uint64_t sum = 0;
	for (size_t i = 0; i < holes.size(); i++) {
		sum += holes[i].size;
		if (holes[i].addr + holes[i].size > size_)
			return "hole beyond the end of VRAM";
		if (i && holes[i - 1].addr + holes[i - 1].size >= holes[i].addr)
			return "holes overlap or touch (not merged)";
	}
	if (sum != free_)
		return "free bytes do not add up";
	if (std::none_of(holes.begin(), holes.end(), [this](const Hole &h) {
		    return h.addr + h.size == mid_end_ && h.size == mid_size_;
	    }))
		return "the middle hole is lost";
	return "";
}

} // namespace vramlab
