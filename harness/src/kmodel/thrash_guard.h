// The thrash guard (issue 36, model only): a BO that keeps coming back into VRAM soon after
// being evicted is kept resident for a while, so neither the walk nor a window evicts it again
// at once. Detection as NVIDIA's UVM driver does it for pages (uvm_perf_thrashing.c: a page
// that migrates back within a short lapse, several times in a row, is "thrashing" and is then
// pinned for a while): a return within `within_ms` of the BO's last eviction is one event; after
// `count` events in a row the BO is guarded for `hold_ms`. A byte cap (a share of VRAM) keeps
// the guard from pinning VRAM full: beyond it no new BO is guarded. Guarded BOs are obstacles
// to eviction, as pinned ones are; an allocation that cannot fit around them goes to GTT (or
// fails, as any allocation with no room does). The guard reads no cost: it helps or not
// whatever a GPU read from GTT costs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vramlab {

struct ThrashGuardParams {
	uint32_t within_ms = 100;  // a return this soon after an eviction is one event
	uint32_t count = 3;        // events in a row that make a BO guarded
	uint32_t hold_ms = 1000;   // how long it stays guarded
	uint32_t cap_pct = 25;     // guarded bytes at most this share of VRAM
};

class ThrashGuard {
public:
	ThrashGuard(const ThrashGuardParams &p, uint64_t vram_pages)
	    : p_(p), cap_pages_(vram_pages * p.cap_pct / 100)
	{
	}
	void grow(size_t n)
	{
		if (n > st_.size())
			st_.resize(n);
	}
	// Whether the walk and the window must leave id where it is (hot path: one load).
	bool guarded(uint32_t id) const { return st_[id].until_us != 0; }
	// id was evicted at now_us.
	void evicted(uint32_t id, uint64_t now_us) { st_[id].evicted_us = now_us + 1; }
	// id of `pages` pages came back into VRAM at now_us: one more event, or the run ends.
	void returned(uint32_t id, uint64_t pages, uint64_t now_us);
	// id left VRAM for good (destroyed): its history and any guard end.
	void gone(uint32_t id);
	// Guards whose time is up end (before each eviction: the list is short, at most the cap).
	void expire(uint64_t now_us);

	uint64_t guards = 0;        // BOs guarded (each time)
	uint64_t cap_refusals = 0;  // BOs that thrashed but the cap left unguarded
	uint64_t guarded_pages() const { return pages_; }

private:
	struct State {
		uint64_t evicted_us = 0; // last eviction + 1 (0: never)
		uint64_t until_us = 0;   // guarded until (0: not guarded)
		uint64_t pages = 0;      // its size when guarded
		uint32_t events = 0;
	};
	ThrashGuardParams p_;
	uint64_t cap_pages_, pages_ = 0;
	std::vector<State> st_;
	std::vector<uint32_t> list_; // the guarded ids
};

} // namespace vramlab
