// vramlab train (docs/training.md): the thesis's genetic mode and Monte-Carlo fine tuning over
// byte genomes, and NLopt's derivative-free optimizers over the same 118 parameters, on the
// kernel-model objective (objective.h). Checkpoints after every generation (atomically);
// --resume continues a killed run exactly; evaluations can be spread over MPI processes and
// give the same result as one process.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "mlp/mlp.h"
#include "train/objective.h"

namespace vramlab {

using Genome = std::array<uint8_t, kMlpParams>;

struct GaConfig {
	unsigned population = 24;      // even; the best half survives (elitism)
	double mutation = 0.001;       // per gene and child: a fresh random byte (thesis: 0.1%)
};

// One generation of the thesis's GA, on a population sorted best first (fitness ascending):
// the best half survives and mates; the worse half is replaced by children. Parents are drawn
// by rank (the fittest most often: weight half - rank), each gene comes whole from one of the
// two, and mutates with probability `mutation`. Returns the children (population / 2).
std::vector<Genome> ga_children(const std::vector<Genome> &sorted, const GaConfig &c,
                                std::mt19937_64 &rng);
// Monte-Carlo step: 1..max_genes genes of g, each moved by 1..max_step (either way, clamped).
Genome mc_mutant(const Genome &g, unsigned max_genes, unsigned max_step, std::mt19937_64 &rng);
Genome random_genome(std::mt19937_64 &rng);

struct TrainConfig {
	std::string method = "ga";     // ga (then mc), mc, nlopt-esch, nlopt-crs2, nlopt-sbplx
	GaConfig ga;
	unsigned generations = 0;      // 0: until the time budget
	double minutes = 0;            // wall-clock budget (0: none); checked between generations
	unsigned mc_after = 0;         // GA generations before switching to Monte-Carlo (0: never)
	unsigned mc_genes = 4, mc_step = 8;
	uint64_t seed = 1;
	std::string checkpoint;        // written after every generation ("" = none)
	std::string init;              // a weights file to seed the population with (optional)
	bool resume = false;
	bool progress = true;
	bool mpi = false;
};

// What a batch evaluation gives per network: its fitness and, for the report, its bytes moved
// and transfer time over LRU's (Evaluation::bytes_ratio, time_ratio); all infinite when the
// evaluation stopped early.
struct Fit {
	double fitness = HUGE_VAL, bytes = HUGE_VAL, time = HUGE_VAL;
};

struct GenerationLog {
	unsigned generation = 0;
	double best = 0, mean = 0;     // fitness of the best and mean of the survivors
	double best_bytes = 0, best_time = 0; // the best's ratios to LRU (1 = LRU)
	uint64_t evaluations = 0, stopped_early = 0; // cumulative
	double seconds = 0, cpu_seconds = 0;          // cumulative, this run and earlier ones
	std::string phase;             // ga, mc, nlopt
};

struct TrainResult {
	Mlp best;
	double best_fitness = 0;
	std::vector<GenerationLog> log;
	bool resumed = false;
};

// Evaluates a batch of networks with one cutoff; under MPI each process takes every size-th
// one and all of them get every result. The default runs the objective in this process.
using BatchEval = std::function<std::vector<Fit>(const std::vector<Mlp> &, double cutoff)>;
BatchEval local_batch_eval(const Objective &o, uint64_t *stopped = nullptr);

TrainResult train(const Objective &o, const TrainConfig &c, const BatchEval &eval,
                  bool write_files = true);

} // namespace vramlab
