// The kernel-only predictor of issue 50 (window-predict): when will a BO be used next, from
// what radeon sees at submission alone (no uapi, any Mesa). The clock is the device's
// submission count: the traces' times have millisecond resolution, and a frame's submissions
// share one, so time cannot order the BOs a frame names one after the other. Per BO, an
// exponentially weighted mean of the intervals between the submissions that named it (1/4
// weight to the newest, as TCP's RTT estimate); its next use is predicted one period after the
// last, and a BO idle longer than its period (or never reused, counting from its creation) is
// predicted to stay idle as long again, so that among those the order is the LRU's. Used as
// the clairvoyant window's order (clairvoyant.h), latest predicted first: under a loop that
// does not fit, every period is about a frame and the most recently used go first, as
// Belady's victims do. 16 bytes per BO.
#pragma once
#include <algorithm>
#include <cstdint>

namespace vramlab {

struct ReuseEstimate {
	uint64_t last = 0;   // clock at the last use, or at creation before any
	uint32_t period = 0; // 0: not reused yet
	uint32_t uses = 0;

	void created(uint64_t now) { *this = {now, 0, 0}; }
	// A submission at `now` names the BO
	void used(uint64_t now)
	{
		if (uses > 0) {
			const uint64_t interval = std::min<uint64_t>(now - last, UINT32_MAX);
			period = uint32_t(period == 0 ? interval : (3 * uint64_t(period) + interval) / 4);
		}
		last = now;
		uses += uses < UINT32_MAX;
	}
	// The predicted clock of the next use, at `now` (later = a better victim)
	uint64_t predicted_next(uint64_t now) const
	{
		const uint64_t idle = now - last;
		if (uses == 0 || period == 0 || idle > period)
			return now + idle;
		return last + period;
	}
};

} // namespace vramlab
