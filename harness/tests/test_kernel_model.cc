// The kernel model (src/kmodel): drm_mm's search rules, radeon's validation and TTM's eviction
// walk on hand-made traces whose outcome can be worked out on paper. The equality with the real
// kernel is the KUnit suite radeon_replay (make -C kernel replay replay-header).
#include <gtest/gtest.h>

#include "helpers.h"
#include "kmodel/drm_mm.h"
#include "kmodel/kernel_model.h"

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

// A kernel trace built by hand: sizes in KiB, CS as lists of (id, write).
struct Builder {
	KernelTrace t;
	uint32_t create(uint64_t kib, uint8_t domain = DomainVram)
	{
		const uint32_t id = uint32_t(t.size.size());
		t.size.push_back(kib * 1024);
		t.domain.push_back(domain);
		t.prio.push_back(0);
		t.ops.push_back(KernelTrace::pack(KernelTrace::Create, id));
		return id;
	}
	void cs(std::initializer_list<std::pair<uint32_t, bool>> bos,
	        std::vector<uint32_t> scores = {}, uint8_t domain = DomainVram)
	{
		KernelCs c;
		c.first = uint32_t(t.relocs.size());
		c.n = uint32_t(bos.size());
		c.scores = !scores.empty();
		size_t i = 0;
		for (auto [id, w] : bos) {
			CsReloc r;
			r.id = id;
			r.read_domains = w ? 0 : domain;
			r.write_domain = w ? domain : 0;
			r.score = c.scores ? scores[i] : kScoreNeutral;
			t.relocs.push_back(r);
			i++;
		}
		t.ops.push_back(KernelTrace::pack(KernelTrace::Cs, uint32_t(t.cs.size())));
		t.cs.push_back(c);
	}
	void destroy(uint32_t id) { t.ops.push_back(KernelTrace::pack(KernelTrace::Destroy, id)); }
	KernelResult run(uint64_t vram_kib, uint32_t topdown = 0, bool key = false)
	{
		KernelConfig c;
		c.vram = vram_kib * 1024;
		c.topdown_kib = topdown;
		c.bo_score = key;
		c.check_every = 1;
		return simulate_kernel(t, c);
	}
};

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

TEST(KernelModel, ABufferLargerThanVramEvictsEverythingAndLivesInGtt)
{
	Builder b;
	b.create(256);
	b.create(256);
	const auto big = b.create(2048);
	b.cs({{big, true}});
	auto r = b.run(1024);
	EXPECT_EQ(r.evictions(), 2u); // radeon_bo_create() in VRAM evicts all, then VRAM|GTT
	EXPECT_EQ(r.creates, 3u);
	EXPECT_EQ(r.gtt_accesses, 1u); // the GPU writes it in GTT
	EXPECT_EQ(r.mem[MemGtt].moves_in, 3u);
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

} // namespace
} // namespace vramlab
