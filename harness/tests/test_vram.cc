#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/vram.h"

using vramlab::Vram;

TEST(Vram, FirstFitBottomUpAndStrictFit)
{
	Vram v(100);
	EXPECT_TRUE(v.fits(99));
	EXPECT_FALSE(v.fits(100)); // a hole must be strictly larger
	EXPECT_EQ(v.place(40, false), 0u);
	EXPECT_EQ(v.place(40, false), 40u);
	EXPECT_EQ(v.free_bytes(), 20u);
	EXPECT_FALSE(v.fits(20));
	EXPECT_TRUE(v.fits(19));
	EXPECT_STREQ(v.check(), "");
}

TEST(Vram, TopDownTakesTheHighestHoleAtItsHighEnd)
{
	Vram v(100);
	EXPECT_EQ(v.place(10, false), 0u);
	EXPECT_EQ(v.place(30, true), 70u);
	EXPECT_EQ(v.place(5, true), 65u);
	v.release(0, 10); // holes [0,10) and [10,65) merge into [0,65)
	ASSERT_EQ(v.holes(), 1u);
	EXPECT_EQ(v.hole_list()[0].addr, 0u);
	EXPECT_EQ(v.hole_list()[0].size, 65u);
	EXPECT_STREQ(v.check(), "");
}

TEST(Vram, ReleaseMergesWithBothNeighbours)
{
	Vram v(100);
	v.place(20, false); // [0,20)
	v.place(20, false); // [20,40)
	v.place(20, false); // [40,60)
	v.release(0, 20);
	v.release(40, 20);
	EXPECT_EQ(v.holes(), 2u); // [0,20) and [40,100)
	v.release(20, 20);
	ASSERT_EQ(v.holes(), 1u);
	EXPECT_EQ(v.hole_list()[0].size, 100u);
	EXPECT_EQ(v.free_bytes(), 100u);
}

TEST(Vram, LowestAndHighestFittingHolesAmongMany)
{
	Vram v(1000);
	std::vector<uint64_t> at;
	for (int i = 0; i < 10; i++)
		at.push_back(v.place(99, false)); // 10 buffers of 99: [0,990), hole [990,1000)
	for (int i = 0; i < 10; i += 2)
		v.release(at[i], 99); // holes of 99 at 0, 198, 396, 594, 792 and 10 at 990
	EXPECT_EQ(v.holes(), 6u);
	EXPECT_EQ(v.place(50, false), 0u);   // lowest hole > 50
	EXPECT_EQ(v.place(50, true), 792 + 49u); // highest hole > 50, its top end
	EXPECT_FALSE(v.fits(99));
	EXPECT_STREQ(v.check(), "");
}

TEST(Vram, RandomisedAgainstInvariants)
{
	Vram v(1 << 20);
	std::vector<std::pair<uint64_t, uint64_t>> live;
	uint32_t rng = 12345;
	auto next = [&] {
		rng ^= rng << 13;
		rng ^= rng >> 17;
		rng ^= rng << 5;
		return rng;
	};
	for (int i = 0; i < 20000; i++) {
		if (!live.empty() && (next() % 3 == 0 || !v.fits(4096))) {
			size_t k = next() % live.size();
			v.release(live[k].first, live[k].second);
			live.erase(live.begin() + k);
		} else {
			uint64_t b = 1 + next() % 4096;
			if (v.fits(b))
				live.push_back({v.place(b, next() % 2), b});
		}
		ASSERT_STREQ(v.check(), "") << "after step " << i;
	}
	uint64_t used = 0;
	for (auto &l : live)
		used += l.second;
	EXPECT_EQ(used + v.free_bytes(), v.size());
}

TEST(Vram, TheMiddleHoleAndTheSameVramGrown)
{
	Vram v(100);
	EXPECT_EQ(v.place(20, true), 80u);  // [80,100)
	EXPECT_EQ(v.place(10, true), 70u);  // [70,80): X2
	EXPECT_EQ(v.place(15, false), 0u);  // [0,15)
	EXPECT_EQ(v.mid_end(), 70u);
	EXPECT_EQ(v.mid_size(), 55u);
	v.release(80, 20); // a hole above the middle one, apart from it
	EXPECT_EQ(v.mid_end(), 70u);
	v.release(0, 15); // merges with the middle hole from below
	EXPECT_EQ(v.mid_size(), 70u);
	const Vram g = v.grown(1100);
	ASSERT_EQ(g.holes(), 2u);
	EXPECT_EQ(g.hole_list()[0].addr, 0u);
	EXPECT_EQ(g.hole_list()[0].size, 1070u); // the middle hole, 1000 longer
	EXPECT_EQ(g.hole_list()[1].addr, 1080u); // the top hole, shifted
	EXPECT_EQ(g.hole_list()[1].size, 20u);
	EXPECT_EQ(g.free_bytes(), 1090u);
	EXPECT_EQ(g.mid_end(), 1070u);
	EXPECT_EQ(v.grown_addr(70, 1000), 1070u); // where X2 is in g
	EXPECT_EQ(v.grown_addr(69, 1000), 69u);
	EXPECT_STREQ(g.check(), "");
	Vram w = v;
	w.release(70, 10); // merges the middle hole with the top hole through [70,80)
	EXPECT_EQ(w.mid_end(), 100u);
	EXPECT_EQ(w.mid_size(), 100u);
	EXPECT_STREQ(w.check(), "");
	EXPECT_THROW(v.grown(99), std::invalid_argument);
}
