// The trainer: GA operators keep their invariants, runs are repeatable, a resumed run equals an
// uninterrupted one, early stopping never changes a result, and the objective's replay with
// neutral scores is the kernel model's own minmax+key replay.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>

#include "helpers.h"
#include "train/trainer.h"

using namespace vramlab;

namespace {

const std::string kSrc = VRAMLAB_SOURCE_DIR;

// A tiny problem: two small traces committed to the repository, at sizes with pressure.
const Objective &tiny()
{
	static const Objective o = [] {
		std::vector<TrainTrace> t;
		t.push_back(prepare_train_trace(kSrc + "/../traces/nederland1.bin", 256ull << 20));
		t.push_back(prepare_train_trace(kSrc + "/tests/data/glsmoke-barts-2.51.vrl", 256ull << 20));
		ObjectiveConfig c;
		c.vram_mib = {2, 24};
		c.threads = 2;
		return Objective(std::move(t), c);
	}();
	return o;
}

TrainConfig tiny_config(const std::string &checkpoint = "")
{
	TrainConfig c;
	c.ga.population = 6;
	c.generations = 4;
	c.mc_after = 3;
	c.seed = 7;
	c.progress = false;
	c.checkpoint = checkpoint;
	return c;
}

std::string tmp(const std::string &name)
{
	return (std::filesystem::temp_directory_path() / ("vramlab-test-" + std::to_string(getpid()) +
	                                                  "-" + name)).string();
}

} // namespace

// The trainer replays the score contract over the kernel model's trace: a buffer that learns
// its high priority from a relocation (v2.2) is scored at create without it and by the refresh
// of that relocation with it, as Mesa does, although the model keeps it for the whole life.
TEST(TrainObjective, AHighPriorityUseCountsFromItsRelocationOn)
{
	const uint8_t V = DomainVram;
	const std::vector<CsReloc> dma(599, CsReloc{1, V, 0, 0, false, kScoreNeutral});
	const std::vector<CsReloc> depth = {{0, 0, V, 0, true, kScoreNeutral}};
	const std::string path = test::temp_path("hp-train.vrl");
	test::write_v2(path, {test::create_event(0, 8 << 20), test::create_event(1, 4096),
	                      test::cs_event(dma), test::cs_event(depth)});
	const TrainTrace t = prepare_train_trace(load_kernel_trace(path), 256ull << 20);
	EXPECT_EQ(t.kt.prio[0], kPrioInUse);
	// buffer 0's computations: its create (t1) and the refresh at t602, 601 ticks later
	const float size_in = float(double(8 << 20)) / 1073741824.0f;
	std::vector<float> prio_in;
	for (auto &x : t.inputs)
		if (x[0] == size_in)
			prio_in.push_back(x[2]);
	EXPECT_EQ(prio_in, (std::vector<float>{0.0f, 1.0f}));
	ASSERT_EQ(t.reloc_input.size(), 600u);
	EXPECT_EQ(t.inputs[t.reloc_input[599]][2], 1.0f); // the depth write carries the refresh
	EXPECT_EQ(t.inputs[t.reloc_input[599]][0], size_in);
}

// The virtual radeon's kernel view ends each CS with the winsys's fence, which Mesa neither
// counts nor scores: a trained network's replay of such a trace sends it neutral and gives it no
// tick; Mesa's own trace (no fence) scores every relocation (docs/score.md).
TEST(TrainObjective, AKernelViewFenceIsNeutralAndNoTick)
{
	const std::string live = VRAMLAB_SOURCE_DIR "/../traces/live/glsmoke-barts-6mib.vrl";
	const TrainTrace t = prepare_train_trace(load_kernel_trace(live), 6ull << 20);
	ASSERT_TRUE(t.kt.kernel_view);
	ASSERT_FALSE(t.kt.cs.empty());
	size_t fences = 0;
	for (const KernelCs &c : t.kt.cs) {
		ASSERT_GT(c.n, 0u);
		for (uint32_t i = 0; i < c.n; i++)
			EXPECT_EQ(t.reloc_input[c.first + i] == TrainTrace::kNeutral, i + 1 == c.n);
		fences++;
	}
	const KernelTrace k = scored_trace(t, Mlp{}, 6);
	for (const KernelCs &c : k.cs)
		EXPECT_EQ(k.relocs[c.first + c.n - 1].score, kScoreNeutral);
	EXPECT_EQ(fences, t.kt.cs.size());
	// the same relocations without the header are Mesa's view: every one is a tick and scored
	const std::vector<CsReloc> two = {{0, DomainVram, 0, 0, false, kScoreNeutral},
	                                  {1, DomainGtt, DomainGtt, 0, false, kScoreNeutral}};
	const std::string path = test::temp_path("no-fence.vrl");
	test::write_v2(path, {test::create_event(0, 1 << 20), test::create_event(1, 4096),
	                      test::cs_event(two)});
	const TrainTrace m = prepare_train_trace(load_kernel_trace(path), 256ull << 20);
	EXPECT_FALSE(m.kt.kernel_view);
	EXPECT_NE(m.reloc_input[1], TrainTrace::kNeutral);
	std::remove(path.c_str());
}

