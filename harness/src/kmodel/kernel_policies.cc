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
	        {"minmax+key", "both: what the series v2 shipped", true, true},
	        {"fit", "lru, no eviction for a BO larger than VRAM (the series' first patch)", false,
	         false, true},
	        {"window", "fit + window eviction: a drm_mm scan picks the victims", false, false, true,
	         true},
	        {"budget", "fit + the time-based move budget instead of radeon's threshold", false,
	         false, true, false, true},
	        {"window+budget", "fit + window eviction + the move budget", false, false, true, true,
	         true},
	        {"minmax+window+budget", "the same with large BOs top-down", true, false, true, true,
	         true},
	        {"window+key", "window eviction over key order (radeon.bo_score=1)", false, true, true,
	         true},
	        {"window+budget+key", "window eviction over key order + the move budget", false, true,
	         true, true, true},
	        // Issue 36: the window whose victims weigh least (model only, not in the series)
	        {"window-weigh", "window eviction, the lightest window of the span (bytes x "
	                         "recency rank)", false, false, true, true, false, false, true},
	        {"window-ends", "window eviction, the lighter of the span's two end windows (no "
	                        "split)", false, false, true, true, false, false, true, true},
	        // Issue 36: scan the idle candidates first; the thrash guard; the offline
	        // references (model only)
	        {"window-idle", "window eviction over the candidates idle --idle-ms first, all "
	                        "if none fits", false, false, true, true, false, false, false, false,
	         true},
	        {"guard", "fit + the thrash guard: a BO that keeps coming back stays resident "
	                  "a while", false, false, true, false, false, false, false, false, false,
	         false, false, true},
	        {"window+guard", "window eviction + the thrash guard", false, false, true, true,
	         false, false, false, false, false, false, false, true},
	        {"window-idle+guard", "window-idle + the thrash guard", false, false, true, true,
	         false, false, false, false, true, false, false, true},
	        {"window-oracle", "offline reference: the window whose victims are next used "
	                          "latest, anywhere in VRAM", false, false, true, true, false, false,
	         false, false, false, true},
	        {"window-oracle+admit", "offline reference: that window, and a BO needed later "
	                                "than its victims stays in GTT", false, false, true, true,
	         false, false, false, false, false, true, true},
	        // Issue 50: the clairvoyant window's rule with the next use predicted from each
	        // BO's reuse interval (kernel-only, model only)
	        {"window-predict", "the window whose victims' predicted next use is latest, "
	                           "among the first --scan-max LRU entries", false, false, true,
	         true, false, false, false, false, false, false, false, false, true},
	        {"window-predict+admit", "window-predict, and a BO that needs fewer pages per "
	                                 "submission than its window's victims stays in GTT where "
	                                 "the card's GTT reads are cheap", false, false, true,
	         true, false, false, false, false, false, false, false, false, true, true},
	        // The review's question: bo->priority instead of the key (not in the series)
	        {"prio", "bottom-up, eviction by bo->priority from the scores (4 LRU lists)", false,
	         false, false, false, false, true},
	        {"minmax+prio", "large BOs top-down, eviction by bo->priority from the scores", true,
	         false, false, false, false, true},
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

const char *stock_name(Stock s)
{
	switch (s) {
	case Stock::V6_12: return "6.12";
	case Stock::V6_14: return "6.14";
	case Stock::V6_14_Fixed: return "6.14+fix";
	}
	return "?";
}

Stock parse_stock(const std::string &s)
{
	for (Stock k : {Stock::V6_12, Stock::V6_14, Stock::V6_14_Fixed})
		if (s == stock_name(k))
			return k;
	// The 6.14 path is proven on 7.2's own code (kernel/linux-7.2.mk, replay-7.2): the names
	// of what was proven
	if (s == "7.2")
		return Stock::V6_14;
	if (s == "7.2+fix")
		return Stock::V6_14_Fixed;
	throw std::invalid_argument("unknown kernel \"" + s +
	                            "\" (known: 6.12, 6.14 or 7.2, 6.14+fix or 7.2+fix)");
}

void apply_choice(const KernelChoice &k, KernelConfig &c)
{
	c.stock = k.stock;
	c.topdown_kib = k.topdown_kib;
	c.bo_score = k.policy->key;
	c.bo_priority = k.policy->prio;
	c.flush_for_impossible = !k.policy->fit;
	c.scan = k.policy->scan;
	c.budget = k.policy->budget;
	c.window_weigh = k.policy->weigh;
	c.window_ends = k.policy->ends;
	if (!k.policy->idle)
		c.idle_ms = UINT32_MAX;
	else if (c.idle_ms == UINT32_MAX)
		c.idle_ms = KernelConfig::kDefaultIdleMs;
	c.window_oracle = k.policy->oracle;
	c.admit_oracle = k.policy->admit;
	c.guard = k.policy->guard;
	c.window_predict = k.policy->predict;
	c.admit_predict = k.policy->predict_admit;
}

KernelChoice kernel_choice(const std::string &full, uint32_t default_kib)
{
	Stock stock = Stock::V6_12;
	std::string name = full;
	if (has_kernel_prefix(full)) {
		const size_t colon = full.find(':');
		stock = parse_stock(full.substr(0, colon));
		name = full.substr(colon + 1);
	}
	const PolicyName pn = split_policy_name(name);
	const KernelPolicy &p = find_kernel_policy(pn.base);
	// Key and priority order are set at the end of a submission, with the tail moves that
	// 6.14 lost: the series needs the fix under it there
	if (stock == Stock::V6_14 && p.scored())
		throw std::invalid_argument("policy \"" + full + "\": eviction by key or priority "
		                            "moves BOs at the end of a submission, which 6.14 no longer "
		                            "does; run it on 6.14+fix");
	if (!pn.threshold)
		return {&p, p.topdown ? default_kib : 0, stock};
	if (!p.topdown)
		throw std::invalid_argument("policy \"" + name + "\": a threshold needs min-max "
		                            "placement (minmax@SIZE, minmax+key@SIZE)");
	if (*pn.threshold == 0 || *pn.threshold % 1024 || *pn.threshold > (1ull << 30))
		throw std::invalid_argument("policy \"" + name + "\": the threshold must be whole "
		                            "KiB, 1 KiB to 1 GiB (radeon.topdown_threshold)");
	return {&p, uint32_t(*pn.threshold / 1024), stock};
}

} // namespace vramlab
