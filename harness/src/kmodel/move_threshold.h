// How many bytes one submission may move before its BOs stay where they are, for the kernel
// model: radeon's per-submission threshold, or the series' time-based move budget
// (ttm_move_budget, amdgpu's design). Its own file: the rule the move budget and any
// admission rule change.
#pragma once
#include <algorithm>
#include <cstdint>

namespace vramlab {

class MoveThreshold {
public:
	MoveThreshold(uint64_t vram, bool budget, uint32_t mbps, uint32_t cap_ms)
	    : vram_(vram), budget_(budget), mbps_(mbps), cap_ms_(cap_ms)
	{
	}
	// The bytes this submission, at now_us with `used` bytes of VRAM in use, may move.
	// Radeon's radeon_bo_get_threshold_for_moves(): a quarter of the free half of VRAM, at
	// least 1 MiB. The budget (ttm_move_budget_threshold()): time since the last submission
	// accumulates at mbps (1 MB/s = 1 byte/us) up to the cap, all of it as in amdgpu (an idle
	// as long as a debt repays it); with an eighth of VRAM free at least a quarter of the
	// free space may move (amdgpu's fill rule), then the budget as bytes.
	uint64_t threshold(uint64_t used, uint64_t now_us)
	{
		if (!budget_) {
			const uint64_t half = vram_ >> 1;
			const uint64_t half_free = used >= half ? 0 : half - used;
			return std::max<uint64_t>(half_free >> 1, 1024 * 1024);
		}
		const int64_t cap = int64_t(cap_ms_) * 1000;
		const uint64_t elapsed = now_us > last_us_ ? now_us - last_us_ : 0;
		last_us_ = std::max(last_us_, now_us);
		// us_ >= -kDebtMaxUs: cap - us_ cannot overflow
		us_ = us_ >= cap || elapsed >= uint64_t(cap - us_) ? cap : us_ + int64_t(elapsed);
		const uint64_t free = used >= vram_ ? 0 : vram_ - used;
		if (free >= vram_ / 8)
			us_ = std::max<int64_t>(us_, int64_t(free / 4 / mbps_));
		return us_ > 0 ? uint64_t(us_) * mbps_ : 0;
	}
	// Whether a submission that moved `moved` bytes is over it (radeon: over; the budget:
	// used up)
	bool over(uint64_t moved, uint64_t threshold) const
	{
		return budget_ ? moved >= threshold : moved > threshold;
	}
	// ttm_move_budget_debit(): every byte the submission moved (debt allowed, down to
	// TTM_MOVE_BUDGET_DEBT_MAX_US, so that no debit wraps into a credit)
	void debit(uint64_t moved)
	{
		if (budget_)
			us_ = std::max(us_ - int64_t(std::min<uint64_t>(moved / mbps_, kDebtMaxUs)),
				       -kDebtMaxUs);
	}
	// The budget in us of moves (negative: debt), as ttm_move_budget_us()
	int64_t budget_us() const { return us_; }
	static constexpr int64_t kDebtMaxUs = 3600LL * 1000 * 1000; // an hour of moves

private:
	uint64_t vram_;
	bool budget_;
	uint32_t mbps_, cap_ms_;
	uint64_t last_us_ = 0;
	int64_t us_ = 0; // the budget, in us of moves (negative: debt)
};

} // namespace vramlab
