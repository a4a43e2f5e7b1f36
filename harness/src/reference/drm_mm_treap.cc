#include "reference/drm_mm_treap.h"

#include <algorithm>

namespace vramlab {

TreapDrmMm::TreapDrmMm(uint64_t pages) : size_(pages)
{
	if (pages)
		add_hole(0, pages);
}

void TreapDrmMm::pull(uint32_t t)
{
	Node &x = n_[t];
	x.max = x.pages;
	if (x.l != kNil)
		x.max = std::max(x.max, n_[x.l].max);
	if (x.r != kNil)
		x.max = std::max(x.max, n_[x.r].max);
}

// a: holes starting below key, b: the rest
void TreapDrmMm::split(uint32_t t, uint64_t key, uint32_t &a, uint32_t &b)
{
	if (t == kNil) {
		a = b = kNil;
		return;
	}
	if (n_[t].start < key) {
		split(n_[t].r, key, n_[t].r, b);
		a = t;
	} else {
		split(n_[t].l, key, a, n_[t].l);
		b = t;
	}
	pull(t);
}

uint32_t TreapDrmMm::merge(uint32_t a, uint32_t b)
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

void TreapDrmMm::add_hole(uint64_t start, uint64_t pages)
{
	uint32_t t;
	if (!free_nodes_.empty()) {
		t = free_nodes_.back();
		free_nodes_.pop_back();
	} else {
		t = uint32_t(n_.size());
		n_.emplace_back();
	}
	rng_ ^= rng_ << 13;
	rng_ ^= rng_ >> 17;
	rng_ ^= rng_ << 5;
	n_[t] = {start, pages, ++seq_, pages, rng_, kNil, kNil};
	uint32_t a, b;
	split(root_, start, a, b);
	root_ = merge(merge(a, t), b);
	by_size_.insert({pages, ~n_[t].seq, t});
	free_ += pages;
}

void TreapDrmMm::rm_hole(uint32_t t)
{
	const Node x = n_[t];
	by_size_.erase({x.pages, ~x.seq, t});
	uint32_t a, b, c;
	split(root_, x.start, a, b);
	split(b, x.start + 1, b, c);
	root_ = merge(a, c);
	free_nodes_.push_back(t);
	free_ -= x.pages;
}

bool TreapDrmMm::reshape_in(uint32_t node, uint32_t t, uint64_t start, uint64_t pages)
{
	if (node == kNil)
		return false;
	if (node == t) {
		n_[t].start = start;
		n_[t].pages = pages;
	} else if (!reshape_in(n_[t].start < n_[node].start ? n_[node].l : n_[node].r, t, start,
	                       pages)) {
		return false;
	}
	pull(node);
	return true;
}

void TreapDrmMm::reshape_hole(uint32_t t, uint64_t start, uint64_t pages)
{
	Node &x = n_[t];
	by_size_.erase({x.pages, ~x.seq, t});
	free_ += pages - x.pages;
	reshape_in(root_, t, start, pages); // searched by its old start, then moved
	x.seq = ++seq_;
	by_size_.insert({pages, ~x.seq, t});
}

uint32_t TreapDrmMm::highest_fit(uint64_t pages) const
{
	uint32_t t = root_;
	if (t == kNil || n_[t].max < pages)
		return kNil;
	for (;;) {
		const Node &x = n_[t];
		if (x.r != kNil && n_[x.r].max >= pages)
			t = x.r;
		else if (x.pages >= pages)
			return t;
		else
			t = x.l;
	}
}

uint32_t TreapDrmMm::find(uint64_t start) const
{
	uint32_t t = root_;
	while (t != kNil && n_[t].start != start)
		t = start < n_[t].start ? n_[t].l : n_[t].r;
	return t;
}

uint32_t TreapDrmMm::ending_at(uint64_t end) const
{
	// the hole with the largest start below end
	uint32_t t = root_, best = kNil;
	while (t != kNil) {
		if (n_[t].start < end) {
			best = t;
			t = n_[t].r;
		} else {
			t = n_[t].l;
		}
	}
	return best != kNil && n_[best].start + n_[best].pages == end ? best : kNil;
}

uint64_t TreapDrmMm::insert(uint64_t pages, Mode mode)
{
	if (pages == 0 || pages > size_)
		return UINT64_MAX;
	uint32_t t;
	if (mode == Mode::Best) {
		auto it = by_size_.lower_bound({pages, 0, 0});
		if (it == by_size_.end())
			return UINT64_MAX;
		t = std::get<2>(*it);
	} else {
		t = highest_fit(pages);
		if (t == kNil)
			return UINT64_MAX;
	}
	const uint64_t hs = n_[t].start, hp = n_[t].pages;
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

bool TreapDrmMm::insert_at(uint64_t start, uint64_t pages)
{
	if (pages == 0 || start + pages > size_)
		return false;
	// the hole with the largest start not above `start`
	uint32_t t = root_, h = kNil;
	while (t != kNil) {
		if (n_[t].start <= start) {
			h = t;
			t = n_[t].r;
		} else {
			t = n_[t].l;
		}
	}
	if (h == kNil || n_[h].start + n_[h].pages < start + pages)
		return false;
	const uint64_t hs = n_[h].start, he = hs + n_[h].pages;
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

void TreapDrmMm::remove(uint64_t start, uint64_t pages)
{
	// The merged hole is added anew (drm_mm_remove_node()'s add_hole(prev_node)); reusing a
	// neighbour's node keeps the address order, so no split or merge is needed for it.
	const uint32_t before = ending_at(start), after = find(start + pages);
	uint64_t s = start, e = start + pages;
	if (after != kNil)
		e += n_[after].pages;
	if (before != kNil) {
		s = n_[before].start;
		if (after != kNil)
			rm_hole(after);
		reshape_hole(before, s, e - s);
	} else if (after != kNil) {
		reshape_hole(after, s, e - s);
	} else {
		add_hole(s, e - s);
	}
}

std::vector<TreapDrmMm::Hole> TreapDrmMm::hole_list() const
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
		out.push_back({n_[t].start, n_[t].pages, n_[t].seq});
		t = n_[t].r;
	}
	return out;
}

const char *TreapDrmMm::check() const
{
	auto h = hole_list();
	uint64_t sum = 0;
	for (size_t i = 0; i < h.size(); i++) {
		if (!h[i].pages)
			return "empty hole";
		if (h[i].start + h[i].pages > size_)
			return "hole beyond the end";
		if (i && h[i - 1].start + h[i - 1].pages >= h[i].start)
			return "holes overlap or touch (not merged)";
		sum += h[i].pages;
	}
	if (sum != free_)
		return "free page count is wrong";
	if (h.size() != by_size_.size())
		return "size index out of step";
	return "";
}

} // namespace vramlab
