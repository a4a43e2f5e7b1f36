// Corpus hygiene (impossible creates), the kernel model's board variations (pinned kernel BOs,
// submission period) and cost bands (kmodel/ensemble.h).
#include <algorithm>
#include <gtest/gtest.h>

#include "helpers.h"
#include "kmodel/ensemble.h"
#include "kmodel/kernel_model.h"
#include "kmodel/kernel_trace.h"
#include "kmodel/oracle.h"
#include "mlp/mlp.h"
#include "train/objective.h"

using namespace vramlab;

namespace {

KernelTrace kernel_text(const std::string &text, ReplayOptions opt = {})
{
	return load_kernel_trace(
	        [&text] {
		        return open_trace_memory(reinterpret_cast<const uint8_t *>(text.data()),
		                                 text.size(), "t.txt");
	        },
	        "t.txt", opt);
}

KernelResult run(const KernelTrace &t, uint64_t vram_kib, std::vector<uint64_t> pinned = {},
                 bool key = false, bool stock = false)
{
	KernelConfig c;
	c.flush_for_impossible = stock;
	c.vram = vram_kib * 1024;
	c.pinned = std::move(pinned);
	c.bo_score = key;
	c.check_every = 1;
	return simulate_kernel(t, c);
}

} // namespace

TEST(Impossible, SkipDropsTheCreateAndItsEventsAndRenumbers)
{
	const std::string text = "0x10 created, size 65536, prio 0, @1\n"
	                         "0x20 created, size 2144734584, prio 0, @2\n"
	                         "0x30 created, size 134217728, prio 0, @3\n" // 128 MiB: possible
	                         "0x10 read @4\n0x20 read @5\n0x30 write @6\n0x20 destroyed @7\n";
	const KernelTrace keep = kernel_text(text);
	EXPECT_EQ(keep.impossible, 1u);
	EXPECT_EQ(keep.size.size(), 3u);
	const KernelTrace skip = kernel_text(text, {OnDestroyed::Skip, OnImpossible::Skip});
	EXPECT_EQ(skip.impossible, 1u);
	EXPECT_EQ(skip.impossible_events, 2u); // its read and its destroy
	ASSERT_EQ(skip.size.size(), 2u);
	EXPECT_EQ(skip.size[1], 128u << 20); // 0x30 is buffer 1 now
	ASSERT_EQ(skip.relocs.size(), 2u);
	EXPECT_EQ(skip.relocs[1].id, 1u);
	EXPECT_EQ(skip.relocs[1].write_domain, DomainVram);
	// the defect flushes VRAM on stock 6.12; without it, or with the series (no eviction for
	// a BO larger than VRAM), nothing is evicted
	EXPECT_GT(run(keep, 256 << 10, {}, false, true).evictions(), 0u);
	EXPECT_EQ(run(keep, 256 << 10).evictions(), 0u);
	EXPECT_EQ(run(skip, 256 << 10, {}, false, true).evictions(), 0u);
	EXPECT_TRUE(impossible_size(kImpossibleAbove + 1));
	EXPECT_FALSE(impossible_size(kImpossibleAbove));
}

TEST(Impossible, ATraceOfNothingElseIsAnError)
{
	try {
		kernel_text("0x20 created, size 2144734584, prio 0, @2\n0x20 read @3\n",
		            {OnDestroyed::Skip, OnImpossible::Skip});
		FAIL() << "no error";
	} catch (const TraceError &e) {
		EXPECT_NE(std::string(e.what()).find("t.txt: every create (1) is impossible"),
		          std::string::npos)
		        << e.what();
	}
}

TEST(Ensemble, PinnedBosSitAtTheBottomAndAreNeverEvicted)
{
	// 600 + 300 KiB fit in 1024 KiB; with 256 KiB pinned they do not, and the pinned BO stays
	const std::string text = "0x1 created, size 614400, prio 0, @1\n"
	                         "0x2 created, size 307200, prio 0, @2\n"
	                         "0x1 read @3\n0x2 read @4\n0x1 read @5\n";
	const KernelTrace t = kernel_text(text);
	EXPECT_EQ(run(t, 1024).evictions(), 0u);
	const KernelResult r = run(t, 1024, {256 << 10});
	EXPECT_GT(r.evictions(), 0u);
	EXPECT_EQ(r.peak_vram_pages, 64u + 150u); // the pinned pages and the 600 KiB BO
	// a pinned set larger than VRAM is refused, not silently cut
	EXPECT_THROW(run(t, 1024, {2048 << 10}), std::invalid_argument);
}

