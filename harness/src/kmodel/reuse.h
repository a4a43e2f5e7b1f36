// The kernel-only predictor of issue 50 (window-predict): when will a BO be used next, from
// what radeon sees at submission alone (no uapi, any Mesa). Per BO, an exponentially weighted
// mean of the intervals between the submissions that named it (1/4 weight to the newest, as
// TCP's RTT estimate); the next use is predicted one period after the last, and a BO idle
// longer than its period (or with none yet) is predicted to stay idle as long again, so that
// among those the order is the LRU's. The clairvoyant window's order (clairvoyant.h), next
// used latest first, with this prediction instead of the future: under a loop that does not
// fit, every period is about the frame and the most recently used go first, as Belady's
// victims do. 12 bytes per BO beside the last use time TTM's LRU bookkeeping already has.
#pragma once
#include <cstdint>

namespace vramlab {

struct ReuseEstimate {
	uint64_t period_us = 0; // 0: not reused yet
	uint32_t uses = 0;

	// A submission at now_us names the BO, last named at last_us (meaningful once uses > 0)
	void used(uint64_t last_us, uint64_t now_us)
	{
		if (uses > 0) {
			const uint64_t interval = now_us - last_us;
			period_us = period_us == 0 ? interval : (3 * period_us + interval) / 4;
		}
		uses += uses < UINT32_MAX;
	}
	// The predicted time of the next use at now_us (later = a better victim)
	uint64_t predicted_next(uint64_t last_us, uint64_t now_us) const
	{
		const uint64_t idle = now_us - last_us;
		if (uses == 0 || period_us == 0 || idle > period_us)
			return now_us + idle;
		return last_us + period_us;
	}
};

} // namespace vramlab
