// Differential tests: the fast models against the naive references (src/reference) on random
// small traces, for every policy of both models. Any difference is a bug in one of them.
#include <cstdio>

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
	uint64_t resumes = 0, appended = 0, resumed_admit = 0, resumed_bounded = 0, escalations = 0;
	uint64_t repack_scans = 0, repacks = 0;
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
				c.scan_max = mode == 3 ? 2 : 1024;
				if (mode == 9) {
					// the predicted window, with draws of its own so that the candidates it
					// keeps between the evictions of a submission (plain LRU, no guard:
					// about 3 seeds in 4) meet admission, bounds of 2 and 5 entries and the
					// no-fit walk; the naive gathers and sorts anew at every eviction. The
					// key and the admission tests are reuse.h's on both sides (their
					// arithmetic: tests/test_kernel_rules.cc)
					const uint64_t k = seed / 3;
					c.window_predict = true;
					c.admit_predict = seed % 3 != 0;
					c.bo_score = k % 8 == 1;
					c.bo_priority = k % 8 == 2;
					c.guard = k % 8 == 3;
					if (c.stock == Stock::V6_14 && (c.bo_score || c.bo_priority))
						c.stock = Stock::V6_12;
					c.scan_max = seed % 5 == 1 ? 2 : seed % 5 == 2 ? 5 : 1024;
					c.predict_nofit_walk = seed % 7 == 3;
					c.predict_repack = seed % 17 < 7;
					// escalation: a failed bounded scan again with three times the bound
					c.predict_escalate = c.scan_max < 1024 && seed % 11 < 6 ? 3 * c.scan_max : 0;
					c.predict_move_pages = seed % 13 < 5 ? uint32_t(seed % 7) * 8 : 0;
					c.predict_unused = seed % 23 < 8 ? 1 + uint32_t(seed % 5) * 3 : 0;
					c.predict_size_exp2 = uint32_t(seed % 3);
					// the plain prediction's tunables (folds.py), passed on both sides
					c.predict_trusted = 2 + uint32_t(seed % 17 % 3);
					c.predict_regime = 16u << (seed % 19 % 3 * 2);
					c.admit_reads = 1 + uint32_t(k % 2);
					c.admit_gtt_permille = uint32_t(seed * 37 % 3000);
					c.topdown_kib = seed % 4 == 0 ? 16 : 0;
				}
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
				resumes += fast.keep_resumes;
				appended += fast.keep_appended;
				resumed_admit += c.admit_predict ? fast.keep_resumes : 0;
				resumed_bounded += c.scan_max < 1024 ? fast.keep_resumes : 0;
				escalations += fast.window_escalations;
				repack_scans += fast.window_repack_scans;
				repacks += fast.window_repacks;
			}
	}
	// the kept candidates were used, with each of their paths
	EXPECT_GT(resumes, 1000u);
	EXPECT_GT(appended, 100u);
	EXPECT_GT(resumed_admit, 100u);
	EXPECT_GT(resumed_bounded, 100u);
	EXPECT_GT(escalations, 100u);
	EXPECT_GT(repack_scans, 100u);
	EXPECT_GT(repacks, 100u); // and the repack evicted own BOs
	std::printf("predicted window: %llu gathers resumed (%llu from the tail's additions, %llu "
	            "with admission, %llu bounded), %llu scans escalated, %llu repack scans "
	            "(%llu own BOs evicted)\n",
	            (unsigned long long)resumes, (unsigned long long)appended,
	            (unsigned long long)resumed_admit, (unsigned long long)resumed_bounded,
	            (unsigned long long)escalations, (unsigned long long)repack_scans,
	            (unsigned long long)repacks);
}
