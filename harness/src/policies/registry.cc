// The eviction policies of the thesis model, and how the command line names placement x
// eviction.
#include <stdexcept>

#include "sim/sim.h"

namespace vramlab {

const std::vector<PolicyInfo> &policies()
{
	static const std::vector<PolicyInfo> list = {
	        {"lru", "least recently used first", simulate_lru},
	        {"score", "thesis MLP score, lowest first, may serve from RAM", simulate_score},
	        {"score-age", "score, but keys refresh when 600 ticks old (busy buffers stay fresh)",
	         simulate_score_age},
	        {"gdsf", "Greedy-Dual-Size-Frequency with the cost model", simulate_gdsf},
	        {"belady", "offline contiguity-aware reference (knows the future)", simulate_belady},
	};
	return list;
}

Policy find_policy(const std::string &name)
{
	std::string ev = name;
	bool minmax = false;
	if (name == "minmax") {
		ev = "lru";
		minmax = true;
	} else if (name.rfind("minmax+", 0) == 0) {
		ev = name.substr(7);
		minmax = true;
	}
	for (auto &p : policies())
		if (ev == p.name)
			return {name, &p, minmax};
	std::string known;
	for (auto &p : policies())
		known += std::string(known.empty() ? "" : ", ") + p.name;
	throw std::invalid_argument("unknown policy \"" + name + "\" (eviction: " + known +
	                            "; placement: prefix minmax+, and minmax = minmax+lru)");
}

} // namespace vramlab