TEST(Ensemble, VariationsAreSixteenBoardsWithAQuarterOfVramAtMostPinned)
{
	const auto &v = variations();
	ASSERT_EQ(v.size(), kMaxEnsemble);
	EXPECT_TRUE(v[0].pinned.empty()); // the model the KUnit replay proves
	EXPECT_EQ(v[0].period_ms, 1u);
	unsigned per_period[9] = {};
	for (auto &x : v)
		per_period[x.period_ms]++;
	EXPECT_EQ(per_period[1] + per_period[2] + per_period[4] + per_period[8], kMaxEnsemble);
	EXPECT_EQ(per_period[1], 4u);
	EXPECT_EQ(per_period[8], 4u);
	EXPECT_EQ(scanout_bytes(1920, 1080), 8294400u);
	EXPECT_EQ(scanout_bytes(1366, 768), 1408u * 4 * 768); // pitch aligned to 64 pixels
	for (auto &x : v)
		for (uint64_t vram : {32ull << 20, 256ull << 20}) {
			uint64_t sum = 0;
			for (uint64_t b : pinned_for(x, vram))
				sum += b;
			EXPECT_LE(sum, vram / 4) << x.name;
		}
	// 2560x1440 console+desktop: everything at 256 MiB, the desktop left out at 32 MiB
	const Variation &big = v[8];
	EXPECT_EQ(pinned_for(big, 256ull << 20).size(), big.pinned.size());
	EXPECT_LT(pinned_for(big, 32ull << 20).size(), big.pinned.size());
}

TEST(Ensemble, PeriodsRegroupSynthesizedSubmissionsOnly)
{
	const std::string text = "0x1 created, size 4096, prio 0, @0\n"
	                         "0x2 created, size 4096, prio 0, @0\n"
	                         "0x1 read @1\n0x2 read @2\n0x1 write @3\n0x2 read @4\n";
	const KernelTrace t = kernel_text(text);
	ASSERT_EQ(t.cs.size(), 4u);
	const KernelTrace two = with_period(t, 2); // ms 1 | 2, 3 | 4
	ASSERT_EQ(two.cs.size(), 3u);
	EXPECT_EQ(two.cs[1].n, 2u);
	const KernelTrace four = with_period(t, 4); // ms 1, 2, 3 | 4
	ASSERT_EQ(four.cs.size(), 2u);
	ASSERT_EQ(four.cs[0].n, 2u); // buffer 0 read, then written: one relocation
	EXPECT_EQ(four.relocs[0].read_domains, DomainVram);
	EXPECT_EQ(four.relocs[0].write_domain, DomainVram);
	EXPECT_EQ(four.accesses, 3u);
	EXPECT_EQ(with_period(t, 1).cs.size(), 4u);
	// a CPU map between two milliseconds still separates them
	const KernelTrace split = with_period(
	        kernel_text("0x1 created, size 4096, prio 0, @0\n0x1 read @1\n0x1 cpu mapped @2\n"
	                    "0x1 read @2\n"),
	        8);
	EXPECT_EQ(split.cs.size(), 2u);
	// real CS records are left as they are
	const KernelTrace live = load_kernel_trace(test::repo_trace("live/glsmoke-barts-6mib.vrl"));
	ASSERT_FALSE(live.synthesized);
	EXPECT_EQ(with_period(live, 8).cs.size(), live.cs.size());
	EXPECT_FALSE(live.frame_us.empty());
}

TEST(Ensemble, BandsAreTheRunsOwnTransferTimeRescaled)
{
	const KernelTrace t = load_kernel_trace(test::repo_trace("nexuiz1.bin"));
	KernelConfig c;
	c.vram = 64ull << 20;
	const KernelResult r = simulate_kernel(t, c);
	ASSERT_GT(r.gtt_access_bytes, 0u);
	EXPECT_NEAR(band_transfer_us(r, c, {1, c.pcie_gbps}), r.transfer_us, r.transfer_us * 1e-12);
	const double base = band_transfer_us(r, c, {0.0, c.pcie_gbps});
	const double g1 = band_transfer_us(r, c, {1, c.pcie_gbps}) - base;
	EXPECT_NEAR(band_transfer_us(r, c, {4, c.pcie_gbps}) - base, 4 * g1, g1 * 1e-9);
	// a faster bus: the model's own figure with that bandwidth
	KernelConfig fast = c;
	fast.pcie_gbps = 16;
	EXPECT_NEAR(band_transfer_us(r, c, {1, 16}), simulate_kernel(t, fast).transfer_us,
	            r.transfer_us * 1e-12);
}

TEST(Ensemble, KeyOrderWithoutScoresIsLruToTheByte)
{
	// decide runs a key policy as its placement's run on traces that send no scores
	const KernelTrace t = load_kernel_trace(test::repo_trace("supertuxkart2.bin"));
	for (uint64_t mib : {32, 64})
		for (auto &v : {variations()[0], variations()[6]}) {
			KernelConfig c;
			c.vram = mib << 20;
			c.pinned = pinned_for(v, c.vram);
			const KernelResult lru = simulate_kernel(with_period(t, v.period_ms), c);
			c.bo_score = true;
			const KernelResult key = simulate_kernel(with_period(t, v.period_ms), c);
			EXPECT_EQ(lru.digest, key.digest) << mib << " " << v.name;
			EXPECT_EQ(lru.mem[MemVram], key.mem[MemVram]);
			EXPECT_EQ(lru.gtt_access_bytes, key.gtt_access_bytes);
		}
}

