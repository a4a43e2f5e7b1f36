// Several VRAM sizes in one pass (replay_lanes(), the score policies' shared statistics) must
// give each size's own run to the bit: every counter, the timeline, and where it was cut.
#include <gtest/gtest.h>

#include <cmath>

#include "policies/lru.h"
#include "reference/compare.h"
#include "reference/naive.h"
#include "sim/run.h"
#include "helpers.h"

using namespace vramlab;

namespace {
// Random weights, the VRAM size (input 1) scaled up so that the random traces' sizes (KiB to
// MiB, where the input is below 0.001) move the score: each size has its own keys.
Mlp sized_mlp()
{
	Mlp m = test::random_mlp(11);
	m.p[1] = 20000.0f; // in_w[1]: 48 KiB -> 0.09, 200 KiB -> 0.37, 2 MiB -> 1
	m.p[kMlpInputs + 1] = 0.0f;
	for (int h = 0; h < kMlpInputs; h++)
		m.p[18 + h * 10 + 1] *= 8.0f;
	return m;
}
// The same with input 1 cut off everywhere: one key per buffer serves every size.
Mlp unsized_mlp()
{
	Mlp m = sized_mlp();
	for (int h = 0; h < kMlpInputs; h++)
		m.p[18 + h * 10 + 1] = 0.0f;
	return m;
}

bool same_timeline(const Timeline &a, const Timeline &b)
{
	return a.every == b.every && a.ops == b.ops && a.holes_min == b.holes_min &&
	       a.holes_max == b.holes_max && a.swaps == b.swaps;
}

void expect_each_size_alone(const CompactTrace &t, const SimConfig &c, const std::string &policy,
                            const std::vector<uint64_t> &vram, const std::string &what)
{
	const Policy p = find_policy(policy);
	const std::vector<SimResult> lanes = p.run_sizes(t, c, vram);
	ASSERT_EQ(lanes.size(), vram.size());
	for (size_t k = 0; k < vram.size(); k++) {
		SimConfig one = c;
		one.vram = vram[k];
		const SimResult alone = p.run(t, one);
		ASSERT_EQ(differ(lanes[k], alone), "") << what << " " << policy << " vram " << vram[k];
		ASSERT_TRUE(same_timeline(lanes[k].timeline, alone.timeline)) << what;
		ASSERT_EQ(lanes[k].cut_at, alone.cut_at) << what;
	}
}
} // namespace

TEST(ReplayLanes, EverySizeOfAScorePassIsThatSizesOwnRun)
{
	const Mlp sized = sized_mlp(), unsized = unsized_mlp();
	ASSERT_TRUE(MlpPlan(sized).uses_input(1));
	ASSERT_FALSE(MlpPlan(unsized).uses_input(1));
	BufferStats b;
	b.size = 4096;
	b.vram_size = 48 << 10;
	const uint32_t at48k = sized.score(b);
	b.vram_size = 200 << 10;
	ASSERT_GT(std::abs(double(sized.score(b)) - at48k), 1e7); // the lanes' keys differ
	// 6 KiB is below some buffers of the random traces: that lane is cut, the others go on.
	const std::vector<uint64_t> vram = {48ull << 10, 6ull << 10, 200ull << 10, 2ull << 20};
	uint64_t followed = 0, entries = 0;
	for (uint64_t seed = 1; seed <= 300; seed++) {
		const RandomTraces rt = random_traces(seed, 300);
		for (const Mlp *m : {&sized, &unsized})
			for (const char *p : {"score", "score-age", "minmax+score", "minmax+score-age"}) {
				SimConfig c;
				c.threshold = 16384;
				c.mlp = m;
				c.check_every = seed % 7 == 0 ? 1 : 0;
				c.followed = &followed;
				expect_each_size_alone(rt.thesis, c, p, vram, "seed " + std::to_string(seed));
			}
		entries += rt.thesis.ops.size() * 2 * 4;
	}
	// The larger sizes followed a smaller one (replay_lanes()) for part of their entries: the
	// comparison above covered both the followers' copies and the lanes built on the way.
	EXPECT_GT(followed, 0u);
	EXPECT_LT(followed, entries * (vram.size() - 1));
}

