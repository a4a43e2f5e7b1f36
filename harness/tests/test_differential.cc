// Differential tests: the fast models against the naive references (src/reference) on random
// small traces, for every policy of both models. Any difference is a bug in one of them.
#include <gtest/gtest.h>

#include "reference/compare.h"
#include "reference/naive.h"
#include "helpers.h"

using namespace vramlab;

TEST(Differential, ThesisModelMatchesTheNaiveReference)
{
	const Mlp mlp = test::random_mlp(7);
	for (uint64_t seed = 1; seed <= 600; seed++) {
		const RandomTraces rt = random_traces(seed, 300);
		for (const char *p : {"lru", "minmax", "score", "score-age", "gdsf", "minmax+score", "minmax+gdsf"})
			for (uint64_t vram : {48ull << 10, 200ull << 10, 2ull << 20}) {
				SimConfig c;
				c.vram = vram;
				c.threshold = 16384;
				c.mlp = &mlp;
				std::vector<std::pair<uint32_t, uint64_t>> fast_at, naive_at;
				c.placements = &fast_at;
				const SimResult fast = find_policy(p).run(rt.thesis, c);
				c.placements = &naive_at;
				const SimResult naive = naive_thesis(rt.thesis, c, p);
				ASSERT_EQ(differ(fast, naive), "") << p << " seed " << seed << " vram " << vram;
				ASSERT_EQ(fast_at, naive_at) << p << " seed " << seed << " vram " << vram;
			}
	}
}

TEST(Differential, KernelModelMatchesTheNaiveReference)
{
	for (uint64_t seed = 1; seed <= 600; seed++) {
		const RandomTraces rt = random_traces(seed, 300);
		for (uint64_t vram : {64ull << 10, 256ull << 10, 2ull << 20})
			for (uint32_t topdown : {0u, 16u})
				for (int order = 0; order < 3; order++) // LRU, key, bo->priority
				for (Stock stock : {Stock::V6_12, Stock::V6_14, Stock::V6_14_Fixed}) {
					if (order && stock == Stock::V6_14)
						continue; // refused: key and priority need the tail moves
					const bool key = order == 1;
					KernelConfig c;
					c.stock = stock;
					c.vram = vram;
					c.topdown_kib = topdown;
					c.bo_score = key;
					c.bo_priority = order == 2;
					c.window = key ? 1 + seed % 8 : 256; // small windows: keys cross
					const KernelResult fast = simulate_kernel(rt.kernel, c);
					const KernelResult naive = naive_kernel(rt.kernel, c);
					ASSERT_EQ(differ(fast, naive), "")
					        << "seed " << seed << " vram " << vram << " topdown " << topdown
					        << " order " << order << " kernel " << stock_name(stock);
				}
	}
}

// The series' new mechanisms against their naive versions: the fit rule (stock flushes),
// window eviction (bounded, with and without the cold rule), the move budget, the
// clairvoyant and the predicted window.
TEST(Differential, WindowEvictionAndTheMoveBudgetMatchTheNaiveReference)
{
	for (uint64_t seed = 1; seed <= 300; seed++) {
		const RandomTraces rt = random_traces(seed, 300);
		for (uint64_t vram : {64ull << 10, 256ull << 10, 2ull << 20})
			for (int mode = 0; mode < 10; mode++) {
				KernelConfig c;
				c.vram = vram;
				c.topdown_kib = seed % 3 == 0 ? 16 : 0;
				c.bo_score = seed % 4 == 1 || seed % 4 == 3;
				c.bo_priority = seed % 4 == 2; // under window eviction too
				// the stock submission path under them: 6.12, or (LRU only) 6.14, or 6.14+fix
				c.stock = seed % 5 == 1 ? Stock::V6_14_Fixed
				          : seed % 5 == 2 && !c.bo_score && !c.bo_priority ? Stock::V6_14
				                                                        : Stock::V6_12;
				c.window = 1 + seed % 8;
				c.flush_for_impossible = mode == 0;
				c.scan = mode >= 2 && mode != 5;
				// 7: window-idle, the thrash guard over the walk or the window; 8: the
				// clairvoyant window, with admission on odd seeds
				c.idle_ms = mode == 7 && seed % 2 ? uint32_t(seed % 5) : UINT32_MAX;
				c.guard = mode == 7 && seed % 3 != 0;
				c.scan = c.scan && !(mode == 7 && seed % 3 == 2);
				c.guard_params = {uint32_t(1 + seed % 7), uint32_t(1 + seed % 3),
				                  uint32_t(1 + seed % 11), uint32_t(10 + seed % 80)};
				c.window_oracle = mode == 8;
				c.admit_oracle = mode == 8 && seed % 2;
				// 9: the predicted window (its candidates kept between the evictions of a
				// submission where nothing else moved the LRU: the naive starts over every
				// time), with admission on odd seeds, bounded at 2 or 5 entries on some
				c.window_predict = mode == 9;
				c.admit_predict = mode == 9 && seed % 2;
				c.predict_size_exp2 = uint32_t(seed % 3);
				c.predict_nofit_walk = mode == 9 && seed % 5 == 3;
				c.admit_reads = 1 + uint32_t(seed / 2 % 2);
				c.admit_gtt_permille = uint32_t(seed * 37 % 3000);
				c.guard = c.guard || (mode == 9 && seed % 7 == 0);
				c.scan_max = mode == 3 || (mode == 9 && seed % 6 == 1) ? 2
				             : mode == 9 && seed % 6 == 4              ? 5
				                                                       : 1024;
				c.window_weigh = mode == 6 || (mode == 3 && seed % 2); // the lightest window
				c.window_ends = c.window_weigh && seed % 3 == 1;       // of the two ends
				c.cold_ms = mode == 4 ? uint32_t(seed % 4) : UINT32_MAX;
				c.budget = mode == 4 || mode == 5;
				c.budget_mbps = 1 + seed % 50;
				c.budget_cap_ms = 1 + seed % 5;
				const KernelResult fast = simulate_kernel(rt.kernel, c);
				const KernelResult naive = naive_kernel(rt.kernel, c);
				ASSERT_EQ(differ(fast, naive), "")
				        << "seed " << seed << " vram " << vram << " mode " << mode;
			}
	}
}