TEST(Ensemble, FactorListsRefuseZeroNegativeAndJunk)
{
	EXPECT_EQ(parse_factors("1,2,4", "--gtt-cost", 1000), (std::vector<double>{1, 2, 4}));
	// also a band twice (by value) and an empty last item: a band would weigh twice, a slip
	for (const char *bad : {"0", "-1", "1,,2", "x", "2000", "", "nan", "inf", "1,1", "1,1.0",
	                        "1,2,", ",1"})
		EXPECT_THROW(parse_factors(bad, "--gtt-cost", 1000), std::invalid_argument) << bad;
}

TEST(Ensemble, ANetworksScoresAreTheOnesMesaSentButForItsSpecialBuffers)
{
	// glsmoke's live trace carries the scores Mesa 25 computed with its compiled-in weights
	// (trained-kernel.txt) at 6 MiB. Recomputed from the kernel's view alone (what decide
	// --weights and the trainer do) they are the same, except where Mesa sent a value the
	// kernel's view cannot tell from the statistics: neutral for the buffers it does not score
	// (imports) and the cap. Those are counted, and must be the only differences.
	const KernelTrace live = load_kernel_trace(test::repo_trace("live/glsmoke-barts-6mib.vrl"));
	const Mlp m = Mlp::load(std::string(VRAMLAB_SOURCE_DIR) + "/weights/trained-kernel.txt");
	const KernelTrace s = scored_trace(prepare_train_trace(live, 6ull << 20), m, 6);
	ASSERT_EQ(s.relocs.size(), live.relocs.size());
	size_t same = 0, special = 0, scored = 0;
	for (const KernelCs &c : live.cs)
		for (uint32_t i = c.first; c.scores && i < c.first + c.n; i++) {
			scored++;
			const uint32_t want = live.relocs[i].score;
			if (s.relocs[i].score == want)
				same++;
			else if (want == kScoreNeutral || want == 4290672384u)
				special++;
			else
				ADD_FAILURE() << "relocation " << i << ": Mesa sent " << want << ", "
				              << s.relocs[i].score << " recomputed";
		}
	EXPECT_GT(scored, 1000u);
	// 1,476 of 1,659 since fences are neutral and no tick, and a fence's buffer used again is
	// a reclaim (a create in Mesa's view); the rest are Mesa's neutral or capped values
	EXPECT_GT(same * 100, scored * 85);
	EXPECT_TRUE(std::all_of(s.cs.begin(), s.cs.end(), [](const KernelCs &c) { return c.scores; }));
}

TEST(Oracle, EachScoreSaysHowFarAwayTheNextUseIsAsFarAsTheKeyCanSay)
{
	// every relocation's key offset is (submissions to the BO's next use) - 1, capped by the
	// window; checked against a search forward from each submission
	const KernelTrace t = load_kernel_trace(test::repo_trace("nexuiz1.bin"));
	for (uint32_t w : {4u, 256u}) {
		const KernelTrace o = with_oracle_scores(t, w);
		ASSERT_EQ(o.relocs.size(), t.relocs.size());
		size_t checked = 0;
		for (size_t c = 0; c < o.cs.size(); c += 97) {
			EXPECT_TRUE(o.cs[c].scores);
			for (uint32_t k = 0; k < o.cs[c].n; k++) {
				const uint32_t id = o.relocs[o.cs[c].first + k].id;
				uint64_t d = w;
				for (size_t n = c + 1; n < o.cs.size() && n - c < w; n++) {
					const KernelCs &x = o.cs[n];
					if (std::any_of(o.relocs.begin() + x.first, o.relocs.begin() + x.first + x.n,
					                [&](const CsReloc &r) { return r.id == id; })) {
						d = n - c;
						break;
					}
				}
				const uint32_t s = o.relocs[o.cs[c].first + k].score;
				EXPECT_EQ(radeon_evict_key(1000, s, w), 1000 - (d - 1)) << c << " " << id;
				checked++;
			}
		}
		EXPECT_GT(checked, 1000u);
	}
}

TEST(Oracle, KeyOrderWithTheOraclesScoresIsNotLru)
{
	// the oracle's scores change the eviction order (else the decision table's reference rows
	// would be lru under another name), and they never come from the trace itself
	const KernelTrace t = load_kernel_trace(test::repo_trace("supertuxkart2.bin"));
	KernelConfig c;
	c.vram = 64 << 20;
	const KernelResult lru = simulate_kernel(t, c);
	c.bo_score = true;
	const KernelResult oracle = simulate_kernel(with_oracle_scores(t, c.window), c);
	EXPECT_NE(lru.digest, oracle.digest);
	EXPECT_LT(oracle.bytes_to_vram(), lru.bytes_to_vram());
}
