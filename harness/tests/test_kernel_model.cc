// The kernel model (src/kmodel): drm_mm's search rules, radeon's validation and TTM's eviction
// walk on hand-made traces whose outcome can be worked out on paper. The equality with the real
// kernel is the KUnit suite radeon_replay (make -C kernel replay replay-header).
#include <gtest/gtest.h>

#include "helpers.h"
#include "kernel_builder.h"
#include "reference/compare.h"
#include "kmodel/drm_mm.h"
#include "kmodel/kernel_model.h"
#include "kmodel/move_threshold.h"
#include "kmodel/oracle.h"
#include "kmodel/window_choice.h"
#include "train/objective.h"

namespace vramlab {
namespace {

using Mode = DrmMm::Mode;

TEST(DrmMm, BestFitTakesTheSmallestHoleThatFits)
{
	DrmMm mm(100);
	EXPECT_EQ(mm.insert(10, Mode::Best), 0u);  // [0,10)
	EXPECT_EQ(mm.insert(5, Mode::Best), 10u);  // [10,15)
	EXPECT_EQ(mm.insert(20, Mode::Best), 15u); // [15,35)
	EXPECT_EQ(mm.insert(8, Mode::Best), 35u);  // [35,43)
	mm.remove(0, 10);                          // hole [0,10)
	mm.remove(15, 20);                         // hole [15,35)
	// holes: [0,10) 10 pages, [15,35) 20, [43,100) 57: 9 pages go to the 10-page hole
	EXPECT_EQ(mm.insert(9, Mode::Best), 0u);
	// 11 pages: the 20-page hole, at its low end
	EXPECT_EQ(mm.insert(11, Mode::Best), 15u);
	EXPECT_STREQ(mm.check(), "");
}

TEST(DrmMm, BestFitTieGoesToTheHoleAddedLast)
{
	DrmMm mm(64);
	for (uint64_t a = 0; a < 64; a += 8)
		ASSERT_EQ(mm.insert(8, Mode::Best), a);
	mm.remove(40, 8); // first 8-page hole
	mm.remove(8, 8);  // second, added later
	EXPECT_EQ(mm.insert(8, Mode::Best), 8u);
	mm.remove(8, 8);  // re-added: now the newest
	mm.remove(24, 8); // newest again
	EXPECT_EQ(mm.insert(4, Mode::Best), 24u);
}

TEST(DrmMm, HighTakesTheHighestHoleThatFitsAtItsTop)
{
	DrmMm mm(100);
	EXPECT_EQ(mm.insert(10, Mode::High), 90u);
	EXPECT_EQ(mm.insert(30, Mode::Best), 0u);  // [0,30)
	EXPECT_EQ(mm.insert(20, Mode::Best), 30u); // [30,50)
	mm.remove(0, 30);                          // holes [0,30) and [50,90)
	EXPECT_EQ(mm.insert(40, Mode::High), 50u); // the top hole fits exactly
	EXPECT_EQ(mm.insert(5, Mode::High), 25u);  // only [0,30) left: its top
	EXPECT_EQ(mm.insert(26, Mode::High), UINT64_MAX);
	EXPECT_STREQ(mm.check(), "");
}

TEST(DrmMm, RemoveMergesWithBothNeighbours)
{
	DrmMm mm(30);
	mm.insert(10, Mode::Best);
	mm.insert(10, Mode::Best);
	mm.insert(10, Mode::Best);
	mm.remove(0, 10);
	mm.remove(20, 10);
	mm.remove(10, 10);
	auto h = mm.hole_list();
	ASSERT_EQ(h.size(), 1u);
	EXPECT_EQ(h[0].start, 0u);
	EXPECT_EQ(h[0].pages, 30u);
	EXPECT_EQ(mm.insert(0, Mode::Best), UINT64_MAX); // drm_mm refuses size 0
}

TEST(KernelModel, CreatesEvictLeastRecentlyUsedFirst)
{
	Builder b;
	const auto x = b.create(400), y = b.create(400);
	b.cs({{x, false}});                     // x used after y: y is older
	b.create(400);                          // 1200 KiB > 1024: one eviction, y
	auto r = b.run(1024);
	EXPECT_EQ(r.evictions(), 1u);
	EXPECT_EQ(r.mem[MemVram].evicted_bytes, 400u * 1024);
	(void)y;
}

// Linux 6.14's drm_exec conversion dropped the tail moves at the end of a submission: a buffer
// used in every submission keeps the LRU position of its placement and is evicted first
// (kernel/notes/radeon-lru-since-6.14.md). The fix restores 6.12's order.
TEST(KernelModel, SixFourteenEvictsTheBufferInUseAndTheFixDoesNot)
{
	Builder b;
	const auto hot = b.create(400), cold = b.create(400);
	b.cs({{hot, false}}); // hot used after cold was placed; cold never again
	b.cs({{hot, false}});
	b.create(400); // 1200 KiB > 1024: one eviction
	for (Stock s : {Stock::V6_12, Stock::V6_14, Stock::V6_14_Fixed}) {
		const KernelResult r = b.run(1024, 0, false, s);
		EXPECT_EQ(r.evictions(), 1u) << stock_name(s);
		// the next use of hot finds it in GTT on 6.14 only: one more submission tells
		Builder again = b;
		again.cs({{hot, false}});
		const KernelResult r2 = again.run(1024, 0, false, s);
		EXPECT_EQ(r2.vram_in_from_gtt, s == Stock::V6_14 ? 1u : 0u)
		        << stock_name(s) << ": the buffer in use was "
		        << (r2.vram_in_from_gtt ? "evicted" : "kept");
	}
	(void)cold;
}

// 6.14-7.2 validates every entry of the list: a buffer named twice, VRAM then GTT, ends in GTT
// there; 6.12 validated only the first entry (the others went to ttm_eu's duplicates list), and
// so does 7.2 with the fixes (patches/linux-7.2/: drm_exec's -EALREADY entries off the list).
TEST(KernelModel, SixFourteenValidatesDuplicateEntries)
{
	Builder b;
	const auto x = b.create(4, DomainGtt);
	KernelCs c;
	c.first = 0;
	c.n = 2;
	CsReloc v, g;
	v.id = g.id = x;
	v.read_domains = DomainVram;
	g.read_domains = DomainGtt;
	b.t.relocs = {v, g};
	b.t.ops.push_back(KernelTrace::pack(KernelTrace::Cs, 0));
	b.t.cs.push_back(c);
	EXPECT_EQ(b.run(1024).mem[MemVram].moves_in, 1u);
	EXPECT_EQ(b.run(1024).gtt_accesses, 0u);
	const KernelResult r = b.run(1024, 0, false, Stock::V6_14);
	EXPECT_EQ(r.mem[MemVram].moves_in, 1u);
	EXPECT_EQ(r.mem[MemVram].moves_out, 1u); // back to GTT
	EXPECT_EQ(r.gtt_accesses, 1u);
	EXPECT_EQ(differ(b.run(1024), b.run(1024, 0, false, Stock::V6_14_Fixed)), "");
}

// Every trace of the repository (games cut from the thesis's corpus, the live programs),
// read as decide reads them: dead ids repaired, impossible creates kept.
std::vector<KernelTrace> repository_traces()
{
	namespace fs = std::filesystem;
	const fs::path root = fs::path(VRAMLAB_SOURCE_DIR) / "..";
	std::vector<KernelTrace> traces;
	for (const char *dir : {"traces", "traces/live"})
		for (const auto &e : fs::directory_iterator(root / dir))
			if (e.path().extension() == ".bin" || e.path().extension() == ".vrl")
				traces.push_back(load_kernel_trace(e.path().string(),
				                                   {OnDestroyed::Repair, OnImpossible::Keep}));
	return traces;
}

// The fixes are 6.12's order again: on every trace of the repository (games cut from the
// thesis's corpus, the live programs), at sizes with pressure, every counter and the placement
// digest.
TEST(KernelModel, SixFourteenWithTheFixIsSixTwelveOnEveryTrace)
{
	const std::vector<KernelTrace> traces = repository_traces();
	ASSERT_GE(traces.size(), 10u);
	size_t differ_614 = 0, runs = 0;
	for (const KernelTrace &t : traces) {
		for (uint64_t mib : {8, 16, 64}) {
			KernelConfig c;
			c.vram = mib << 20;
			const KernelResult a = simulate_kernel(t, c);
			c.stock = Stock::V6_14_Fixed;
			EXPECT_EQ(differ(a, simulate_kernel(t, c)), "") << t.name << " at " << mib << " MiB";
			// only a run under pressure (one that evicts) can tell the two kernels apart
			if (a.evictions() == 0)
				continue;
			c.stock = Stock::V6_14;
			differ_614 += differ(a, simulate_kernel(t, c)) != "";
			runs++;
		}
	}
	// and the test can tell: without the fix most runs under pressure differ
	EXPECT_GT(differ_614, runs / 2) << differ_614 << " of " << runs << " runs under pressure";
}

// decide prepares radeon's lists once per trace and grouping (prepare_submissions()): every
// run from them must be the run that builds each list itself, on both kernels' paths, with
// key order, priorities, window eviction and the budget, under pressure and without.
TEST(KernelModel, PreparedListsGiveTheSameRunOnEveryTrace)
{
	const std::vector<KernelTrace> traces = repository_traces();
	ASSERT_GE(traces.size(), 10u);
	size_t dup_lists = 0, sorted_lists = 0;
	for (const KernelTrace &t : traces) {
		const Submissions s = prepare_submissions(t);
		for (size_t k = 0; k < t.cs.size(); k++) {
			dup_lists += s.cs[k].head < t.cs[k].n;
			for (uint32_t i = 0; i < t.cs[k].n; i++)
				sorted_lists += s.list[t.cs[k].first + i].pos != i;
		}
		for (const char *policy : {"lru", "6.14:lru", "6.14+fix:lru", "minmax+key", "prio", "window",
		                           "window+budget"})
			for (uint64_t mib : {8, 64}) {
				KernelConfig c;
				c.vram = mib << 20;
				apply_choice(kernel_choice(policy, 512), c);
				EXPECT_EQ(differ(simulate_kernel(t, c), simulate_kernel(t, s, c)), "")
				        << t.name << " " << policy << " at " << mib << " MiB";
			}
	}
	// the corpus has lists that name a BO twice and lists the priorities reorder
	EXPECT_GT(dup_lists, 0u);
	EXPECT_GT(sorted_lists, 0u);
	// and a trace's lists are refused for another trace
	EXPECT_THROW(simulate_kernel(traces[0], prepare_submissions(traces[1]), KernelConfig{}),
	             std::logic_error);
}

// decide passes the oracle's and the network's scores as a vector per size: the run must be
// the run of the trace copy that carries them (with_oracle_scores(), scored_trace()).
TEST(KernelModel, ScoresGivenApartAreTheRunOfATraceCarryingThem)
{
	const KernelTrace t = load_kernel_trace(test::repo_trace("supertuxkart2.bin"));
	const Submissions s = prepare_submissions(t);
	const Mlp m = Mlp::load(std::string(VRAMLAB_SOURCE_DIR) + "/weights/trained-kernel.txt");
	const TrainTrace tt = prepare_train_trace(t, 256ull << 20);
	for (uint64_t mib : {32, 64}) {
		KernelConfig c;
		c.vram = mib << 20;
		apply_choice(kernel_choice("minmax+key", 512), c);
		const std::vector<uint32_t> oracle = oracle_scores(t, c.window);
		const KernelResult by_oracle = simulate_kernel(t, s, c, &oracle);
		EXPECT_EQ(differ(simulate_kernel(with_oracle_scores(t, c.window), c), by_oracle), "") << mib;
		const std::vector<uint32_t> net = net_scores(tt, m, mib);
		const KernelResult by_net = simulate_kernel(t, s, c, &net);
		EXPECT_EQ(differ(simulate_kernel(scored_trace(tt, m, mib), c), by_net), "") << mib;
		// and the scores matter: the two orders differ from each other
		EXPECT_NE(by_oracle.digest, by_net.digest) << mib;
	}
	const std::vector<uint32_t> short_scores(t.relocs.size() - 1);
	EXPECT_THROW(simulate_kernel(t, s, KernelConfig{}, &short_scores), std::logic_error);
}

TEST(KernelModel, ABufferLargerThanVramEvictsEverythingOnStockAndNothingWithTheSeries)
{
	Builder b;
	b.create(256);
	b.create(256);
	const auto big = b.create(2048);
	b.cs({{big, true}});
	KernelConfig stock;
	stock.vram = 1024 * 1024;
	stock.flush_for_impossible = true;
	auto r = simulate_kernel(b.t, stock);
	EXPECT_EQ(r.evictions(), 2u); // radeon_bo_create() in VRAM evicts all, then VRAM|GTT
	EXPECT_EQ(r.creates, 3u);
	EXPECT_EQ(r.gtt_accesses, 1u); // the GPU writes it in GTT
	EXPECT_EQ(r.mem[MemGtt].moves_in, 3u);
	r = b.run(1024); // the series: ttm_range_man_alloc() says -E2BIG, nothing is evicted
	EXPECT_EQ(r.evictions(), 0u);
	EXPECT_EQ(r.impossible_noevict, 2u); // the create (VRAM, then VRAM|GTT) and the CS
	EXPECT_EQ(r.creates, 3u);
	EXPECT_EQ(r.gtt_accesses, 1u);
	EXPECT_EQ(r.mem[MemGtt].moves_in, 1u);
}

TEST(DrmMm, InsertAtSplitsTheHoleBelowThenAbove)
{
	DrmMm mm(100);
	ASSERT_TRUE(mm.insert_at(40, 10));
	auto h = mm.hole_list();
	ASSERT_EQ(h.size(), 2u);
	EXPECT_EQ(h[0].start, 0u);
	EXPECT_EQ(h[0].pages, 40u);
	EXPECT_EQ(h[1].start, 50u);
	EXPECT_EQ(h[1].pages, 50u);
	EXPECT_LT(h[0].seq, h[1].seq); // the part below is added first (drm_mm's add_hole order)
	EXPECT_FALSE(mm.insert_at(45, 2)); // not free
	EXPECT_FALSE(mm.insert_at(35, 10)); // crosses the node
	EXPECT_FALSE(mm.insert_at(95, 10)); // past the end
	ASSERT_TRUE(mm.insert_at(0, 40));   // a whole hole
	EXPECT_EQ(mm.holes(), 1u);
	EXPECT_EQ(mm.hole_ending_at(100), 50u);
	EXPECT_EQ(mm.hole_starting_at(50), 100u);
	EXPECT_EQ(mm.hole_starting_at(0), UINT64_MAX);
	EXPECT_STREQ(mm.check(), "");
}

KernelConfig scan_config(uint64_t vram_kib) { return checked_config(vram_kib, true); }

// Four 256 KiB BOs fill 1 MiB: [a][b][c][d] at 0, 256K, 512K, 768K.
TEST(KernelModel, TheWindowAndTheWalkAgreeWhenTheFirstVictimOpensTheHole)
{
	Builder b;
	const auto x = b.create(256), y = b.create(256), z = b.create(256), w = b.create(256);
	b.cs({{x, false}});
	b.cs({{z, false}});
	b.cs({{w, false}});
	b.destroy(y); // hole [256K, 512K); LRU: x z w
	b.create(512);
	const auto walk = b.run(1024);
	const auto win = simulate_kernel(b.t, scan_config(1024));
	// the walk evicts x: [0, 512K) fits; the scan adds x: the same span, the same window
	EXPECT_EQ(walk.evictions(), 1u);
	EXPECT_EQ(win.evictions(), 1u);
	EXPECT_EQ(win.windows, 1u);
	EXPECT_EQ(win.digest, walk.digest);
}

TEST(KernelModel, TheWindowLeavesTheWalksUselessVictimsResident)
{
	Builder b;
	const auto a = b.create(256), bb = b.create(256), c = b.create(256), d = b.create(256);
	b.cs({{d, false}});
	b.cs({{a, false}});
	b.cs({{c, false}});
	b.destroy(bb); // hole [256K, 512K); LRU: d a c
	b.create(512);
	// the walk evicts d ([768K, 1M): 256 KiB, no fit), then a ([0, 512K): fits): two
	// evictions. The scan: d (span 256 KiB), a (span [0, 512K): the window): a alone.
	const auto walk = b.run(1024);
	KernelConfig k = scan_config(1024);
	const auto win = simulate_kernel(b.t, k);
	EXPECT_EQ(walk.evictions(), 2u);
	EXPECT_EQ(win.evictions(), 1u);
	EXPECT_EQ(win.windows, 1u);
	EXPECT_EQ(win.window_saved_pages, 64u); // d: the 256 KiB the walk evicted for nothing
	k.cold_ms = 0; // every scanned candidate is cold: exactly the walk
	const auto cold = simulate_kernel(b.t, k);
	EXPECT_EQ(cold.evictions(), 2u);
	EXPECT_EQ(cold.window_cold, 1u);
	EXPECT_EQ(cold.digest, walk.digest);
	k.scan_max = 1; // one candidate (d) and no window: the walk
	const auto bounded = simulate_kernel(b.t, k);
	EXPECT_EQ(bounded.window_fallbacks, 1u);
	EXPECT_EQ(bounded.digest, walk.digest);
}

TEST(KernelModel, TheScanNeverEvictsWhenNothingCanFit)
{
	Builder b;
	const auto x = b.create(256), y = b.create(256), z = b.create(256);
	const auto big = b.create(768, DomainGtt); // in GTT: no eviction at create
	b.cs({{y, false}, {big, false}});           // both wanted in VRAM; y is held by the CS
	// 256 KiB free at the top, y reserved at [256K, 512K): without it the largest span is
	// [512K, 1M), 512 KiB: no window, nothing evicted, big read from GTT
	const auto r = simulate_kernel(b.t, scan_config(1024));
	EXPECT_EQ(r.window_nofit, 1u);
	EXPECT_EQ(r.windows, 0u);
	EXPECT_EQ(r.evictions(), 0u);
	EXPECT_EQ(r.gtt_accesses, 1u);
	const auto walk = b.run(1024);
	EXPECT_EQ(walk.evictions(), 2u); // the walk evicts x and z, then fails all the same
	EXPECT_EQ(walk.gtt_accesses, 1u);
	(void)x;
	(void)z;
}

TEST(KernelModel, TheWindowTakesTheTopOfTheSpanForTopDownBos)
{
	Builder b;
	const auto [a, bb, c, d] = b.four_used_in_order();
	b.destroy(c); // hole [512K, 768K); LRU: a b d
	b.create(512); // top-down (threshold 256 KiB): span of a is [0,256K); of b: [0, 768K)
	KernelConfig k = scan_config(1024);
	k.topdown_kib = 256;
	const auto r = simulate_kernel(b.t, k);
	// the window is the top 512 KiB of [0, 768K): [256K, 768K): b only; a stays
	EXPECT_EQ(r.windows, 1u);
	EXPECT_EQ(r.evictions(), 1u);
	EXPECT_EQ(r.window_saved_pages, 64u);
	KernelConfig walk = k;
	walk.scan = false;
	EXPECT_EQ(simulate_kernel(b.t, walk).evictions(), 2u);
	(void)d;
}

TEST(KernelModel, TheMoveBudgetAccruesWithTimeAndIsDebited)
{
	// 4 MiB of VRAM, 3.75 MiB of it a BO no submission uses; four 256 KiB BOs in GTT that
	// every submission wants in VRAM. Budget: 100 MB/s (100 bytes/us), at most 10 ms.
	Builder b;
	b.create(3840);
	std::vector<uint32_t> g;
	for (int i = 0; i < 4; i++)
		g.push_back(b.create(256, DomainGtt));
	for (int i = 0; i < 3; i++)
		b.cs({{g[0], false}, {g[1], false}, {g[2], false}, {g[3], false}});
	b.t.cs_us = {0, 1000, 20000};
	KernelConfig k;
	k.vram = 4 << 20;
	k.budget = true;
	k.budget_mbps = 100;
	k.budget_cap_ms = 10;
	k.check_every = 1;
	const auto r = simulate_kernel(b.t, k);
	// CS 0 at 0: nothing accrued, 256 KiB free is under an eighth: nothing moves.
	// CS 1 at 1 ms: 1000 us = 100,000 bytes: g0 moves (into the free 256 KiB), the rest
	//   stays; debit 262,144 / 100 = 2,621 us: -1,621.
	// CS 2 at 20 ms: 19 ms accrued repay the debt and reach the 10 ms cap: 1,000,000 bytes:
	//   g1 moves, evicting the filler (3.75 MiB): over budget, g2 and g3 stay.
	EXPECT_EQ(r.vram_in_from_gtt, 2u);
	EXPECT_EQ(r.evictions(), 1u);
	EXPECT_EQ(r.threshold_cs, 3u);
	EXPECT_EQ(r.threshold_bos, 4u + 3u + 2u);
	// radeon's per-submission threshold (1 MiB with VRAM over half full) moves all four by
	// the second submission
	k.budget = false;
	const auto rr = simulate_kernel(b.t, k);
	EXPECT_EQ(rr.vram_in_from_gtt, 4u);
}

// The kernel's ttm_move_budget_cap and ttm_move_budget_debt_max, in the model
TEST(MoveThreshold, AnIdleAsLongAsADebtRepaysItAndNoDebitWrapsIntoACredit)
{
	MoveThreshold m(4 << 20, true, 100, 10);
	EXPECT_EQ(m.threshold(4 << 20, 1000), 100000u);
	m.debit(2'600'000); // 26,000 us: 25,000 of debt, over twice the cap
	EXPECT_EQ(m.budget_us(), -25000);
	EXPECT_EQ(m.threshold(4 << 20, 20000), 0u); // 19 ms idle: 6 ms of debt left
	EXPECT_EQ(m.budget_us(), -6000);
	EXPECT_EQ(m.threshold(4 << 20, 36000), 1'000'000u); // 16 ms more: repaid, the cap
	for (int i = 0; i < 3; i++)
		m.debit(UINT64_MAX);
	EXPECT_EQ(m.budget_us(), -MoveThreshold::kDebtMaxUs);
	EXPECT_EQ(m.threshold(4 << 20, 36000 + uint64_t(MoveThreshold::kDebtMaxUs) - 1), 0u);
	EXPECT_EQ(m.threshold(4 << 20, 36000 + uint64_t(MoveThreshold::kDebtMaxUs) + 10000),
		  1'000'000u);
}

TEST(KernelModel, AGpuWriteIsServedFromGttWhenTheSubmissionHoldsTheRest)
{
	Builder b;
	const auto a = b.create(600), c = b.create(600); // c evicts a
	b.cs({{a, false}, {c, true}}); // a cannot come back: c is reserved
	auto r = b.run(1024);
	EXPECT_EQ(r.evictions(), 1u);
	EXPECT_EQ(r.gtt_accesses, 1u);
	EXPECT_EQ(r.gtt_access_bytes, 600u * 1024);
	EXPECT_EQ(r.vram_in_from_gtt, 0u);
}

TEST(KernelModel, ZeroSizeCreatesAreRefusedAndTheirSubmissionsToo)
{
	Builder b;
	const auto a = b.create(900);
	const auto z = b.create(0);
	b.cs({{a, false}, {z, false}});
	auto r = b.run(1024);
	EXPECT_EQ(r.creates, 1u);
	EXPECT_EQ(r.creates_refused, 1u);
	EXPECT_EQ(r.cs, 0u);
	EXPECT_EQ(r.cs_rejected, 1u); // drm_gem_object_lookup() fails
	EXPECT_EQ(r.evictions(), 0u); // a refused create evicts nothing
}

TEST(KernelModel, ACpuDomainRelocationRejectsTheSubmission)
{
	Builder b;
	const auto a = b.create(4);
	b.cs({{a, false}}, {}, DomainCpu);
	auto r = b.run(1024);
	EXPECT_EQ(r.cs_rejected, 1u);
	EXPECT_EQ(r.stamp, 4096u);
}

TEST(KernelModel, TheMoveThresholdKeepsBuffersInGtt)
{
	// 8 MiB VRAM, half used: the threshold is 1 MiB. Three 1 MiB BOs in GTT: the first two
	// move (the threshold is crossed only after the second), the third stays.
	Builder b;
	const auto fill = b.create(4096);
	const auto x = b.create(1024, DomainGtt), y = b.create(1024, DomainGtt),
	           z = b.create(1024, DomainGtt);
	b.cs({{fill, false}, {x, false}, {y, false}, {z, false}});
	auto r = b.run(8192);
	EXPECT_EQ(r.threshold_cs, 1u);
	EXPECT_EQ(r.threshold_bos, 1u);
	EXPECT_EQ(r.vram_in_from_gtt, 2u);
	EXPECT_EQ(r.gtt_accesses, 1u);
}

TEST(KernelModel, TopDownPlacementAboveTheThreshold)
{
	Builder b;
	for (int i = 0; i < 3; i++) {
		b.create(64);
		b.create(600);
	}
	auto bottom = b.run(2048, 0), top = b.run(2048, 512);
	EXPECT_NE(bottom.digest, top.digest);
	EXPECT_EQ(bottom.evictions(), top.evictions());
}

TEST(KernelModel, LowScoresAreEvictedFirstAndNeutralIsLru)
{
	Builder b;
	const auto a = b.create(400), c = b.create(400);
	b.cs({{a, false}}, {0xffffffffu});
	b.cs({{c, false}}, {0}); // c is newer but demoted by a whole window
	b.create(400);
	auto lru = b.run(1024, 0, false), key = b.run(1024, 0, true);
	EXPECT_EQ(lru.evictions(), 1u);
	EXPECT_EQ(key.evictions(), 1u);
	EXPECT_NE(lru.digest, key.digest); // LRU evicts a, key order evicts c
	EXPECT_EQ(key.stamp, 4098u);
}

// The bo->priority variant: TTM's lowest list first, LRU inside a list; neutral scores keep
// every BO in the top list, which is LRU.
TEST(KernelModel, PriorityListsEvictTheLowestFirstAndLruInsideOne)
{
	Builder b;
	const auto c = b.create(500), a = b.create(400), d = b.create(300);
	b.cs({{c, false}}, {kScoreNeutral}); // list 3
	b.cs({{a, false}}, {0x40000000u});   // list 1
	b.cs({{d, false}}, {0x7fffffffu});   // list 1, newer than a
	b.create(300);                       // one eviction: LRU takes c, priority a
	KernelConfig k;
	k.vram = 1200 * 1024;
	k.check_every = 1;
	const KernelResult lru = simulate_kernel(b.t, k);
	k.bo_priority = true;
	const KernelResult prio = simulate_kernel(b.t, k);
	EXPECT_EQ(lru.mem[MemVram].evicted_bytes, 500u * 1024);
	EXPECT_EQ(prio.mem[MemVram].evicted_bytes, 400u * 1024);
	EXPECT_EQ(radeon_bo_priority(kScoreNeutral), kTtmPriorities - 1);
	EXPECT_EQ(radeon_bo_priority(0), 0u);

	Builder n; // no scores: the top list alone, LRU
	const auto x = n.create(400);
	n.create(400);
	n.cs({{x, false}});
	n.create(400);
	k.vram = 1024 * 1024;
	const KernelResult nl = simulate_kernel(n.t, k);
	k.bo_priority = false;
	EXPECT_EQ(simulate_kernel(n.t, k).digest, nl.digest);

	k.bo_score = k.bo_priority = true;
	EXPECT_THROW(simulate_kernel(n.t, k), std::invalid_argument);
}

TEST(KernelModel, EvictKeyArithmeticMatchesTheSeries)
{
	EXPECT_EQ(radeon_evict_key(10000, kScoreNeutral, 256), 10000u);
	EXPECT_EQ(radeon_evict_key(10000, 0, 256), 10000u - 255);
	EXPECT_EQ(radeon_evict_key(10000, 0, 1), 10000u);
	EXPECT_EQ(radeon_evict_key(10000, 0x80000000u, 256), 10000u - 127);
	EXPECT_EQ(radeon_evict_key(10000, 0, 4096), 10000u - 4095);
}

TEST(KernelTrace, ThesisTracesGetOneSubmissionPerMillisecond)
{
	const std::string text = "0x1 created, size 4096, prio 0, @0\n"
	                         "0x2 created, size 4096, prio 1, @0\n"
	                         "0x1 read @1\n0x2 write @1\n0x1 write @1\n"
	                         "0x2 read @2\n0x1 cpu mapped @2\n0x1 read @2\n";
	KernelTrace t = load_kernel_trace(
	        [&text] {
		        return open_trace_memory(reinterpret_cast<const uint8_t *>(text.data()),
		                                 text.size(), "t");
	        },
	        "t");
	ASSERT_EQ(t.cs.size(), 3u); // tick 1; tick 2 split by the CPU map
	EXPECT_EQ(t.cs[0].n, 2u);   // buffer 0 twice in tick 1: one relocation, written
	EXPECT_EQ(t.relocs[0].write_domain, DomainVram);
	EXPECT_EQ(t.relocs[0].read_domains, DomainVram);
	EXPECT_EQ(t.relocs[1].prio, 15); // high priority
	EXPECT_TRUE(t.synthesized);
}

// v2.2: both models keep one priority per buffer, for its whole life: the CREATE flag or any
// relocation of the buffer with the high-priority-use bit, wherever it comes in the trace.
TEST(KernelTrace, AHighPriorityUseMakesTheBufferHighPriorityForItsWholeLife)
{
	const uint8_t V = DomainVram;
	// 0: CREATE flag; 1: used plain, then with the bit; 2: never; 3: with the bit, then plain.
	const std::vector<CsReloc> a = {{0, V, 0, 0, false, kScoreNeutral},
	                                {1, V, 0, 0, false, kScoreNeutral},
	                                {3, 0, V, 0, true, kScoreNeutral}};
	const std::vector<CsReloc> b = {{1, 0, V, 2, true, kScoreNeutral},
	                                {2, V, 0, 0, false, kScoreNeutral}};
	const std::vector<CsReloc> c = {{3, V, 0, 0, false, kScoreNeutral}};
	Event destroy;
	destroy.type = EventType::Destroy;
	destroy.id = 1;
	destroy.time_us = 4000;
	const std::string path = test::temp_path("hp-models.vrl");
	test::write_v2(path, {test::create_event(0, 4096, true), test::create_event(1, 8192),
	                      test::create_event(2, 4096), test::create_event(3, 4096),
	                      test::cs_event(a, 1000), test::cs_event(b, 2000),
	                      test::cs_event(c, 3000), destroy});
	const KernelTrace k = load_kernel_trace(path);
	EXPECT_EQ(k.prio, (std::vector<uint8_t>{kPrioAtCreate, kPrioInUse, 0, kPrioInUse}));
	ASSERT_EQ(k.relocs.size(), 6u);
	EXPECT_EQ(k.relocs[3].prio, 2);          // the kernel's priority, as sent
	EXPECT_TRUE(k.relocs[3].high_prio_use);  // and the use beside it
	EXPECT_FALSE(k.synthesized);
	const CompactTrace t = load_compact(path, OnDestroyed::Skip);
	EXPECT_EQ(t.prio, (std::vector<uint8_t>{1, 1, 0, 1}));
	// The same trace as 2.1 without the bits: the CREATE flag alone.
	std::vector<CsReloc> plain[] = {a, b, c};
	for (auto &v : plain)
		for (CsReloc &r : v)
			r.high_prio_use = false;
	test::write_v2(path, {test::create_event(0, 4096, true), test::create_event(1, 8192),
	                      test::create_event(2, 4096), test::create_event(3, 4096),
	                      test::cs_event(plain[0]), test::cs_event(plain[1]),
	                      test::cs_event(plain[2])},
	               1);
	EXPECT_EQ(load_kernel_trace(path).prio, (std::vector<uint8_t>{kPrioAtCreate, 0, 0, 0}));
	EXPECT_EQ(load_compact(path, OnDestroyed::Skip).prio, (std::vector<uint8_t>{1, 0, 0, 0}));
}

// The lightest window (window_choice.h): a span of 10 pages holding, in address order, a hot
// candidate (rank 9) at 0..2, a cold one (rank 0) at 2..4, a hole at 4..6 and a warm one
// (rank 5) at 6..10. A BO of 4 pages: the first window (0..4) weighs 2x10 + 2x1 = 22; 2..6
// weighs 2x1 = 2, the lightest; top-down, its highest equal start is the same 2. A cheaper
// window never costs more than the first one, and with one candidate every window is it.
TEST(WindowChoice, TheLightestWindowAvoidsHotVictims)
{
	const std::vector<WindowCandidate> c = {{0, 2, 9}, {2, 2, 0}, {6, 4, 5}};
	EXPECT_EQ(lightest_window(0, 10, 4, c, false), 2u);
	EXPECT_EQ(lightest_window(0, 10, 4, c, true), 2u);
	// the two ends only (nothing left split): 0..4 weighs 22, 6..10 weighs 4 x 6 = 24
	EXPECT_EQ(lightest_window(0, 10, 4, c, false, true), 0u);
	EXPECT_EQ(lightest_window(0, 10, 4, std::vector<WindowCandidate>{{0, 2, 9}, {2, 2, 0}, {6, 4, 1}},
	                          false, true),
	          6u);
	// a BO of 2 pages fits in the hole: nothing to evict, bottom-up and top-down alike
	EXPECT_EQ(lightest_window(0, 10, 2, c, false), 4u);
	EXPECT_EQ(lightest_window(0, 10, 2, c, true), 4u);
	// the whole span: only one window
	EXPECT_EQ(lightest_window(0, 10, 10, c, false), 0u);
	// equal weights: the first rule's placement (the span's start, top-down its end)
	const std::vector<WindowCandidate> same = {{0, 4, 0}, {4, 4, 1}, {8, 4, 0}};
	EXPECT_EQ(lightest_window(0, 12, 4, same, false), 0u);
	EXPECT_EQ(lightest_window(0, 12, 4, same, true), 8u);
}

} // namespace
} // namespace vramlab


