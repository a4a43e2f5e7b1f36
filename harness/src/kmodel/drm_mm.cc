#include "kmodel/drm_mm.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace vramlab {

BitIndex::BitIndex(uint64_t n)
{
	do {
		n = (n + 63) / 64;
		lv_.emplace_back(std::max<uint64_t>(n, 1), 0);
	} while (n > 1);
}

void BitIndex::set(uint64_t i)
{
	for (auto &w : lv_) {
		const bool was_empty = w[i >> 6] == 0;
		w[i >> 6] |= 1ull << (i & 63);
		if (!was_empty)
			return;
		i >>= 6;
	}
}

void BitIndex::clear(uint64_t i)
{
	for (auto &w : lv_) {
		w[i >> 6] &= ~(1ull << (i & 63));
		if (w[i >> 6])
			return;
		i >>= 6;
	}
}

uint64_t BitIndex::next(uint64_t i) const
{
	size_t l = 0;
	for (;; l++) { // up, until a word holds a set bit at or after i
		if (l == lv_.size() || (i >> 6) >= lv_[l].size())
			return kNone;
		const uint64_t bits = lv_[l][i >> 6] & (~0ull << (i & 63));
		if (bits) {
			i = (i & ~63ull) | uint64_t(std::countr_zero(bits));
			break;
		}
		i = (i >> 6) + 1; // the next word, as a position one level up
	}
	while (l--) // down, to the lowest set bit of each word
		i = i << 6 | uint64_t(std::countr_zero(lv_[l][i]));
	return i;
}

uint64_t BitIndex::prev(uint64_t i) const
{
	size_t l = 0;
	for (;; l++) {
		if (l == lv_.size())
			return kNone;
		const uint64_t keep = (i & 63) == 63 ? ~0ull : (2ull << (i & 63)) - 1;
		const uint64_t bits = lv_[l][i >> 6] & keep;
		if (bits) {
			i = (i & ~63ull) | uint64_t(63 - std::countl_zero(bits));
			break;
		}
		if ((i >> 6) == 0)
			return kNone;
		i = (i >> 6) - 1;
	}
	while (l--)
		i = i << 6 | uint64_t(63 - std::countl_zero(lv_[l][i]));
	return i;
}

DrmMm::DrmMm(uint64_t pages)
    : by_start_(pages, kNil), by_end_(pages + 1, kNil), size_head_(pages + 1, kNil),
      sizes_(pages + 1), starts_(pages), size_(pages)
{
	if (pages > kMaxPages)
		throw std::invalid_argument("the kernel model's VRAM is at most 16 GiB");
	if (pages)
		add_hole(0, pages);
}

void DrmMm::high_set(uint32_t start, uint32_t pages)
{
	uint64_t i = high_n_ + start;
	high_[i] = pages;
	for (i >>= 1; i; i >>= 1) {
		const uint32_t m = std::max(high_[2 * i], high_[2 * i + 1]);
		if (high_[i] == m)
			return;
		high_[i] = m;
	}
}

void DrmMm::link(uint32_t t)
{
	H &x = h_[t];
	uint32_t &head = size_head_[x.pages];
	x.prev = kNil;
	x.next = head;
	if (head == kNil)
		sizes_.set(x.pages);
	else
		h_[head].prev = t;
	head = t;
	by_start_[x.start] = t;
	by_end_[x.start + x.pages] = t;
	starts_.set(x.start);
	if (high_n_)
		high_set(x.start, x.pages);
}

void DrmMm::unlink(uint32_t t)
{
	const H &x = h_[t];
	if (x.prev != kNil)
		h_[x.prev].next = x.next;
	else if ((size_head_[x.pages] = x.next) == kNil)
		sizes_.clear(x.pages);
	if (x.next != kNil)
		h_[x.next].prev = x.prev;
	by_start_[x.start] = kNil;
	by_end_[x.start + x.pages] = kNil;
	starts_.clear(x.start);
	if (high_n_)
		high_set(x.start, 0);
}

uint32_t DrmMm::add_hole(uint64_t start, uint64_t pages)
{
	uint32_t t;
	if (!free_ids_.empty()) {
		t = free_ids_.back();
		free_ids_.pop_back();
	} else {
		t = uint32_t(h_.size());
		h_.emplace_back();
	}
	h_[t].start = uint32_t(start);
	h_[t].pages = uint32_t(pages);
	h_[t].seq = ++seq_;
	link(t);
	free_ += pages;
	count_++;
	return t;
}

void DrmMm::rm_hole(uint32_t t)
{
	unlink(t);
	free_ -= h_[t].pages;
	free_ids_.push_back(t);
	count_--;
}

void DrmMm::reshape_hole(uint32_t t, uint64_t start, uint64_t pages)
{
	unlink(t);
	free_ += pages - h_[t].pages;
	h_[t].start = uint32_t(start);
	h_[t].pages = uint32_t(pages);
	h_[t].seq = ++seq_;
	link(t);
}

