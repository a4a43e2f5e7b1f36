// The kernel model's policies: placement x eviction as the series' module parameters.
#include <stdexcept>

#include "kmodel/kernel_model.h"

namespace vramlab {

const std::vector<KernelPolicy> &kernel_policies()
{
	static const std::vector<KernelPolicy> p = {
	        {"lru", "bottom-up best fit, LRU eviction (radeon on 6.12 today)", false, false},
	        {"minmax", "large BOs top-down (radeon.topdown_threshold), LRU eviction", true, false},
	        {"key", "bottom-up, eviction by key from the scores the trace sent (radeon.bo_score=1)",
	         false, true},
	        {"minmax+key", "both: what the series ships", true, true},
	};
	return p;
}

const KernelPolicy &find_kernel_policy(const std::string &name)
{
	for (auto &p : kernel_policies())
		if (name == p.name)
			return p;
	std::string known;
	for (auto &p : kernel_policies())
		known += std::string(known.empty() ? "" : ", ") + p.name;
	throw std::invalid_argument("unknown kernel-model policy \"" + name + "\" (known: " + known + ")");
}

} // namespace vramlab
