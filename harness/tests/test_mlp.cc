#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>

#include "helpers.h"
#include "mlp/mlp.h"

using namespace vramlab;

namespace {
std::string weights_dir() { return std::string(VRAMLAB_SOURCE_DIR) + "/weights/"; }
} // namespace

TEST(Mlp, ConstantNetworkGivesSmootherstepOfTheBias)
{
	Mlp m;
	m.p[117] = 0.5f; // s(0.5) = 0.5
	EXPECT_EQ(m.score(BufferStats{}), 2147483648u);
	m.p[117] = 2.0f; // clamped to 1, then to 0.999
	EXPECT_EQ(m.score(BufferStats{}), uint32_t(double(0.999f) * 4294967296.0));
	m.p[117] = -1.0f;
	EXPECT_EQ(m.score(BufferStats{}), 0u);
}

// A NaN pre-activation is clamped to 0 (Mesa's radeon_bo_score_test checks the same): hidden
// neuron 0's bias NaN gives h[0] = 0, so the output is s(0.25) = 0.103515625, not a NaN converted to u32
TEST(Mlp, ANanPreActivationIsClampedToZero)
{
	Mlp m;
	m.p[18 + 9] = std::numeric_limits<float>::quiet_NaN();
	m.p[108] = 1.0f;
	m.p[117] = 0.25f;
	EXPECT_EQ(m.score(BufferStats{}), 444596224u);
	EXPECT_EQ(MlpPlan(m).score(BufferStats{}), 444596224u);
}

TEST(Mlp, InputsAreScaledAndClamped)
{
	BufferStats s;
	s.size = 1ull << 29;
	s.vram_size = 20ull << 30;
	s.high_prio = true;
	s.since_read = 1200;
	s.since_write = 9999;
	s.reads = 250;
	s.writes = 0;
	s.since_cpu = 600;
	s.cpu_ops = 1000;
	auto x = Mlp::inputs(s);
	EXPECT_FLOAT_EQ(x[0], 0.5f);
	EXPECT_FLOAT_EQ(x[1], 1.0f);
	EXPECT_FLOAT_EQ(x[2], 1.0f);
	EXPECT_FLOAT_EQ(x[3], 0.5f);
	EXPECT_FLOAT_EQ(x[4], 1.0f);
	EXPECT_FLOAT_EQ(x[5], 0.5f);
	EXPECT_FLOAT_EQ(x[6], 0.0f);
	EXPECT_FLOAT_EQ(x[7], 0.25f);
	EXPECT_FLOAT_EQ(x[8], 1.0f);
}

TEST(Mlp, HandsetWeightsFavourRecentWrites)
{
	const Mlp m = Mlp::load(weights_dir() + "handset.txt");
	BufferStats hot, cold;
	hot.size = cold.size = 1 << 20;
	hot.writes = 100;
	hot.reads = 100;
	cold.since_read = cold.since_write = 2400;
	EXPECT_GT(m.score(hot), m.score(cold));
}

TEST(Mlp, GenomeMapsBytesOntoMinusOneToOne)
{
	std::array<uint8_t, kMlpParams> g{};
	g[0] = 255;
	g[1] = 0;
	const Mlp m = Mlp::from_genome(g);
	EXPECT_FLOAT_EQ(m.p[0], 1.0f);
	EXPECT_FLOAT_EQ(m.p[1], -1.0f);
}

TEST(Mlp, TextAndCHeaderAreExact)
{
	const Mlp m = Mlp::load(weights_dir() + "handset.txt");
	const Mlp back = Mlp::parse(m.to_text(), "text");
	EXPECT_EQ(m.p, back.p);
	// The header's numbers are hexadecimal floats: strtof gives back the very same bits.
	const std::string h = m.to_c_header();
	std::string nums;
	std::istringstream in(h);
	for (std::string line; std::getline(in, line);)
		if (line.rfind("   ", 0) == 0) // Mesa's winsys style: 3 spaces
			nums += line.substr(3, line.find('f') - 3) + "\n";
	EXPECT_EQ(Mlp::parse(nums, "header").p, m.p);
}

