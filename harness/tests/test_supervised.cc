// vramlab train fit (train/supervised.h): the gradient is the loss's, the rows weigh what the
// relocations weigh, the targets are the oracle's scores, and a fit recovers a network that
// made its own targets.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kmodel/oracle.h"
#include "train/supervised.h"

using namespace vramlab;

namespace {

const std::string kSrc = VRAMLAB_SOURCE_DIR;

// rows of random inputs in [0, 1] with the targets network t gives them
FitSet teacher_set(const Mlp &t, size_t rows, uint64_t seed)
{
	FitSet s;
	std::mt19937_64 rng(seed);
	std::uniform_real_distribution<float> u(0, 1);
	std::uniform_real_distribution<double> w(1, 4);
	for (size_t r = 0; r < rows; r++) {
		std::array<float, kMlpInputs> x;
		for (float &v : x)
			v = u(rng);
		const double y = t.score_inputs(x) / 4294967296.0;
		s.x.push_back(x);
		s.w.push_back(w(rng));
		s.y.push_back(y);
		s.w_sum += s.w.back();
		s.wyy += s.w.back() * y * y;
		s.relocations++;
	}
	return s;
}

Mlp teacher()
{
	Mlp m;
	std::mt19937_64 rng(7);
	std::uniform_real_distribution<float> u(-1, 1);
	for (float &p : m.p)
		p = u(rng);
	for (int i = 0; i < kMlpInputs; i++) { // inputs through the slope, output spread
		m.p[i] = 1;
		m.p[9 + i] = 0;
	}
	return m;
}

} // namespace

TEST(FitScores, GradientIsTheLossDerivative)
{
	const FitSet s = teacher_set(teacher(), 200, 1);
	std::mt19937_64 rng(3);
	std::uniform_real_distribution<double> u(-0.6, 0.6);
	for (int trial = 0; trial < 3; trial++) {
		std::array<double, kMlpParams> p, g;
		for (double &v : p)
			v = u(rng) + 0.3;
		fit_objective(s, p, &g);
		int checked = 0;
		for (int i = 0; i < kMlpParams; i++) {
			const double h = 1e-6;
			auto q = p;
			q[i] = p[i] + h;
			const double up = fit_objective(s, q, nullptr);
			q[i] = p[i] - h;
			const double down = fit_objective(s, q, nullptr);
			const double num = (up - down) / (2 * h);
			EXPECT_NEAR(g[i], num, 1e-5 + 1e-3 * std::fabs(num)) << "parameter " << i;
			checked += g[i] != 0;
		}
		EXPECT_GT(checked, kMlpParams / 2) << "most parameters have a gradient";
	}
}

TEST(FitScores, FitRecoversATeachersScores)
{
	const Mlp t = teacher();
	const FitSet s = teacher_set(t, 3000, 2);
	double mean = 0;
	for (size_t r = 0; r < s.x.size(); r++)
		mean += s.w[r] * s.y[r];
	mean /= s.w_sum;
	const double variance = s.wyy / s.w_sum - mean * mean;
	ASSERT_GT(variance, 1e-3) << "the teacher's scores vary";
	FitConfig c;
	c.iterations = 2000;
	const FitResult r = fit_scores(s, c);
	EXPECT_LT(r.loss, r.loss_start);
	EXPECT_LT(r.loss, 0.1 * variance) << "the fit explains most of the teacher's variance";
	EXPECT_NEAR(fit_loss(s, t), 0, 1e-12) << "the teacher itself has no loss";
}

// Rows of a real trace: every relocation but the fences counted once, with its BO's bytes;
// the rows' mean targets are the oracle's scores; fit_loss() over the rows equals the loss
// summed over the relocations one by one.
TEST(FitScores, SamplesAreTheRelocationsWithTheOraclesScores)
{
	const TrainTrace t = prepare_train_trace(kSrc + "/../traces/nederland1.bin", 256ull << 20);
	FitConfig c;
	FitSet s;
	add_fit_samples(s, t, c);
	const std::vector<uint32_t> oracle = oracle_scores(t.kt, c.window);
	uint64_t relocs = 0;
	double w_sum = 0, loss = 0;
	Mlp m = teacher();
	BufferStats b;
	b.vram_size = c.vram_mib << 20;
	for (size_t r = 0; r < t.kt.relocs.size(); r++) {
		if (t.reloc_input[r] == TrainTrace::kNeutral)
			continue;
		relocs++;
		const double w = double(t.kt.size[t.kt.relocs[r].id]);
		auto x = t.inputs[t.reloc_input[r]];
		x[1] = Mlp::inputs(b)[1];
		const double e = m.score_inputs(x) / 4294967296.0 - oracle[r] / 4294967296.0;
		w_sum += w;
		loss += w * e * e;
	}
	ASSERT_GT(relocs, 1000u);
	EXPECT_EQ(s.relocations, relocs);
	EXPECT_LT(s.x.size(), relocs) << "rows are distinct inputs";
	EXPECT_DOUBLE_EQ(s.w_sum, w_sum);
	EXPECT_NEAR(fit_loss(s, m), loss / w_sum, 1e-9);
	// a second trace appends its own rows
	const size_t rows = s.x.size();
	add_fit_samples(s, t, c);
	EXPECT_EQ(s.x.size(), 2 * rows);
	EXPECT_NEAR(fit_loss(s, m), loss / w_sum, 1e-9);
}

TEST(FitScores, NothingToFitIsRefused)
{
	EXPECT_THROW(fit_scores(FitSet{}, FitConfig{}), std::invalid_argument);
}
