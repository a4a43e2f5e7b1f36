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
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

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

// Several VRAM sizes of one policy in one pass over the trace: lane k is the run at vram[k].
// A lane policy L keeps what does not depend on the size once (the score policy's statistics,
// its refresh schedule, the network's inputs) and the rest per lane:
//
//   L(const CompactTrace &, const SimConfig &, std::span<const uint64_t> vram);
//   void created(uint32_t id, uint32_t pos);       every lane (before its placements)
//   void gpu(uint32_t id, uint32_t pos, bool w);   every lane (before any move decision)
//   void cpu(uint32_t id);                         every lane
//   void inserted(unsigned k, uint32_t id, uint64_t addr), touched(k, id), removed(k, id);
//   uint32_t victim(unsigned k, uint32_t in, uint64_t size);
//   bool admit(unsigned k, uint32_t in, uint32_t victim);
//
// Each lane sees the calls a run of its own would make, in the same order, so lane k's result
// is replay() at vram[k] to the bit (tests/test_replay_lanes.cc). A lane cut by a create that
// cannot fit stops there; the shared calls go on for the others.
template <class L>
concept LanePolicy = std::constructible_from<L, const CompactTrace &, const SimConfig &,
                                             std::span<const uint64_t>> &&
                     requires(L l, unsigned k, uint32_t id, uint32_t pos, bool w, uint64_t x) {
	                     l.created(id, pos);
	                     l.gpu(id, pos, w);
	                     l.cpu(id);
	                     l.inserted(k, id, x);
	                     l.touched(k, id);
	                     l.removed(k, id);
	                     { l.victim(k, id, x) } -> std::convertible_to<uint32_t>;
	                     { l.admit(k, id, id) } -> std::convertible_to<bool>;
                     };

// Any EvictionPolicy as a lane policy: one instance per lane, nothing shared.
template <EvictionPolicy P> class EachLane {
public:
	EachLane(const CompactTrace &t, const SimConfig &c, std::span<const uint64_t> vram)
	{
		p_.reserve(vram.size());
		for (uint64_t v : vram) {
			SimConfig ck = c;
			ck.vram = v;
			p_.emplace_back(t, ck);
		}
	}
	void created(uint32_t id, uint32_t pos)
	{
		for (P &p : p_)
			p.created(id, pos);
	}
	void gpu(uint32_t id, uint32_t pos, bool w)
	{
		for (P &p : p_)
			p.gpu(id, pos, w);
	}
	void cpu(uint32_t id)
	{
		for (P &p : p_)
			p.cpu(id);
	}
	void inserted(unsigned k, uint32_t id, uint64_t addr) { p_[k].inserted(id, addr); }
	void touched(unsigned k, uint32_t id) { p_[k].touched(id); }
	void removed(unsigned k, uint32_t id) { p_[k].removed(id); }
	uint32_t victim(unsigned k, uint32_t in, uint64_t size) { return p_[k].victim(in, size); }
	bool admit(unsigned k, uint32_t in, uint32_t v) { return p_[k].admit(in, v); }

private:
	std::vector<P> p_;
};

// A lane policy that can start a lane from another's state: fork(from, to) gives lane `to`
// what lane `from` has now, as if it had made every call `from` got (replay_lanes() has not
// called it for `to` yet).
template <class L>
concept ForkingLanes = LanePolicy<L> && requires(L l, unsigned k) { l.fork(k, k); };

