// The drm_mm scan of window eviction (drm_mm_scan_add_block() as the series' range manager
// drives it), for the kernel model: candidates are added in eviction order; each joins the
// free space and the candidates already added around it into a span; the first span that
// holds the BO is where the window lies. Its own file: the model's core only asks "does the
// span this candidate completes hold the BO".
#pragma once
#include <cstdint>
#include <vector>

#include "kmodel/drm_mm.h"

namespace vramlab {

class WindowScan {
public:
	struct Span {
		uint64_t l = 0, r = 0; // [l, r) in pages
	};
	// A new scan over a VRAM of `pages` pages (the first call sizes the tables).
	void begin(uint64_t pages)
	{
		if (end_at_.size() != pages + 1) { // addresses 0..pages: both ends of every span
			end_at_.assign(pages + 1, 0);
			start_at_.assign(pages + 1, 0);
			touched_.clear();
		}
		for (uint32_t a : touched_)
			end_at_[a] = start_at_[a] = 0;
		touched_.clear();
	}
	// The candidate [start, start + pages) joins the scan: the span it now lies in (merged
	// with the spans of candidates and the holes that touch it).
	Span add(uint64_t start, uint64_t pages, const DrmMm &mm)
	{
		uint64_t l = start, r = start + pages;
		if (const uint32_t s = start_at_[l]) { // a span of candidates ends at l
			start_at_[l] = 0;
			l = s - 1;
			end_at_[l] = 0;
		} else if (uint64_t h = mm.hole_ending_at(l); h != UINT64_MAX) {
			l = h;
		}
		if (const uint32_t e = end_at_[r]) { // and one starts at r
			end_at_[r] = 0;
			r = e - 1;
			start_at_[r] = 0;
		} else if (uint64_t h = mm.hole_starting_at(r); h != UINT64_MAX) {
			r = h;
		}
		end_at_[l] = uint32_t(r + 1);
		start_at_[r] = uint32_t(l + 1);
		touched_.push_back(uint32_t(l));
		touched_.push_back(uint32_t(r));
		return {l, r};
	}

private:
	// The spans by their ends (0: none): end_at_[start] = end + 1, start_at_[end] = start + 1;
	// touched_ says which entries to clear for the next scan.
	std::vector<uint32_t> end_at_, start_at_, touched_;
};

} // namespace vramlab