TEST(GaOperators, ChildrenKeepPopulationSizeAndGenesInRange)
{
	std::mt19937_64 rng(1);
	std::vector<Genome> pop;
	for (int i = 0; i < 10; i++)
		pop.push_back(random_genome(rng));
	GaConfig c;
	c.population = 10;
	c.mutation = 0;
	const auto kids = ga_children(pop, c, rng);
	ASSERT_EQ(kids.size(), 5u); // the worse half is replaced
	for (auto &k : kids)
		for (size_t i = 0; i < k.size(); i++) {
			// Without mutation every gene comes whole from one of the surviving half.
			bool from_elite = false;
			for (size_t p = 0; p < 5; p++)
				from_elite |= pop[p][i] == k[i];
			EXPECT_TRUE(from_elite) << "gene " << i;
		}
	// Genes map onto [-1, 1].
	const Mlp m = Mlp::from_genome(kids[0]);
	for (float p : m.p)
		EXPECT_TRUE(p >= -1.0f && p <= 1.0f);
}

TEST(GaOperators, RankSelectionFavoursTheFittest)
{
	std::mt19937_64 rng(2);
	std::vector<Genome> pop(8);
	for (size_t i = 0; i < pop.size(); i++)
		pop[i].fill(uint8_t(i)); // gene value = rank
	GaConfig c;
	c.population = 8;
	c.mutation = 0;
	std::vector<int> count(4, 0);
	for (int round = 0; round < 500; round++)
		for (auto &k : ga_children(pop, c, rng))
			count[k[0]]++;
	EXPECT_GT(count[0], count[1]);
	EXPECT_GT(count[1], count[2]);
	EXPECT_GT(count[2], count[3]);
	EXPECT_GT(count[3], 0);
}

TEST(GaOperators, MutationRateAndMonteCarloSteps)
{
	std::mt19937_64 rng(3);
	std::vector<Genome> pop(2);
	pop[0].fill(100);
	pop[1].fill(100);
	GaConfig c;
	c.population = 4;
	c.mutation = 0.1;
	pop.resize(4, pop[0]);
	size_t changed = 0, total = 0;
	for (int r = 0; r < 200; r++)
		for (auto &k : ga_children(pop, c, rng))
			for (uint8_t g : k) {
				changed += g != 100;
				total++;
			}
	const double rate = double(changed) / double(total); // 10% mutate, 1/256 to the same byte
	EXPECT_NEAR(rate, 0.1 * 255 / 256, 0.01);

	Genome g;
	g.fill(250);
	for (int r = 0; r < 1000; r++) {
		const Genome m = mc_mutant(g, 3, 8, rng);
		int diff = 0;
		for (size_t i = 0; i < g.size(); i++) {
			EXPECT_LE(std::abs(int(m[i]) - int(g[i])), 8);
			diff += m[i] != g[i];
		}
		EXPECT_LE(diff, 3);
	}
}

TEST(TrainObjective, NeutralNetworkIsTheKernelModelsMinmaxKey)
{
	// Weights 0 but the output bias at +1: every score is the cap, whose key offset
	// ((0xffffffff - cap) * window) >> 32 is 0, so the keys are the series' keys without
	// scores: the kernel model's own minmax+key replay of a trace that carries none.
	Mlp m;
	m.p[kMlpParams - 1] = 1.0f;
	const Objective &o = tiny();
	const Evaluation e = o.evaluate(m);
	ASSERT_TRUE(e.complete);
	const auto base = o.baseline("minmax+key");
	const size_t ns = o.config().vram_mib.size();
	for (size_t p = 0; p < ns; p++) { // nederland1: a thesis trace, no scores of its own
		EXPECT_EQ(e.pairs[p].evictions, base[p].evictions) << "pair " << p;
		EXPECT_EQ(e.pairs[p].bytes, base[p].bytes) << "pair " << p;
		EXPECT_EQ(e.pairs[p].transfer_us, base[p].transfer_us) << "pair " << p;
	}
	// LRU against itself scores exactly 1.
	EXPECT_DOUBLE_EQ(o.fitness_of(o.lru()), 1.0);
}

