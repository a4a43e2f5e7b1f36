// The kernel model's policies: placement x eviction as the series' module parameters.
#include <stdexcept>

#include "kmodel/kernel_model.h"
#include "sim/policy_name.h"

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

KernelChoice kernel_choice(const std::string &name, uint32_t default_kib)
{
	const PolicyName pn = split_policy_name(name);
	const KernelPolicy &p = find_kernel_policy(pn.base);
	if (!pn.threshold)
		return {&p, p.topdown ? default_kib : 0};
	if (!p.topdown)
		throw std::invalid_argument("policy \"" + name + "\": a threshold needs min-max "
		                            "placement (minmax@SIZE, minmax+key@SIZE)");
	if (*pn.threshold == 0 || *pn.threshold % 1024 || *pn.threshold > (1ull << 30))
		throw std::invalid_argument("policy \"" + name + "\": the threshold must be whole "
		                            "KiB, 1 KiB to 1 GiB (radeon.topdown_threshold)");
	return {&p, uint32_t(*pn.threshold / 1024)};
}

} // namespace vramlab
