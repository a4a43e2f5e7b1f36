// The fragmentation-and-swapping timeline (the thesis's Figures 7-15) and "@SIZE" thresholds
// (its Figure 16): what each point holds, that recording changes no result, and that both
// models' timelines add up to their own eviction counts.
#include <gtest/gtest.h>

#include "helpers.h"
#include "kmodel/kernel_model.h"
#include "kmodel/kernel_trace.h"
#include "sim/policy_name.h"
#include "sim/sim.h"

using namespace vramlab;

TEST(Timeline, PointsHoldTheRangeOfHolesAndTheOperationsThatEvicted)
{
	Timeline t;
	t.every = 3;
	t.add(5, false);
	t.add(2, true);
	t.add(7, false);
	t.add(4, true);
	t.add(4, true);
	EXPECT_EQ(t.points(), 1u);
	t.finish(); // the partial point is kept
	t.finish(); // and only once
	EXPECT_EQ(t.holes_min, (std::vector<uint32_t>{2, 4}));
	EXPECT_EQ(t.holes_max, (std::vector<uint32_t>{7, 4}));
	EXPECT_EQ(t.swaps, (std::vector<uint32_t>{1, 2}));
	EXPECT_EQ(t.ops, 5u);
}

TEST(Timeline, ThesisModelCountsHolesAfterEachEntry)
{
	// 100-byte VRAM: A [0,40), B [40,80), free [80,100); A destroyed leaves two holes.
	auto trace = test::tiny("0xa created, size 40, prio 0, @0\n"
	                        "0xb created, size 40, prio 0, @0\n"
	                        "0xa destroyed @1\n"
	                        "0xc created, size 50, prio 0, @2\n");
	SimConfig c;
	c.vram = 100;
	c.timeline_every = 1;
	const SimResult r = simulate_lru(trace, c);
	// fragments = holes - 1; C (50) fits no hole and evicts B, the one resident
	EXPECT_EQ(r.timeline.holes_max, (std::vector<uint32_t>{0, 0, 1, 0}));
	EXPECT_EQ(r.timeline.swaps, (std::vector<uint32_t>{0, 0, 0, 1}));
	EXPECT_EQ(r.eviction_events, 1u);
}

TEST(Timeline, RecordingChangesNoResultAndSwapsAddUpToEvictionEvents)
{
	const CompactTrace t = load_compact(test::repo_trace("nexuiz1.bin"), OnDestroyed::Skip);
	for (const char *name : {"lru", "minmax@256K", "minmax+gdsf@1M"}) {
		const Policy p = find_policy(name);
		SimConfig c;
		c.vram = 32ull << 20;
		const SimResult off = p.run(t, c);
		c.timeline_every = 1000;
		const SimResult on = p.run(t, c);
		EXPECT_EQ(on.cost, off.cost) << name;
		EXPECT_EQ(on.evictions, off.evictions) << name;
		EXPECT_EQ(on.frag_sum, off.frag_sum) << name;
		EXPECT_TRUE(off.timeline.swaps.empty()) << name;
		ASSERT_EQ(on.timeline.points(), (on.entries + 999) / 1000) << name;
		EXPECT_EQ(on.timeline.ops, on.entries) << name;
		uint64_t swaps = 0;
		for (size_t i = 0; i < on.timeline.points(); i++) {
			swaps += on.timeline.swaps[i];
			EXPECT_LE(on.timeline.holes_min[i], on.timeline.holes_max[i]);
		}
		EXPECT_EQ(swaps, on.eviction_events) << name;
		EXPECT_GT(swaps, 0u) << name;
	}
}

TEST(PolicyName, AtSizeSetsTheMinMaxThreshold)
{
	EXPECT_EQ(find_policy("minmax@256K").threshold, 256u << 10);
	EXPECT_EQ(find_policy("minmax+gdsf@2M").threshold, 2u << 20);
	EXPECT_EQ(find_policy("minmax").threshold, 0u); // the config's
	EXPECT_THROW(find_policy("lru@1M"), std::invalid_argument);   // no min-max placement
	EXPECT_THROW(find_policy("minmax@"), std::invalid_argument);
	EXPECT_THROW(find_policy("minmax@1Q"), std::invalid_argument);
	EXPECT_THROW(find_policy("minmax@0"), std::invalid_argument);
	EXPECT_THROW(parse_size_text("99999999999999999999G"), std::invalid_argument);

	// minmax@256K is minmax with the config's threshold set to 256 KiB
	const CompactTrace t = load_compact(test::repo_trace("nexuiz1.bin"), OnDestroyed::Skip);
	SimConfig c;
	c.vram = 32ull << 20;
	const SimResult at = find_policy("minmax@256K").run(t, c);
	c.threshold = 256 << 10;
	const SimResult cfg = find_policy("minmax").run(t, c);
	EXPECT_EQ(at.cost, cfg.cost);
	c.threshold = 4 << 20;
	EXPECT_NE(find_policy("minmax").run(t, c).cost, cfg.cost); // the threshold matters here
}

TEST(KernelTimeline, RecordingChangesNoResultAndSwapsAreOperationsThatEvicted)
{
	const KernelTrace t = load_kernel_trace(test::repo_trace("nexuiz1.bin"));
	size_t ops = 0;
	for (uint32_t op : t.ops)
		ops += KernelTrace::Op(op >> KernelTrace::kShift) != KernelTrace::Frame;
	for (const char *name : {"lru", "minmax+key@256K"}) {
		const KernelChoice k = kernel_choice(name, 512);
		KernelConfig c;
		c.vram = 24ull << 20;
		c.topdown_kib = k.topdown_kib;
		c.bo_score = k.policy->key;
		const KernelResult off = simulate_kernel(t, c);
		c.timeline_every = 100;
		const KernelResult on = simulate_kernel(t, c);
		EXPECT_EQ(on.digest, off.digest) << name;
		EXPECT_EQ(on.evictions(), off.evictions()) << name;
		ASSERT_EQ(on.timeline.points(), (ops + 99) / 100) << name;
		EXPECT_EQ(on.timeline.ops, ops) << name;
		uint64_t swaps = 0;
		for (uint32_t s : on.timeline.swaps)
			swaps += s;
		EXPECT_GT(swaps, 0u) << name;
		EXPECT_LE(swaps, on.evictions()) << name; // one operation may evict several BOs
	}
}

TEST(KernelTimeline, ThresholdsAreWholeKibAsTheModuleParameterTakes)
{
	EXPECT_EQ(kernel_choice("minmax@256K", 512).topdown_kib, 256u);
	EXPECT_EQ(kernel_choice("minmax", 512).topdown_kib, 512u);
	EXPECT_EQ(kernel_choice("key", 512).topdown_kib, 0u);
	EXPECT_EQ(kernel_choice("minmax+key@1G", 512).topdown_kib, 1u << 20);
	EXPECT_THROW(kernel_choice("minmax@1000", 512), std::invalid_argument); // not whole KiB
	EXPECT_THROW(kernel_choice("minmax@2G", 512), std::invalid_argument);
	EXPECT_THROW(kernel_choice("key@1M", 512), std::invalid_argument);
	EXPECT_THROW(kernel_choice("minmax+lru", 512), std::invalid_argument);
}
