// libFuzzer target: the cost-file parser (docs/cost-file.md). What it accepts must be within
// the documented bounds and give a finite transfer time.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "kmodel/cost_file.h"
#include "trace/event.h"

using namespace vramlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	try {
		const CostFile c =
		        parse_cost_file(std::string(reinterpret_cast<const char *>(data), size), "fuzz");
		for (const auto &[v, b] : {std::pair{c.pcie_gbps, kPcieBounds},
		                           std::pair{c.vram_gbps, kVramBounds},
		                           std::pair{c.move_latency_us, kMoveLatencyBounds},
		                           std::pair{c.gtt_reads_per_use, kGttReadsBounds}})
			if (!(v >= b.min && v <= b.max))
				std::abort();
		KernelConfig k;
		c.apply(k);
		if (!std::isfinite(transfer_time_us(1ull << 40, 1 << 20, 1ull << 40, k.pcie_gbps, k)))
			std::abort();
	} catch (const TraceError &) {
	}
	return 0;
}