uint32_t DrmMm::highest_fit(uint64_t pages)
{
	if (!high_n_) { // the first INSERT_HIGH: build the tree from the holes there are
		high_n_ = std::bit_ceil(std::max<uint64_t>(size_, 1));
		high_.assign(2 * high_n_, 0);
		for (uint64_t s = starts_.next(0); s != BitIndex::kNone; s = starts_.next(s + 1))
			high_[high_n_ + s] = h_[by_start_[s]].pages;
		for (uint64_t i = high_n_ - 1; i; i--)
			high_[i] = std::max(high_[2 * i], high_[2 * i + 1]);
	}
	if (high_[1] < pages)
		return kNil;
	uint64_t i = 1;
	while (i < high_n_) // the rightmost leaf that fits
		i = high_[2 * i + 1] >= pages ? 2 * i + 1 : 2 * i;
	return by_start_[i - high_n_];
}

uint64_t DrmMm::insert(uint64_t pages, Mode mode)
{
	if (pages == 0 || pages > size_)
		return UINT64_MAX;
	uint32_t t;
	if (mode == Mode::Best) {
		const uint64_t s = sizes_.next(pages);
		if (s == BitIndex::kNone)
			return UINT64_MAX;
		t = size_head_[s];
	} else {
		t = highest_fit(pages);
		if (t == kNil)
			return UINT64_MAX;
	}
	const uint64_t hs = h_[t].start, hp = h_[t].pages;
	if (hp == pages) {
		rm_hole(t);
		return hs;
	}
	// what is left of the hole is added anew (add_hole() in drm_mm)
	if (mode == Mode::Best) {
		reshape_hole(t, hs + pages, hp - pages);
		return hs;
	}
	reshape_hole(t, hs, hp - pages);
	return hs + hp - pages;
}

bool DrmMm::insert_at(uint64_t start, uint64_t pages)
{
	if (pages == 0 || start >= size_ || pages > size_ - start)
		return false;
	// the hole with the largest start not above `start`
	const uint64_t p = starts_.prev(start);
	if (p == BitIndex::kNone)
		return false;
	const uint32_t h = by_start_[p];
	const uint64_t hs = h_[h].start, he = hs + h_[h].pages;
	if (he < start + pages)
		return false;
	if (hs < start) {
		reshape_hole(h, hs, start - hs);
		if (start + pages < he)
			add_hole(start + pages, he - start - pages);
	} else if (start + pages < he) {
		reshape_hole(h, start + pages, he - start - pages);
	} else {
		rm_hole(h);
	}
	return true;
}

void DrmMm::remove(uint64_t start, uint64_t pages)
{
	// The merged hole is added anew (drm_mm_remove_node()'s add_hole(prev_node)): the hole
	// below keeps its record, the one above is dropped first.
	const uint64_t end = start + pages;
	const uint32_t before = by_end_[start], after = end < size_ ? by_start_[end] : kNil;
	uint64_t s = start, e = end;
	if (after != kNil)
		e += h_[after].pages;
	if (before != kNil) {
		s = h_[before].start;
		if (after != kNil)
			rm_hole(after);
		reshape_hole(before, s, e - s);
	} else if (after != kNil) {
		reshape_hole(after, s, e - s);
	} else {
		add_hole(s, e - s);
	}
}

std::vector<DrmMm::Hole> DrmMm::hole_list() const
{
	std::vector<Hole> out;
	out.reserve(count_);
	for (uint64_t s = starts_.next(0); s != BitIndex::kNone; s = starts_.next(s + 1)) {
		const H &x = h_[by_start_[s]];
		out.push_back({x.start, x.pages, x.seq});
	}
	return out;
}

const char *DrmMm::check() const
{
	const auto h = hole_list();
	uint64_t sum = 0;
	for (size_t i = 0; i < h.size(); i++) {
		if (!h[i].pages)
			return "empty hole";
		if (h[i].start + h[i].pages > size_)
			return "hole beyond the end";
		if (i && h[i - 1].start + h[i - 1].pages >= h[i].start)
			return "holes overlap or touch (not merged)";
		const uint32_t e = by_end_[h[i].start + h[i].pages];
		if (e == kNil || h_[e].start != h[i].start)
			return "end index out of step";
		sum += h[i].pages;
	}
	if (sum != free_)
		return "free page count is wrong";
	if (h.size() != count_)
		return "hole count out of step";
	// every size list: newest first, each hole of its size, as many as there are holes
	size_t listed = 0;
	for (uint64_t s = sizes_.next(0); s != BitIndex::kNone; s = sizes_.next(s + 1)) {
		uint64_t last = UINT64_MAX;
		for (uint32_t t = size_head_[s]; t != kNil; t = h_[t].next, listed++) {
			if (h_[t].pages != s || h_[t].seq >= last || by_start_[h_[t].start] != t)
				return "size index out of step";
			last = h_[t].seq;
		}
	}
	if (listed != count_)
		return "size index out of step";
	return "";
}

} // namespace vramlab