TEST(Mlp, BadWeightsFilesNameFileAndLine)
{
	try {
		Mlp::parse("1 2 3\n4 x 5\n", "w.txt");
		FAIL();
	} catch (const TraceError &e) {
		EXPECT_STREQ(e.what(), "w.txt: line 2: not a number: \"x 5\"");
	}
	try {
		Mlp::parse("1 2 3 # only three\n", "w.txt");
		FAIL();
	} catch (const TraceError &e) {
		EXPECT_STREQ(e.what(), "w.txt: 3 parameters, expected 118");
	}
	std::string many;
	for (int i = 0; i < 119; i++)
		many += "0.5\n";
	EXPECT_THROW(Mlp::parse(many, "w.txt"), TraceError);
	EXPECT_THROW(Mlp::parse("nan\n", "w.txt"), TraceError);
}

// The vectors Mesa's unit test checks too: a change of arithmetic on either side breaks one.
TEST(Mlp, SharedScoreVectors)
{
	std::ifstream f(std::string(VRAMLAB_SOURCE_DIR) + "/tests/data/score_vectors.csv");
	ASSERT_TRUE(f) << "tests/data/score_vectors.csv missing";
	std::map<std::string, Mlp> nets;
	std::map<std::string, int> per_label;
	int checked = 0;
	for (std::string line; std::getline(f, line);) {
		if (line.empty() || line[0] == '#')
			continue;
		std::istringstream in(line);
		std::string label, field;
		std::getline(in, label, ',');
		std::vector<uint64_t> v;
		while (std::getline(in, field, ','))
			v.push_back(std::stoull(field));
		ASSERT_EQ(v.size(), 10u) << line;
		if (!nets.count(label))
			nets[label] = Mlp::load(weights_dir() + label);
		BufferStats s;
		s.size = v[0];
		s.vram_size = v[1];
		s.high_prio = v[2];
		s.since_read = v[3];
		s.since_write = v[4];
		s.since_cpu = v[5];
		s.reads = v[6];
		s.writes = v[7];
		s.cpu_ops = v[8];
		EXPECT_EQ(nets[label].score(s), v[9]) << line;
		EXPECT_EQ(MlpPlan(nets[label]).score(s), v[9]) << line;
		checked++;
		per_label[label]++;
	}
	EXPECT_GE(checked, 600);
	// The committed networks: the hand-set one, its calibration, and the one trained for the
	// kernel (what Mesa ships compiled in).
	EXPECT_EQ(per_label["handset.txt"], 200);
	EXPECT_EQ(per_label["handset-calibrated.txt"], 200);
	EXPECT_EQ(per_label["trained-kernel.txt"], 200);
}

TEST(Mlp, PrunedPlanGivesTheSameBitsAsTheFullNetwork)
{
	// Random networks with random weights zeroed (both signs of zero), random statistics.
	std::mt19937 rng(7);
	for (int n = 0; n < 100; n++) {
		std::array<uint8_t, kMlpParams> g;
		for (auto &b : g)
			b = uint8_t(rng());
		Mlp m = Mlp::from_genome(g);
		for (auto &w : m.p)
			if (rng() % 3 == 0)
				w = (rng() & 1) ? 0.0f : -0.0f;
		const MlpPlan plan(m);
		for (int i = 0; i < 300; i++) {
			BufferStats s;
			s.size = rng() % (2u << 30);
			s.vram_size = uint64_t(rng() % 12) << 30;
			s.high_prio = rng() & 1;
			s.since_read = rng() % 3000;
			s.since_write = rng() % 3000;
			s.since_cpu = rng() % 3000;
			s.reads = rng() % 700;
			s.writes = rng() % 700;
			s.cpu_ops = rng() % 700;
			ASSERT_EQ(plan.score(s), m.score(s)) << "network " << n << " input " << i;
		}
	}
}
