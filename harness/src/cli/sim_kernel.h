// vramlab sim --model kernel (sim_kernel.cc).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kmodel/cost_file.h"
#include "kmodel/kernel_model.h"

namespace vramlab {

struct KernelSimArgs {
	std::vector<std::string> inputs, policies;
	std::vector<uint64_t> vram_mib;
	KernelConfig config;
	CostFile costs; // what config's costs came from (recorded in the JSON)
	ReplayOptions replay;
	unsigned threads = 0;
	std::string json;
	bool quiet = false;
	int too_big = 0; // a BO larger than VRAM: 0 each policy's rule, 1 refused at once, 2 evict all
};
void run_kernel_sim(const KernelSimArgs &a);

} // namespace vramlab
