// The eviction policies of the thesis model, and how the command line names placement x
// eviction.
#include <stdexcept>

#include "sim/policy_name.h"
#include "sim/sim.h"

namespace vramlab {

const std::vector<PolicyInfo> &policies()
{
	static const std::vector<PolicyInfo> list = {
	        {"lru", "least recently used first", simulate_lru},
	        {"score", "thesis MLP score, lowest first, may serve from RAM", simulate_score,
	         simulate_score_lanes},
	        {"score-age", "score, but keys refresh when 600 ticks old (busy buffers stay fresh)",
	         simulate_score_age, simulate_score_age_lanes},
	        {"gdsf", "Greedy-Dual-Size-Frequency with the cost model", simulate_gdsf},
	        {"belady", "offline contiguity-aware reference (knows the future)", simulate_belady},
	};
	return list;
}

Policy find_policy(const std::string &name)
{
	const PolicyName pn = split_policy_name(name);
	std::string ev = pn.base;
	bool minmax = false;
	if (pn.base == "minmax") {
		ev = "lru";
		minmax = true;
	} else if (pn.base.rfind("minmax+", 0) == 0) {
		ev = pn.base.substr(7);
		minmax = true;
	}
	if (pn.threshold && !minmax)
		throw std::invalid_argument("policy \"" + name + "\": a threshold needs min-max "
		                            "placement (minmax@SIZE, minmax+EVICTION@SIZE)");
	if (pn.threshold && *pn.threshold == 0)
		throw std::invalid_argument("policy \"" + name + "\": the threshold must be above 0");
	for (auto &p : policies())
		if (ev == p.name)
			return {name, &p, minmax, pn.threshold.value_or(0)};
	std::string known;
	for (auto &p : policies())
		known += std::string(known.empty() ? "" : ", ") + p.name;
	throw std::invalid_argument("unknown policy \"" + name + "\" (eviction: " + known +
	                            "; placement: prefix minmax+, and minmax = minmax+lru)");
}

} // namespace vramlab
