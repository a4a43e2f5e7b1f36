// The one replay loop every policy runs through (cost-model.md). Placement is the config's
// (bottom-up, or min-max: buffers >= threshold top-down); eviction is the policy's, a class with:
//
//   P(const CompactTrace &, const SimConfig &);
//   void created(uint32_t id, uint32_t pos);     a create (before its placement)
//   void gpu(uint32_t id, uint32_t pos, bool w); a GPU access (before any move decision)
//   void cpu(uint32_t id);                       a CPU map (not a use)
//   void inserted(uint32_t id, uint64_t addr);   it became resident
//   void touched(uint32_t id);                   a GPU access while resident
//   void removed(uint32_t id);                   it left VRAM (eviction or destroy)
//   uint32_t victim(uint32_t in, uint64_t size); who to evict next to make room for `in`
//   bool admit(uint32_t in, uint32_t victim);    false: serve `in` from RAM instead (asked
//                                                once per move-in, before any eviction)
//
// Zero-size buffers take no space, are resident from their create on and are never shown to
// the policy as residents. The loop is a template so each policy's calls inline.
#pragma once
#include <algorithm>
#include <concepts>
#include <stdexcept>
#include <string>

#include "sim/cost.h"
#include "sim/sim.h"
#include "sim/vram.h"

namespace vramlab {

inline constexpr uint32_t kNoBuffer = UINT32_MAX;

template <class P>
concept EvictionPolicy = std::constructible_from<P, const CompactTrace &, const SimConfig &> &&
                         requires(P p, uint32_t id, uint32_t pos, bool w, uint64_t x) {
	                         p.created(id, pos);
	                         p.gpu(id, pos, w);
	                         p.cpu(id);
	                         p.inserted(id, x);
	                         p.touched(id);
	                         p.removed(id);
	                         { p.victim(id, x) } -> std::convertible_to<uint32_t>;
	                         { p.admit(id, id) } -> std::convertible_to<bool>;
                         };

template <EvictionPolicy P> SimResult replay(const CompactTrace &t, const SimConfig &c)
{
	P p(t, c);
	Vram vram(c.vram);
	SimResult r;
	const size_t n = t.size.size();
	// Size and place of each buffer side by side: one cache line per event.
	constexpr uint64_t kAway = UINT64_MAX; // not in VRAM
	struct Slot {
		uint64_t size, addr;
	};
	std::vector<Slot> buf(n);
	for (size_t i = 0; i < n; i++)
		buf[i] = {t.size[i], kAway};
	uint64_t used = 0;
	bool evicted_now = false;

	auto evict = [&](uint32_t v) {
		const uint64_t b = buf[v].size;
		r.cost += cost::move(b);
		r.evictions++;
		r.evicted_bytes += b;
		vram.release(buf[v].addr, b);
		used -= b;
		buf[v].addr = kAway;
		p.removed(v);
		evicted_now = true;
	};
	// A move-in is admitted or declined once, against the first victim, before anything is
	// evicted: a declined access costs no eviction.
	auto move_in = [&](uint32_t id, uint64_t b) {
		for (bool asked = false; !vram.fits(b); asked = true) {
			const uint32_t v = p.victim(id, b);
			if (v == kNoBuffer)
				throw std::logic_error("policy found no victim while VRAM is not empty");
			if (!asked && !p.admit(id, v)) {
				r.declined++;
				return false;
			}
			evict(v);
		}
		buf[id].addr = vram.place(b, c.minmax && b >= c.threshold);
		used += b;
		r.moves_in++;
		p.inserted(id, buf[id].addr);
		if (c.placements)
			c.placements->push_back({id, buf[id].addr});
		return true;
	};
	auto check = [&](size_t pos) {
		if (const char *err = vram.check(); *err)
			throw std::logic_error("invariant broken at entry " + std::to_string(pos) + ": " + err);
		if (used + vram.free_bytes() != vram.size())
			throw std::logic_error("used + free != VRAM size at entry " + std::to_string(pos));
		std::vector<std::pair<uint64_t, uint64_t>> live;
		for (size_t i = 0; i < n; i++)
			if (buf[i].addr != kAway && buf[i].size)
				live.push_back({buf[i].addr, buf[i].size});
		std::sort(live.begin(), live.end());
		for (size_t i = 1; i < live.size(); i++)
			if (live[i - 1].first + live[i - 1].second > live[i].first)
				throw std::logic_error("overlapping buffers at entry " + std::to_string(pos));
	};

	// fragmentation as the thesis counted it: holes beyond the one a tidy VRAM has
	auto fragments = [&vram] { return vram.holes() ? vram.holes() - 1 : 0; };
	uint32_t frag_tick = 0;
	r.timeline.every = c.timeline_every;
	const size_t nops = t.ops.size();
	for (size_t pos = 0; pos < nops; pos++) {
		const uint32_t op = t.ops[pos];
		const uint32_t id = op & CompactTrace::kIdMask;
		Slot &slot = buf[id];
		const uint64_t b = slot.size;
		evicted_now = false;
		switch (EventType(op >> CompactTrace::kTypeShift)) {
		case EventType::Create:
			if (b >= c.vram) {
				r.cut = true;
				r.cut_at = id;
				goto done;
			}
			p.created(id, uint32_t(pos));
			if (b == 0) {
				slot.addr = 0; // takes no space, always resident
				r.cost += cost::move(0);
			} else if (move_in(id, b)) {
				r.cost += cost::move(b);
			} else {
				r.cost += cost::gpu_read_ram(b);
			}
			break;
		case EventType::Read:
		case EventType::Write: {
			const bool w = (op >> CompactTrace::kTypeShift) == uint32_t(EventType::Write);
			p.gpu(id, uint32_t(pos), w);
			if (slot.addr != kAway) {
				r.cost += cost::gpu_in_vram(b);
				if (b)
					p.touched(id);
			} else if (move_in(id, b)) {
				r.cost += cost::move(b);
			} else {
				r.cost += w ? cost::gpu_write_ram(b) : cost::gpu_read_ram(b);
			}
			break;
		}
		case EventType::Cpu:
			r.cost += slot.addr != kAway ? cost::cpu_vram(b) : cost::cpu_ram(b);
			p.cpu(id);
			break;
		case EventType::Destroy:
			if (slot.addr != kAway && b) {
				vram.release(slot.addr, b);
				used -= b;
				p.removed(id);
			}
			slot.addr = kAway;
			break;
		default: break;
		}
		r.entries++;
		r.eviction_events += evicted_now;
		if (c.timeline_every) [[unlikely]]
			r.timeline.add(fragments(), evicted_now);
		if (++frag_tick == 10) {
			frag_tick = 0;
			const uint32_t f = fragments();
			r.frag_sum += f;
			r.frag_samples++;
			r.frag_peak = std::max(r.frag_peak, f);
		}
		if (c.check_every && pos % c.check_every == 0)
			check(pos);
	}
done:
	r.timeline.finish();
	if (c.check_every)
		check(nops);
	return r;
}

} // namespace vramlab