// The 6.14 path is proven on 7.2's own code (make -C kernel replay-7.2): the names of what was
// proven are the same kernels as the model's historic ones.
TEST(KernelModel, SevenTwoNamesTheSixFourteenPath)
{
	EXPECT_EQ(vramlab::parse_stock("7.2"), vramlab::Stock::V6_14);
	EXPECT_EQ(vramlab::parse_stock("7.2+fix"), vramlab::Stock::V6_14_Fixed);
	EXPECT_EQ(vramlab::parse_stock("6.14"), vramlab::Stock::V6_14);
	EXPECT_THROW(vramlab::parse_stock("7.3"), std::invalid_argument);
}

namespace vramlab {

// decide's twin rule (cli/decide.cc): every eviction rule acts in ttm_bo_evict_alloc() and
// nowhere else, so a run whose stock twin (same kernel, placement and threshold) never got
// there is that run. On every trace of the repository, at sizes with and without pressure:
// where lru never reached evict_alloc(), each rule's figures and placement are lru's; and
// the rules do differ from lru where it did (else the test could not tell).
TEST(KernelModel, AnEvictionRuleIsStockWhereStockNeverEvicts)
{
	const std::vector<KernelTrace> traces = repository_traces();
	ASSERT_GE(traces.size(), 10u);
	size_t same = 0, differ_under_pressure = 0, fit_same = 0;
	for (const KernelTrace &t : traces) {
		for (uint64_t mib : {2, 8, 32, 256}) { // 2 MiB: BOs larger than VRAM
			KernelConfig base; // stock lru (a default KernelConfig has the fit rule on)
			base.vram = mib << 20;
			base.per_frame = true;
			apply_choice(kernel_choice("lru", 0), base);
			const KernelResult a = simulate_kernel(t, base);
			for (const char *rule : {"fit", "window", "key", "prio", "guard", "window-idle+guard",
			                         "window-weigh", "window-oracle+admit", "window-predict",
			                         "window-predict+admit"}) {
				KernelConfig c = base;
				apply_choice(kernel_choice(rule, 0), c);
				const KernelResult b = simulate_kernel(t, c);
				const bool equal = a.bytes_to_vram() == b.bytes_to_vram() &&
				                   a.bytes_from_vram() == b.bytes_from_vram() &&
				                   a.moves() == b.moves() && a.evictions() == b.evictions() &&
				                   a.gtt_access_bytes == b.gtt_access_bytes &&
				                   a.digest == b.digest &&
				                   std::equal(a.per_frame.begin(), a.per_frame.end(),
				                              b.per_frame.begin(), b.per_frame.end(),
				                              [](const KernelFrame &x, const KernelFrame &y) {
					                              return x.bytes == y.bytes && x.moves == y.moves &&
					                                     x.gtt_access_bytes == y.gtt_access_bytes;
				                              });
				// the fit rule acts only for a BO larger than VRAM
				if (kernel_choice(rule, 0).policy->fit_only() && a.evict_allocs_too_big == 0) {
					EXPECT_TRUE(equal) << t.name << " at " << mib << " MiB with " << rule;
					fit_same += a.evict_allocs != 0;
				}
				if (a.evict_allocs == 0) {
					EXPECT_TRUE(equal) << t.name << " at " << mib << " MiB with " << rule;
					EXPECT_EQ(b.evict_allocs, 0u) << t.name << " at " << mib << " MiB with " << rule;
					same++;
				} else {
					differ_under_pressure += !equal;
				}
			}
		}
	}
	EXPECT_GT(same, 0u);
	EXPECT_GT(differ_under_pressure, 0u);
	EXPECT_GT(fit_same, 0u); // runs that evict, where only the too-big count copies fit
}

// decide's second twins (docs/decision-table.md, "Run time"): a guarded rule's run is the
// unguarded rule's where that run, observing the guard, says it would never have kept a BO;
// predicted admission's run at a GTT charge is another charge's where each cost test that run
// asked gives the same answer at both (KernelResult::admit_same_from/to): the run at either
// end of that interval is the same run, and one step past an end is another. Both claims on
// every repository trace, at sizes that evict; each must also be seen to fail to apply
// somewhere (a guard that acts, a charge that matters), or the test proves nothing.
TEST(KernelModel, SecondTwinsAreTheSameRunWhereTheirRepresentativeSaysSo)
{
	auto same = [](const KernelResult &a, const KernelResult &b) {
		return a.bytes_to_vram() == b.bytes_to_vram() && a.bytes_from_vram() == b.bytes_from_vram() &&
		       a.moves() == b.moves() && a.evictions() == b.evictions() &&
		       a.gtt_access_bytes == b.gtt_access_bytes && a.digest == b.digest &&
		       std::equal(a.per_frame.begin(), a.per_frame.end(), b.per_frame.begin(),
		                  b.per_frame.end(), [](const KernelFrame &x, const KernelFrame &y) {
			                  return x.bytes == y.bytes && x.moves == y.moves &&
			                         x.gtt_access_bytes == y.gtt_access_bytes;
		                  });
	};
	size_t guard_copies = 0, guard_acts = 0, charge_copies = 0, charge_matters = 0;
	for (const KernelTrace &t : repository_traces()) {
		for (uint64_t mib : {8, 32}) {
			KernelConfig base;
			base.vram = mib << 20;
			base.per_frame = true;
			for (const auto &[rule, guarded] :
			     {std::pair{"fit", "guard"}, {"window", "window+guard"},
			      {"window-idle", "window-idle+guard"}}) {
				KernelConfig c = base, g = base;
				apply_choice(kernel_choice(rule, 0), c);
				apply_choice(kernel_choice(guarded, 0), g);
				c.guard_observe = true;
				const KernelResult a = simulate_kernel(t, c), b = simulate_kernel(t, g);
				if (a.guard_observed == 0) {
					EXPECT_TRUE(same(a, b)) << t.name << " at " << mib << " MiB with " << guarded;
					EXPECT_EQ(b.guards, 0u) << t.name << " at " << mib << " MiB with " << guarded;
					guard_copies += a.evict_allocs != 0;
				} else {
					EXPECT_GT(b.guards, 0u) << t.name << " at " << mib << " MiB with " << guarded;
					guard_acts += !same(a, b);
				}
				c.guard_observe = false; // observing changes nothing
				EXPECT_TRUE(same(a, simulate_kernel(t, c))) << t.name << " " << rule;
			}
			KernelConfig at = base;
			apply_choice(kernel_choice("window-predict+admit", 0), at);
			at.admit_gtt_permille = 20; // x0.02 of the default charge
			const KernelResult a = simulate_kernel(t, at);
			const std::string where = t.name + " at " + std::to_string(mib) + " MiB, charge ";
			EXPECT_LE(a.admit_same_from, 20u) << where << 20;
			EXPECT_GE(a.admit_same_to, 20u) << where << 20;
			if (a.admit_cost_tests == 0) {
				EXPECT_EQ(a.admit_same_from, 1u) << where << 20;
				EXPECT_EQ(a.admit_same_to, UINT32_MAX) << where << 20;
				at.admit_gtt_permille = 4000;
				const KernelResult b = simulate_kernel(t, at);
				EXPECT_TRUE(same(a, b)) << where << 4000;
				EXPECT_EQ(b.admit_cost_tests, 0u) << where << 4000;
				charge_copies += a.evict_allocs != 0;
				continue;
			}
			for (const uint64_t g : {a.admit_same_from, a.admit_same_to}) {
				if (g == 20 || g > 100000)
					continue;
				at.admit_gtt_permille = uint32_t(g);
				EXPECT_TRUE(same(a, simulate_kernel(t, at))) << where << g;
				charge_copies++;
			}
			for (const uint64_t g : {a.admit_same_from - 1, a.admit_same_to + 1}) {
				if (g == 0 || g > 100000)
					continue;
				at.admit_gtt_permille = uint32_t(g);
				EXPECT_FALSE(same(a, simulate_kernel(t, at))) << where << g;
				charge_matters++;
			}
		}
	}
	EXPECT_GT(guard_copies, 0u);
	EXPECT_GT(guard_acts, 0u);
	EXPECT_GT(charge_copies, 0u);
	EXPECT_GT(charge_matters, 0u);
}

} // namespace vramlab
