// The kernel model's flat drm_mm (kmodel/drm_mm.h) against the tree it replaced
// (reference/drm_mm_treap.h): every answer, every hole and its add order, after every step of
// random insert / insert_at / remove sequences, at sizes where the bitmaps' word and summary
// boundaries (64, 4096, 262144 positions) fall inside the allocator; and BitIndex against
// std::set.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "kmodel/drm_mm.h"
#include "reference/drm_mm_treap.h"

using namespace vramlab;

TEST(BitIndex, NextAndPrevAgreeWithASet)
{
	for (uint64_t n : {1ull, 63ull, 64ull, 65ull, 4095ull, 4097ull, 300000ull}) {
		BitIndex b(n);
		std::set<uint64_t> s;
		std::mt19937_64 rng(n);
		for (int step = 0; step < 4000; step++) {
			const uint64_t i = rng() % n;
			if (rng() % 3) {
				b.set(i);
				s.insert(i);
			} else {
				b.clear(i);
				s.erase(i);
			}
			const uint64_t q = rng() % n;
			auto nx = s.lower_bound(q);
			ASSERT_EQ(b.next(q), nx == s.end() ? BitIndex::kNone : *nx) << n << " next " << q;
			auto pv = s.upper_bound(q);
			ASSERT_EQ(b.prev(q), pv == s.begin() ? BitIndex::kNone : *std::prev(pv))
			    << n << " prev " << q;
			ASSERT_EQ(b.test(q), s.count(q) == 1);
		}
		ASSERT_EQ(b.next(n), BitIndex::kNone);
	}
}

namespace {

// One random sequence: nodes are inserted (best, high, or at a free address) and removed;
// both allocators must agree at every step.
void same_as_tree(uint64_t pages, uint64_t seed, int steps, uint64_t max_node)
{
	DrmMm flat(pages);
	TreapDrmMm tree(pages);
	std::map<uint64_t, uint64_t> nodes; // start -> pages
	std::mt19937_64 rng(seed);
	for (int step = 0; step < steps; step++) {
		const unsigned op = unsigned(rng() % 10);
		if (op < 4 || nodes.empty()) {
			const uint64_t n = 1 + rng() % std::min(max_node, pages);
			const auto mode = op == 3 ? DrmMm::Mode::High : DrmMm::Mode::Best;
			const uint64_t a = flat.insert(n, mode);
			const uint64_t b = tree.insert(n, op == 3 ? TreapDrmMm::Mode::High
			                                          : TreapDrmMm::Mode::Best);
			ASSERT_EQ(a, b) << "insert " << n << " at step " << step;
			if (a != UINT64_MAX)
				nodes[a] = n;
		} else if (op < 6) {
			// a node at a free address inside a hole (window eviction's placement), or not
			const auto holes = tree.hole_list();
			if (holes.empty())
				continue;
			const auto &h = holes[rng() % holes.size()];
			const uint64_t at = h.start + rng() % h.pages;
			const uint64_t n = 1 + rng() % std::min<uint64_t>(max_node, pages - at);
			const bool a = flat.insert_at(at, n), b = tree.insert_at(at, n);
			ASSERT_EQ(a, b) << "insert_at " << at << "+" << n << " at step " << step;
			if (a)
				nodes[at] = n;
		} else {
			auto it = nodes.begin();
			std::advance(it, rng() % nodes.size());
			flat.remove(it->first, it->second);
			tree.remove(it->first, it->second);
			nodes.erase(it);
		}
		ASSERT_EQ(flat.free_pages(), tree.free_pages());
		ASSERT_EQ(flat.holes(), tree.holes());
		if (step % 16 == 0 || pages < 5000) {
			const auto fh = flat.hole_list();
			const auto th = tree.hole_list();
			ASSERT_EQ(fh.size(), th.size());
			for (size_t i = 0; i < fh.size(); i++) {
				ASSERT_EQ(fh[i].start, th[i].start) << "step " << step;
				ASSERT_EQ(fh[i].pages, th[i].pages) << "step " << step;
				ASSERT_EQ(fh[i].seq, th[i].seq) << "step " << step;
			}
			ASSERT_STREQ(flat.check(), "");
		}
		const uint64_t q = rng() % (pages + 1);
		ASSERT_EQ(flat.hole_ending_at(q), tree.hole_ending_at(q));
		ASSERT_EQ(flat.hole_starting_at(q), tree.hole_starting_at(q));
	}
}

} // namespace

TEST(DrmMmFlat, SameAsTheTreeOnSmallVram)
{
	for (uint64_t seed = 0; seed < 40; seed++)
		same_as_tree(64 + seed * 37, seed, 3000, 40);
}

TEST(DrmMmFlat, SameAsTheTreeAcrossBitmapWords)
{
	// 16, 64 and 256 MiB, and a size just past a summary word
	for (uint64_t pages : {4096ull, 4097ull, 16384ull, 65536ull, 262145ull})
		same_as_tree(pages, pages, 20000, pages / 64);
}

TEST(DrmMmFlat, SameAsTheTreeWithSmallNodesAtOneGiB)
{
	same_as_tree(1ull << 18, 7, 30000, 700);
}

TEST(DrmMmFlat, RefusesMoreThanSixteenGiB)
{
	EXPECT_THROW(DrmMm(DrmMm::kMaxPages + 1), std::invalid_argument);
	EXPECT_EQ(DrmMm(0).insert(1, DrmMm::Mode::Best), UINT64_MAX);
}
