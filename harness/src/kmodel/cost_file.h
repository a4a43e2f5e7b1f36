// Cost files (docs/cost-file.md): the kernel model's transfer-time costs, as assumed
// (costs/default.json: the built-in values of KernelConfig) or as measured on a card. A file
// sets all four costs; `vramlab sim --model kernel`, `decide` and `train` take one with --cost.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "kmodel/kernel_model.h"

namespace vramlab {

inline constexpr const char *kCostFormat = "vramlab-cost";
inline constexpr int kCostVersion = 1;

// The accepted range of each cost, both ends included (docs/cost-file.md, "Bounds").
struct CostBounds {
	const char *field;
	double min, max;
	const char *unit;
};
inline constexpr CostBounds kPcieBounds{"pcie_gbps", 0.1, 64, "GB/s"};
inline constexpr CostBounds kVramBounds{"vram_gbps", 1, 2000, "GB/s"};
inline constexpr CostBounds kMoveLatencyBounds{"move_latency_us", 0.1, 10000, "us"};
inline constexpr CostBounds kGttReadsBounds{"gtt_reads_per_use", 0.01, 100, "reads"};

struct CostFile {
	std::string path;              // empty: the built-in costs
	std::string source = "assumed"; // "assumed" or "measured"
	// Optional metadata (empty: not given): the card, its PCI id, the kernel and Mesa it was
	// measured with, the PCIe link (sysfs current_link_speed x current_link_width), notes.
	std::string card, pci_id, kernel, mesa, pcie_link, notes;
	double pcie_gbps = kDefaultPcieGbps, vram_gbps = kDefaultVramGbps,
	       move_latency_us = kDefaultMoveLatencyUs, gtt_reads_per_use = kDefaultGttReadsPerUse;

	bool builtin() const { return path.empty(); }
	// The four costs into a model configuration (the rest of it untouched).
	void apply(KernelConfig &c) const;
	// What the JSON outputs record under "costs": the file (null: built-in), the source, the
	// metadata given and the four costs.
	nlohmann::json json() const;
	// One line for the tables: "costs FILE (measured, CARD): PCIe 6 GB/s, VRAM 120 GB/s, 30 us
	// a move, 1.5 PCIe reads per GPU use in GTT".
	std::string describe() const;
};

// The built-in costs (equal to costs/default.json; tests/test_cost_file.cc checks it).
CostFile builtin_costs();
// Parses a cost file's text; `name` is the file name errors start with. Throws TraceError
// with one line: "NAME: FIELD: what is wrong" (malformed JSON: "NAME: malformed JSON at byte
// N: ...").
CostFile parse_cost_file(const std::string &text, const std::string &name);
// Reads and parses a cost file (TraceError when it cannot be read).
CostFile load_cost_file(const std::string &path);

} // namespace vramlab
