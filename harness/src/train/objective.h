// The trainer's objective (docs/training.md): a network's scores, computed as Mesa v2 computes
// them (the score contract, docs/score.md), drive the kernel model with min-max placement and
// key-ordered eviction (the series' radeon.bo_score=1), over a set of traces and VRAM sizes,
// against LRU on the same traces and sizes.
//
// Evaluations are cheap because which score computations happen, and with which statistics,
// does not depend on the weights: each trace is decoded and its computations collected once
// (deduplicated inputs, and for every relocation the computation whose score it carries), so
// a candidate costs one network evaluation per distinct input plus one model replay per
// (trace, size) pair, and a replay stops as soon as the candidate cannot beat a cutoff.
#pragma once
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kmodel/cost_file.h"
#include "kmodel/kernel_model.h"
#include "mlp/mlp.h"

namespace vramlab {

// One trace prepared for training: the kernel's view and its score computations.
struct TrainTrace {
	KernelTrace kt;
	std::vector<std::array<float, kMlpInputs>> inputs; // distinct network inputs
	static constexpr uint32_t kNeutral = UINT32_MAX; // a relocation Mesa sends neutral (a fence)
	std::vector<uint32_t> reloc_input; // per relocation of kt.relocs: index into inputs, or kNeutral
	// Input 1 (the VRAM size) is replaced per evaluated size: under radeon.vramlimit the
	// driver sees the limited size.
	uint64_t computations = 0;         // score computations before deduplication
};
// Decodes `path` (through the decoded-trace cache) and collects its computations under the
// contract's access rule with the trace's own VRAM size input (its header, else the fallback).
TrainTrace prepare_train_trace(const std::string &path, uint64_t vram_input_fallback);
// The same for a kernel trace already in memory (a regrouped one: with_period()).
TrainTrace prepare_train_trace(KernelTrace kt, uint64_t vram_input);
// Its inputs alone (kt is not copied; the result's kt is empty): what net_scores() reads.
TrainTrace train_inputs(const KernelTrace &kt, uint64_t vram_input);
// The trace with every relocation carrying the score network m gives it, as Mesa would send
// it on a board whose driver sees vram_mib of VRAM (input 1), a score chunk with every CS.
KernelTrace scored_trace(const TrainTrace &t, const Mlp &m, uint64_t vram_mib);
// Those scores alone, one per relocation of t.kt (simulate_kernel()'s `scores`).
std::vector<uint32_t> net_scores(const TrainTrace &t, const Mlp &m, uint64_t vram_mib);

struct PairFigures {
	uint64_t evictions = 0, bytes = 0; // bytes moved between VRAM and GTT, either way
	double transfer_us = 0;
};
inline bool operator==(const PairFigures &a, const PairFigures &b)
{
	return a.evictions == b.evictions && a.bytes == b.bytes && a.transfer_us == b.transfer_us;
}

struct ObjectiveConfig {
	std::vector<uint64_t> vram_mib{64, 128, 256};
	uint32_t topdown_kib = 512;  // radeon.topdown_threshold as the series boots
	uint32_t window = 256;       // radeon.bo_score_window
	double tolerance = 0.005;    // per pair, transfer time allowed over LRU before a penalty
	unsigned threads = 0;        // 0: all cores
	CostFile costs;              // the transfer costs (--cost; default built in)
};

struct Evaluation {
	double fitness = 0;          // lower is better; LRU scores 1
	bool complete = true;        // false: stopped early (fitness and ratios infinite)
	// Mean over sizes of the summed bytes moved (transfer time) over LRU's: 1 = LRU.
	double bytes_ratio = HUGE_VAL, time_ratio = HUGE_VAL;
	std::vector<PairFigures> pairs; // per (trace, size), trace-major (complete only)
};

// The training (or validation) problem: traces x sizes, with LRU figures as the baseline.
class Objective {
public:
	Objective(std::vector<TrainTrace> traces, const ObjectiveConfig &c);

	// fitness = mean over sizes of (sum bytes / sum LRU bytes + sum time / sum LRU time) / 2,
	// plus, per (trace, size), max(0, time / LRU time - 1 - tolerance) / number of sizes.
	// Every term only grows while a replay runs, so a partial sum is a lower bound: with a
	// cutoff the evaluation stops once that bound exceeds it. Deterministic: the same
	// network gives the same bits on any number of threads.
	Evaluation evaluate(const Mlp &m, double cutoff = HUGE_VAL) const;
	// The same replay with a fixed kernel policy (kernel_policies(): lru, minmax, ...) and
	// the traces' own recorded scores: the comparison rows.
	std::vector<PairFigures> baseline(const std::string &policy) const;

	// The offline reference: every relocation carries the score a clairvoyant driver would
	// send, the key offset of its buffer's distance in submissions to its next use (never used
	// again: the whole window). Belady's rule as far as the series' keys can express it: the
	// best any network could do under the same kernel.
	std::vector<PairFigures> oracle() const;

	size_t pairs() const { return traces_.size() * c_.vram_mib.size(); }
	const std::vector<TrainTrace> &traces() const { return traces_; }
	const ObjectiveConfig &config() const { return c_; }
	const std::vector<PairFigures> &lru() const { return lru_; }
	// The fitness of given figures (the same formula; figures of every pair).
	double fitness_of(const std::vector<PairFigures> &f) const;
	// Mean over sizes of sum(figure) / sum(LRU figure), for bytes moved and transfer time.
	std::pair<double, double> ratios(const std::vector<PairFigures> &f) const;
	uint64_t replayed_ops() const { return replayed_.load(); }

private:
	KernelConfig kconfig(uint64_t vram_mib, bool key, bool topdown) const;
	// Replays pair p with the given scores; stops (returns false) when `bound` (the pair's
	// running contribution added to `base`) exceeds cutoff. Checked every kCheckOps ops.
	bool replay(size_t p, const std::vector<uint32_t> &scores, double cutoff,
	            std::atomic<double> &spent, PairFigures &out) const;
	double pair_weight_bytes(size_t p) const;
	double pair_weight_time(size_t p) const;

	std::vector<TrainTrace> traces_;
	ObjectiveConfig c_;
	std::vector<PairFigures> lru_;
	std::vector<double> lru_bytes_, lru_time_; // per size, summed over traces
	mutable std::atomic<uint64_t> replayed_{0};
};

} // namespace vramlab
