// Ensembles and cost bands for the kernel model (docs/kernel-model.md, "Ensembles and cost
// bands"): what the model leaves out, varied the way real boards vary, so that a policy is
// compared with stock LRU on many boards and not on one run.
//
// - A variation is one board: the kernel BOs radeon pins at the bottom of VRAM (the VGA stolen
//   memory, the fbdev console's scanout at a common resolution, a desktop's front buffer and
//   cursor, UVD's firmware) and, for traces without CS records, the synthesized submission
//   period. Every policy runs on the same variations and is paired with LRU on each.
// - A cost band is a setting of the two costs nobody here has measured: the charge of a GPU use
//   served from GTT (a factor on the base's: one read at PCIe speed built in, a cost file's
//   gtt_reads_per_use with --cost) and the PCIe bandwidth. A band
//   costs no replay: transfer time is a linear function of three counters of one run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kmodel/kernel_model.h"

namespace vramlab {

struct Variation {
	const char *name;            // e.g. "1920x1080 console+desktop, UVD, 4 ms"
	std::vector<uint64_t> pinned; // bytes, in pin order
	uint32_t period_ms;           // synthesized submissions (traces without CS records)
};

// The defined variations, in order; an ensemble of N uses the first N. Variation 0 is the
// model as the KUnit replay proves it (nothing pinned, 1 ms).
const std::vector<Variation> &variations();
inline constexpr unsigned kMaxEnsemble = 16;

// The BOs variation v pins at a VRAM size: at most a quarter of it (a board with that little
// VRAM drives a smaller desktop), BOs that would pass that left out from the last.
std::vector<uint64_t> pinned_for(const Variation &v, uint64_t vram_bytes);

// The bytes pinned for a scanout of w x h at 32 bpp (radeon_align_pitch() on AVIVO and later:
// pitch aligned to 64 pixels; radeonfb_create_pinned_object(): size page-aligned).
uint64_t scanout_bytes(uint32_t w, uint32_t h);

struct CostBand {
	double gtt_factor = 1; // x the base's charge of a GPU use served from GTT
	double pcie_gbps = kDefaultPcieGbps;
	// A move's fixed cost in this band, us (decide --move-latency-us with several values: the
	// model's one unmeasured cost as a band, docs/decision-table.md); < 0: the costs' own
	double move_latency_us = -1;
	std::string label() const; // "gtt 2x, PCIe 8 GB/s" (", move 5 us" with its own latency)
	std::string column() const; // the same short, a table's head: "x2 8G" ("x2 8G 5us")
	// The card class a band stands for (docs/decision-table.md, "Card classes"): the GTT
	// charge is (1/PCIe - 1/VRAM bandwidth) x reads per use against the default's (8 GB/s,
	// 232 GB/s, 1 read). Low-end (x < 0.5): VRAM about as slow as PCIe, a read from GTT costs
	// little more than one from VRAM (HD 5450: 6.4 GB/s DDR3); mid (0.5 <= x < 2): a discrete
	// board reading each buffer about once (HD 5670 x0.91, HD 6970 x0.99); high (x >= 2): the
	// same boards when a use reads its buffer several times.
	enum Class { Low, Mid, High };
	static constexpr const char *kClassNames[3] = {"low-end", "mid", "high"};
	Class card_class() const { return gtt_factor < 0.5 ? Low : gtt_factor < 2 ? Mid : High; }
};

// The transfer time of a run's counters under a band (the rest of the costs from c): the
// same three terms as KernelModel's, with the GTT term scaled.
double band_transfer_us(uint64_t moved_bytes, uint64_t moves, uint64_t gtt_bytes,
                        const KernelConfig &c, const CostBand &b);
inline double band_transfer_us(const KernelResult &r, const KernelConfig &c, const CostBand &b)
{
	return band_transfer_us(r.bytes_to_vram() + r.bytes_from_vram(), r.moves(),
	                        r.gtt_access_bytes, c, b);
}

// "1,2,4" -> factors; each must be > 0 and <= max, and given once (a band twice would weigh
// twice), no item empty. std::invalid_argument names the value.
std::vector<double> parse_factors(const std::string &s, const char *what, double max);

} // namespace vramlab