// SimConfig::vram is ignored (each lane has its own); SimConfig::placements needs one lane.
// kLanes, when not 0, is vram.size() known at compile time (one run: no lane loops left).
//
// With a ForkingLanes policy, the larger lanes follow the smallest one for as long as nothing
// has yet placed a buffer outside its VRAM's middle hole (Vram): until then each larger lane's
// run is the same with its addresses above that hole shifted, so only the smallest is
// replayed. Just before it places a buffer the middle hole cannot take (where it would evict,
// or a larger VRAM could choose another hole) or is cut, the next larger lane is built from it
// (Vram::grown(), fork()) and leads the rest from there. A size that never reaches that point
// costs nothing but the copy of its result.
template <LanePolicy L, unsigned kLanes = 0>
std::vector<SimResult> replay_lanes(const CompactTrace &t, const SimConfig &c,
                                    std::span<const uint64_t> vram)
{
	if (kLanes && vram.size() != kLanes)
		throw std::invalid_argument("replay: lane count differs from its compile-time count");
	const unsigned nl = kLanes ? kLanes : unsigned(vram.size());
	if (c.placements && nl != 1)
		throw std::invalid_argument("replay: placements are recorded for one VRAM size only");
	// Lane i is the run at vram[order[i]]: with forks the sizes ascend, and order[0, active)
	// are replayed while order[active, nl), larger, follow order[active - 1]. The lanes (and
	// the policy's) are kept in that order, so that no loop looks a lane up; the results go
	// back in the caller's.
	std::vector<unsigned> order(nl);
	for (unsigned k = 0; k < nl; k++)
		order[k] = k;
	if constexpr (ForkingLanes<L>)
		std::stable_sort(order.begin(), order.end(),
		                 [&](unsigned a, unsigned b) { return vram[a] < vram[b]; });
	std::vector<uint64_t> size(nl);
	for (unsigned i = 0; i < nl; i++)
		size[i] = vram[order[i]];
	L p(t, c, size);
	struct Lane {
		Vram vram;
		SimResult r;
		uint64_t used = 0;
		bool live = true, evicted_now = false;
	};
	std::vector<Lane> lanes;
	lanes.reserve(nl);
	for (uint64_t v : size) {
		lanes.push_back({Vram(v), {}});
		lanes.back().r.timeline.every = c.timeline_every;
	}
	const size_t n = t.size.size();
	// Per buffer its size, then where it is in each lane: one or two cache lines per event.
	constexpr uint64_t kAway = UINT64_MAX; // not in VRAM
	const size_t stride = nl + 1;
	std::vector<uint64_t> buf(n * stride, kAway);
	for (size_t i = 0; i < n; i++)
		buf[i * stride] = t.size[i];

	unsigned active = nl; // lanes [0, active) are replayed
	if constexpr (ForkingLanes<L>)
		active = nl ? 1 : 0;
	uint64_t followed = 0; // entries the followers were not replayed (SimConfig::followed)
	// The leader active - 1 is about to do what its followers might not: the next one takes
	// its state (nothing of this entry has touched the leader yet).
	auto lead_on = [&](size_t pos) {
		if constexpr (ForkingLanes<L>) {
			const unsigned from = active - 1, to = active;
			const Lane &a = lanes[from];
			Lane &b = lanes[to];
			const uint64_t delta = size[to] - size[from];
			b.vram = a.vram.grown(size[to]);
			for (size_t i = 0; i < n; i++) {
				uint64_t *const s = &buf[i * stride];
				s[1 + to] = s[1 + from] == kAway ? kAway : a.vram.grown_addr(s[1 + from], delta);
			}
			b.r = a.r;
			b.used = a.used;
			b.live = a.live;
			b.evicted_now = a.evicted_now;
			p.fork(from, to);
			followed += pos;
			active++;
		}
	};
	auto leads = [&](unsigned k) {
		if constexpr (ForkingLanes<L>)
			return active < nl && active - 1 == k;
		return false;
	};
	// The replayed lanes: without forks all, in the caller's order (nl is a constant with
	// kLanes, and the loops unroll)
	auto replayed = [&] {
		if constexpr (ForkingLanes<L>)
			return active;
		return nl;
	};

	bool evicted_any = false; // some lane evicted during this entry
	auto evict = [&](unsigned k, uint32_t v) {
		Lane &l = lanes[k];
		const uint64_t b = buf[v * stride];
		uint64_t &addr = buf[v * stride + 1 + k];
		l.r.cost += cost::move(b);
		l.r.evictions++;
		l.r.evicted_bytes += b;
		l.vram.release(addr, b);
		l.used -= b;
		addr = kAway;
		p.removed(k, v);
		l.evicted_now = true;
		evicted_any = true;
	};
	// A move-in is admitted or declined once, against the first victim, before anything is
	// evicted: a declined access costs no eviction.
	auto move_in = [&](unsigned k, uint32_t id, uint64_t b, size_t pos) {
		Lane &l = lanes[k];
		if (leads(k) && b >= l.vram.mid_size())
			lead_on(pos);
		for (bool asked = false; !l.vram.fits(b); asked = true) {
			const uint32_t v = p.victim(k, id, b);
			if (v == kNoBuffer)
				throw std::logic_error("policy found no victim while VRAM is not empty");
			if (!asked && !p.admit(k, id, v)) {
				l.r.declined++;
				return false;
			}
			evict(k, v);
		}
		uint64_t &addr = buf[id * stride + 1 + k];
		addr = l.vram.place(b, c.minmax && b >= c.threshold);
		l.used += b;
		l.r.moves_in++;
		p.inserted(k, id, addr);
		if (c.placements)
			c.placements->push_back({id, addr});
		return true;
	};
	auto check = [&](unsigned k, size_t pos) {
		const Lane &l = lanes[k];
		if (const char *err = l.vram.check(); *err)
			throw std::logic_error("invariant broken at entry " + std::to_string(pos) + ": " + err);
		if (l.used + l.vram.free_bytes() != l.vram.size())
			throw std::logic_error("used + free != VRAM size at entry " + std::to_string(pos));
		std::vector<std::pair<uint64_t, uint64_t>> live;
		for (size_t i = 0; i < n; i++)
			if (buf[i * stride + 1 + k] != kAway && buf[i * stride])
				live.push_back({buf[i * stride + 1 + k], buf[i * stride]});
		std::sort(live.begin(), live.end());
		for (size_t i = 1; i < live.size(); i++)
			if (live[i - 1].first + live[i - 1].second > live[i].first)
				throw std::logic_error("overlapping buffers at entry " + std::to_string(pos));
	};

	// fragmentation as the thesis counted it: holes beyond the one a tidy VRAM has
	auto fragments = [](const Lane &l) { return l.vram.holes() ? l.vram.holes() - 1 : 0; };
	uint32_t frag_tick = 0;
	unsigned live = nl;
	const size_t nops = t.ops.size();
	// The lane loops below run over [0, active); a fork inside one adds the new leader
	// to the same loop.
	for (size_t pos = 0; pos < nops && live; pos++) {
		const uint32_t op = t.ops[pos];
		const uint32_t id = op & CompactTrace::kIdMask;
		uint64_t *const slot = &buf[id * stride];
		const uint64_t b = slot[0];
		switch (EventType(op >> CompactTrace::kTypeShift)) {
		case EventType::Create:
			for (unsigned k = 0; k < replayed(); k++) {
				if (lanes[k].live && b >= size[k]) { // this lane is cut here
					if (leads(k))
						lead_on(pos);
					lanes[k].live = false;
					lanes[k].r.cut = true;
					lanes[k].r.cut_at = id;
					lanes[k].r.entries = pos;
					live--;
				}
			}
			if (!live)
				continue;
			p.created(id, uint32_t(pos));
			for (unsigned k = 0; k < replayed(); k++) {
				Lane &l = lanes[k];
				if (!l.live)
					continue;
				if (b == 0) {
					slot[1 + k] = 0; // takes no space, always resident
					l.r.cost += cost::move(0);
				} else if (move_in(k, id, b, pos)) {
					l.r.cost += cost::move(b);
				} else {
					l.r.cost += cost::gpu_read_ram(b);
				}
			}
			break;
		case EventType::Read:
		case EventType::Write: {
			const bool w = (op >> CompactTrace::kTypeShift) == uint32_t(EventType::Write);
			p.gpu(id, uint32_t(pos), w);
			for (unsigned k = 0; k < replayed(); k++) {
				Lane &l = lanes[k];
				if (!l.live)
					continue;
				if (slot[1 + k] != kAway) {
					l.r.cost += cost::gpu_in_vram(b);
					if (b)
						p.touched(k, id);
				} else if (move_in(k, id, b, pos)) {
					l.r.cost += cost::move(b);
				} else {
					l.r.cost += w ? cost::gpu_write_ram(b) : cost::gpu_read_ram(b);
				}
			}
			break;
		}
		case EventType::Cpu:
			for (unsigned k = 0; k < replayed(); k++) {
				Lane &l = lanes[k];
				if (l.live)
					l.r.cost += slot[1 + k] != kAway ? cost::cpu_vram(b) : cost::cpu_ram(b);
			}
			p.cpu(id);
			break;
		case EventType::Destroy:
			for (unsigned k = 0; k < replayed(); k++) {
				Lane &l = lanes[k];
				if (!l.live)
					continue;
				if (slot[1 + k] != kAway && b) {
					l.vram.release(slot[1 + k], b);
					l.used -= b;
					p.removed(k, id);
				}
				slot[1 + k] = kAway;
			}
			break;
		default: break;
		}
		const bool sample = ++frag_tick == 10;
		if (sample)
			frag_tick = 0;
		// the per-lane bookkeeping of an entry, skipped when it has nothing to count
		if (!sample && !evicted_any && !c.timeline_every && !c.check_every)
			continue;
		evicted_any = false;
		for (unsigned i = 0; i < replayed(); i++) {
			Lane &l = lanes[i];
			if (!l.live)
				continue;
			l.r.eviction_events += l.evicted_now;
			if (c.timeline_every) [[unlikely]]
				l.r.timeline.add(fragments(l), l.evicted_now);
			l.evicted_now = false; // for the next entry
			if (sample) {
				const uint32_t f = fragments(l);
				l.r.frag_sum += f;
				l.r.frag_samples++;
				l.r.frag_peak = std::max(l.r.frag_peak, f);
			}
			if (c.check_every && pos % c.check_every == 0)
				check(i, pos);
		}
	}
	std::vector<SimResult> out(nl);
	for (unsigned i = 0; i < replayed(); i++) {
		Lane &l = lanes[i];
		l.r.timeline.finish();
		if (l.live)
			l.r.entries = nops;
		if (c.check_every)
			check(i, nops);
		out[order[i]] = std::move(l.r);
	}
	for (unsigned i = active; i < nl; i++) { // the followers' runs are their leader's
		out[order[i]] = out[order[active - 1]];
		followed += nops;
	}
	if (c.followed)
		*c.followed += followed;
	return out;
}

// One run of an eviction policy at SimConfig::vram.
template <EvictionPolicy P> SimResult replay(const CompactTrace &t, const SimConfig &c)
{
	return replay_lanes<EachLane<P>, 1>(t, c, std::span<const uint64_t>(&c.vram, 1))[0];
}

} // namespace vramlab