TEST(TrainObjective, EarlyStopNeverChangesAResult)
{
	const Objective &o = tiny();
	std::mt19937_64 rng(5);
	for (int i = 0; i < 4; i++) {
		const Mlp m = Mlp::from_genome(random_genome(rng));
		const Evaluation full = o.evaluate(m);
		ASSERT_TRUE(full.complete);
		// A cutoff above the fitness gives the same bits; one below stops it.
		const Evaluation above = o.evaluate(m, full.fitness * 1.01);
		EXPECT_TRUE(above.complete);
		EXPECT_EQ(above.fitness, full.fitness);
		const Evaluation below = o.evaluate(m, full.fitness * 0.5);
		EXPECT_FALSE(below.complete);
		EXPECT_TRUE(std::isinf(below.fitness));
	}
}

TEST(Train, SameSeedSameResult)
{
	const Objective &o = tiny();
	const TrainResult a = train(o, tiny_config(), local_batch_eval(o), false);
	const TrainResult b = train(o, tiny_config(), local_batch_eval(o), false);
	EXPECT_EQ(a.best.p, b.best.p);
	EXPECT_EQ(a.best_fitness, b.best_fitness);
	ASSERT_EQ(a.log.size(), 5u); // generation 0 and four more
	EXPECT_EQ(a.log.back().phase, "mc");
	for (size_t i = 0; i < a.log.size(); i++) {
		EXPECT_EQ(a.log[i].best, b.log[i].best);
		EXPECT_EQ(a.log[i].evaluations, b.log[i].evaluations);
		if (i) {
			EXPECT_LE(a.log[i].best, a.log[i - 1].best); // elitism: the best never gets worse
		}
	}
	TrainConfig other = tiny_config();
	other.seed = 8;
	const TrainResult c = train(o, other, local_batch_eval(o), false);
	EXPECT_NE(a.best.p, c.best.p);
}

TEST(Train, ResumeEqualsAnUninterruptedRun)
{
	const Objective &o = tiny();
	const std::string ck = tmp("resume.json");
	std::filesystem::remove(ck);
	const TrainResult whole = train(o, tiny_config(), local_batch_eval(o), false);
	TrainConfig first = tiny_config(ck);
	first.generations = 2; // stopped after generation 2's checkpoint
	train(o, first, local_batch_eval(o), true);
	ASSERT_TRUE(std::filesystem::exists(ck));
	TrainConfig rest = tiny_config(ck);
	rest.resume = true;
	const TrainResult resumed = train(o, rest, local_batch_eval(o), true);
	EXPECT_TRUE(resumed.resumed);
	EXPECT_EQ(resumed.best.p, whole.best.p);
	EXPECT_EQ(resumed.best_fitness, whole.best_fitness);
	ASSERT_EQ(resumed.log.size(), whole.log.size());
	for (size_t i = 0; i < whole.log.size(); i++) {
		EXPECT_EQ(resumed.log[i].best, whole.log[i].best);
		EXPECT_EQ(resumed.log[i].evaluations, whole.log[i].evaluations);
	}
	// A checkpoint made for other settings is refused, naming the file.
	TrainConfig wrong = tiny_config(ck);
	wrong.resume = true;
	wrong.seed = 99;
	try {
		train(o, wrong, local_batch_eval(o), false);
		FAIL() << "a checkpoint of another seed was accepted";
	} catch (const TraceError &e) {
		EXPECT_NE(std::string(e.what()).find(ck), std::string::npos) << e.what();
	}
	std::filesystem::remove(ck);
}

TEST(Train, NloptRunsOnTheSameObjective)
{
	const Objective &o = tiny();
	TrainConfig c = tiny_config();
	c.method = "nlopt-esch";
	c.generations = 2;
	const TrainResult r = train(o, c, local_batch_eval(o), false);
	EXPECT_TRUE(std::isfinite(r.best_fitness));
	EXPECT_EQ(r.log.size(), 2u);
	EXPECT_EQ(o.evaluate(r.best).fitness, r.best_fitness); // what it reports is what it found
}
