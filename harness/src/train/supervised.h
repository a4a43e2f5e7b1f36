// The scoring network fitted to a clairvoyant Mesa (issue 50, "the thesis's path done right"):
// instead of searching weights for a cost (the GA), the network learns the score a Mesa that
// knew the future would send, oracle_scores() (a BO named again d submissions later gets the
// score whose key offset in radeon's eviction key is d - 1), from the nine inputs Mesa computes
// live (train_inputs(), the score contract). Weighted least squares over the relocations,
// each weighted by its BO's bytes (a wrong score on a large BO moves more), minimised with
// NLopt's L-BFGS on the smootherstep network in double; the weights are then rounded to the
// float network Mesa and the harness evaluate bit for bit (docs/training.md, "Fitted to the
// oracle").
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "mlp/mlp.h"
#include "train/objective.h"

namespace vramlab {

struct FitConfig {
	uint32_t window = 256;      // radeon.bo_score_window: the oracle's horizon
	uint64_t vram_mib = 64;     // input 1 (the VRAM size as the driver sees it)
	unsigned iterations = 400;  // L-BFGS evaluations at most
	uint64_t seed = 1;          // the hidden layer's starting weights
};

// The training set: one row per distinct input, with the bytes of the relocations that carry
// it and their bytes-weighted mean target (the oracle's score / 2^32).
struct FitSet {
	std::vector<std::array<float, kMlpInputs>> x;
	std::vector<double> w, y;
	double w_sum = 0, wyy = 0; // sum of w and of w * y^2 over the relocations (the loss's constant)
	uint64_t relocations = 0;
};

// Adds t's relocations (Mesa's fence relocations, sent neutral, are left out) to s.
void add_fit_samples(FitSet &s, const TrainTrace &t, const FitConfig &c);

// What the fit minimises, in double, on one thread: the mean over the relocations' bytes of
// (o - y)^2 with o the network's output (continued past [0, 1] as supervised.cc says), and
// its gradient when grad is given. The parameters in the weights file's order.
double fit_objective(const FitSet &s, const std::array<double, kMlpParams> &p,
                     std::array<double, kMlpParams> *grad);

// The weighted mean squared error of m's scores (as Mesa computes them, float) on s.
double fit_loss(const FitSet &s, const Mlp &m);

struct FitResult {
	Mlp mlp;
	double loss_start = 0, loss = 0; // fit_loss() before and after
	unsigned evaluations = 0;
};

// Fits the network to s. progress(evaluation, loss in double) is called on each evaluation.
FitResult fit_scores(const FitSet &s, const FitConfig &c,
                     const std::function<void(unsigned, double)> &progress = {});

} // namespace vramlab