TEST(ReplayLanes, ALargerLaneIsBuiltWhereTheMiddleHoleIsTooSmallWithoutAnEviction)
{
	// Min-max at 300 bytes, VRAM of 1000 and 2000 bytes. X1 and X2 go top-down, Y bottom-up,
	// X1 leaves a 300-byte hole at the top. W (200) does not fit 1000's middle hole (150) and
	// goes to that top hole without evicting; 2000's middle hole (1150) takes it. Had 2000
	// followed 1000 past W, the 990-byte Z would fit its middle hole, where its own run evicts.
	const CompactTrace t = test::tiny("0x1 created, size 300, prio 0, @0\n"
	                                  "0x2 created, size 300, prio 0, @0\n"
	                                  "0x3 created, size 250, prio 0, @0\n"
	                                  "0x1 destroyed @0\n"
	                                  "0x4 created, size 200, prio 0, @0\n"
	                                  "0x5 created, size 990, prio 0, @0\n"
	                                  "0x4 read @0\n");
	const Mlp m = unsized_mlp();
	SimConfig c;
	c.threshold = 300;
	c.mlp = &m;
	c.check_every = 1;
	std::vector<std::pair<uint32_t, uint64_t>> at;
	c.placements = &at;
	c.vram = 2000;
	const SimResult alone = find_policy("minmax+score").run(t, c);
	ASSERT_EQ(at.size(), 5u);
	EXPECT_EQ(at[3], std::make_pair(3u, uint64_t(250))); // W in 2000's middle hole
	EXPECT_EQ(alone.evictions, 1u);
	c.placements = nullptr;
	uint64_t followed = 0;
	c.followed = &followed;
	expect_each_size_alone(t, c, "minmax+score", {1000, 2000, 4000}, "W");
	EXPECT_GT(followed, 0u);
}

TEST(ReplayLanes, TheGenericLanesAreEachPolicysOwnRun)
{
	// EachLane: one instance per size, nothing shared; the loop's own bookkeeping per lane.
	const std::vector<uint64_t> vram = {6ull << 10, 48ull << 10, 200ull << 10};
	for (uint64_t seed = 1; seed <= 100; seed++) {
		const RandomTraces rt = random_traces(seed, 300);
		SimConfig c;
		c.timeline_every = 7;
		const std::vector<SimResult> lanes = replay_lanes<EachLane<LruPolicy>>(rt.thesis, c, vram);
		for (size_t k = 0; k < vram.size(); k++) {
			c.vram = vram[k];
			const SimResult alone = find_policy("lru").run(rt.thesis, c);
			ASSERT_EQ(differ(lanes[k], alone), "") << "seed " << seed << " vram " << vram[k];
			ASSERT_TRUE(alone.cut || alone.timeline.points() > 0);
			ASSERT_TRUE(same_timeline(lanes[k].timeline, alone.timeline)) << "seed " << seed;
		}
	}
}

TEST(ReplayLanes, ARealTraceAtTheThesisSizes)
{
	const CompactTrace t = load_compact(test::repo_trace("nederland1.bin"), {});
	const Mlp sized = sized_mlp();
	SimConfig c;
	c.mlp = &sized;
	uint64_t followed = 0;
	c.followed = &followed;
	expect_each_size_alone(t, c, "minmax+score",
	                       {64ull << 20, 128ull << 20, 1024ull << 20, 2048ull << 20}, "nederland1");
	// 128 MiB and 1 GiB are built early (where 64 and 128 MiB first could not use their
	// middle hole); 1 GiB never does that, so 2 GiB's run is its copy
	EXPECT_GT(followed, t.ops.size());
	EXPECT_LT(followed, 2 * t.ops.size());
}

TEST(ReplayLanes, PlacementsAreRecordedForOneSizeOnly)
{
	const RandomTraces rt = random_traces(3, 100);
	SimConfig c;
	std::vector<std::pair<uint32_t, uint64_t>> at;
	c.placements = &at;
	const std::vector<uint64_t> two = {48ull << 10, 96ull << 10};
	EXPECT_THROW(replay_lanes<EachLane<LruPolicy>>(rt.thesis, c, two), std::invalid_argument);
	// Policy::run_sizes falls back to one run per size instead.
	const Mlp m = sized_mlp();
	c.mlp = &m;
	EXPECT_EQ(find_policy("score").run_sizes(rt.thesis, c, two).size(), 2u);
}

TEST(ReplayLanes, RunAllGivesTheSameRowsOnOneThreadAndOnThree)
{
	RunSpec spec;
	spec.traces = {test::repo_trace("nederland1.bin")};
	spec.policies = {"minmax+score", "lru"};
	spec.vram_mib = {64, 128, 256};
	const Mlp m = sized_mlp();
	spec.config.mlp = &m;
	spec.threads = 1; // one pass of three sizes for score
	const RunOutput one = run_all(spec);
	spec.threads = 3; // two passes for score: {64, 256} and {128}
	const RunOutput three = run_all(spec);
	ASSERT_EQ(one.rows.size(), 6u);
	ASSERT_EQ(three.rows.size(), 6u);
	for (size_t i = 0; i < one.rows.size(); i++) {
		EXPECT_EQ(one.rows[i].policy, three.rows[i].policy);
		EXPECT_EQ(one.rows[i].vram_mib, three.rows[i].vram_mib);
		EXPECT_EQ(differ(one.rows[i].r, three.rows[i].r), "") << i;
	}
	EXPECT_EQ(one.rows[0].policy, "minmax+score");
	EXPECT_EQ(one.rows[0].vram_mib, 64u);
	EXPECT_EQ(one.rows[1].policy, "lru");
	EXPECT_EQ(one.rows[5].vram_mib, 256u);
}
