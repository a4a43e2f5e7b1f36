// The kernel model over ensembles and cost bands (kmodel/ensemble.h): `vramlab sim --model
// kernel --ensemble N` and `vramlab decide` (decide.cc). Every policy is paired with stock LRU
// on the same trace, VRAM size and variation; bands are derived from each run's counters.
#pragma once
#include <string>
#include <vector>

#include "kmodel/cost_file.h"
#include "kmodel/ensemble.h"
#include "trace/filters.h"

namespace vramlab {

struct DecideArgs {
	std::vector<std::string> corpus, live; // trace files or directories
	std::vector<std::string> policies;     // the first must be lru (stock, on any kernel)
	// More baselines every policy is paired with (lru on a kernel: "6.14:lru"), run if missing
	std::vector<std::string> baselines;
	// A scoring network: adds the policy minmax+key:NAME, min-max + key order with the scores
	// Mesa would send with these weights (recomputed from each trace by the score contract).
	std::string weights;
	std::vector<uint64_t> vram_mib;
	std::vector<uint64_t> live_vram_mib; // the live corpus's sizes (empty: vram_mib)
	unsigned ensemble = 16;
	// Cost bands: factors on the base's GTT charge, PCIe bandwidths (absolute).
	std::vector<double> gtt_factors{1, 2, 4}, pcie_gbps{kDefaultPcieGbps};
	// A move's fixed cost, us, as a third band dimension (empty: the costs' own, one value):
	// what a verdict owes to the one cost the model has not measured
	std::vector<double> move_latency_us;
	KernelConfig config; // window, the base costs, topdown default
	CostFile costs;      // what config's costs came from (recorded in the JSON)
	OnDestroyed on_destroyed = OnDestroyed::Skip;
	unsigned threads = 0;
	std::string json;
	// Each replay's thread CPU time as CSV (runs copied from another are not replays, and not
	// listed): where a table's time goes, by trace, size and policy. One process only.
	std::string run_times;
	bool quiet = false;
	// Spread the traces over MPI processes (mpirun -np N vramlab decide --mpi): each replays
	// every ensemble of its share, rank 0 gathers the figures and writes the table and JSON
	bool mpi = false;
	bool decide = true; // false: sim --ensemble (one table of spreads, no verdicts)
	// Replay every board, also one that pins what an earlier board pins at that size (whose
	// figures are otherwise copied): the check that the copy is the replay, and nothing else
	bool every_board = false;
};

// Where a policy of the table takes its scores from: the trace's, a clairvoyant Mesa's
// (NAME:oracle, kmodel/oracle.h: the offline reference of what a scored order could reach), or
// the network's of --weights (NAME:net).
enum class ScoreSource { Trace, Oracle, Net };

// A policy of the table: a kernel-model policy name, NAME:oracle or NAME:net for a policy that
// evicts by scores (key or bo->priority). std::invalid_argument for a name the table cannot run.
KernelChoice decide_choice(const std::string &name, uint32_t default_kib, ScoreSource &scores);

// Runs everything, prints the table (stdout, or stderr with --json -), writes the JSON.
void run_decide(const DecideArgs &a);

} // namespace vramlab
