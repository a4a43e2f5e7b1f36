#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "sim/heap.h"

using vramlab::IndexedHeap;

namespace {

// Random pushes, key changes (both ways), erases anywhere and pops of the top, against an
// ordered set of (key, id): after every step the top, every key and the heap's own order
// and positions must agree; at the end the heap drains in the set's order. Few distinct
// keys, so that ties (broken by the lower id) are common.
template <class Key> void against_a_set(uint32_t ids, int steps, unsigned seed, int key_range)
{
	std::mt19937 rng(seed);
	IndexedHeap<Key> h(ids);
	std::set<std::pair<Key, uint32_t>> want;
	std::vector<Key> key(ids);
	std::vector<bool> in(ids);
	auto rand_key = [&] { return Key(std::uniform_int_distribution<int>(0, key_range)(rng)); };
	for (int step = 0; step < steps; step++) {
		const uint32_t id = std::uniform_int_distribution<uint32_t>(0, ids - 1)(rng);
		const int what = std::uniform_int_distribution<int>(0, 9)(rng);
		if (!in[id]) {
			key[id] = rand_key();
			h.push(id, key[id]);
			want.insert({key[id], id});
			in[id] = true;
		} else if (what < 4) {
			want.erase({key[id], id});
			key[id] = rand_key();
			h.update(id, key[id]);
			want.insert({key[id], id});
		} else if (what < 6) {
			h.erase(id);
			want.erase({key[id], id});
			in[id] = false;
		} else if (what < 8) { // an eviction: the top leaves
			const uint32_t top = h.top();
			ASSERT_EQ(top, want.begin()->second) << "step " << step;
			h.erase(top);
			want.erase(want.begin());
			in[top] = false;
		}
		ASSERT_STREQ(h.check(), "") << "step " << step;
		ASSERT_EQ(h.size(), want.size()) << "step " << step;
		ASSERT_EQ(h.top(), want.empty() ? UINT32_MAX : want.begin()->second) << "step " << step;
		for (uint32_t i = 0; i < ids; i++) {
			ASSERT_EQ(h.contains(i), bool(in[i])) << "step " << step << ", id " << i;
			if (in[i]) {
				ASSERT_EQ(h.key(i), key[i]) << "step " << step << ", id " << i;
			}
		}
	}
	for (const auto &[k, id] : want) {
		ASSERT_EQ(h.top(), id);
		h.erase(id);
		ASSERT_STREQ(h.check(), "");
	}
	EXPECT_TRUE(h.empty());
}

} // namespace

TEST(IndexedHeap, AgreesWithAnOrderedSetWithIntegerKeys)
{
	for (unsigned seed = 1; seed <= 20; seed++)
		against_a_set<uint64_t>(seed % 2 ? 64 : 300, 4000, seed, seed % 3 ? 1000000 : 5);
}

TEST(IndexedHeap, AgreesWithAnOrderedSetWithFloatingKeys)
{
	for (unsigned seed = 1; seed <= 10; seed++)
		against_a_set<double>(200, 3000, seed, seed % 2 ? 1000 : 3);
}

TEST(IndexedHeap, WideKeysCompareAsKeysFirst)
{
	IndexedHeap<uint64_t> h(4);
	h.push(3, uint64_t(1) << 40);
	h.push(2, (uint64_t(1) << 40) + 1);
	h.push(1, UINT64_MAX);
	h.push(0, UINT64_MAX - 1);
	EXPECT_EQ(h.top(), 3u);
	h.erase(3);
	EXPECT_EQ(h.top(), 2u);
	h.erase(2);
	EXPECT_EQ(h.top(), 0u);
	h.update(0, UINT64_MAX);
	EXPECT_EQ(h.top(), 0u); // a tie: the lower id
	h.erase(0);
	EXPECT_EQ(h.top(), 1u);
	EXPECT_STREQ(h.check(), "");
}
