#include "reference/naive.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "kmodel/reuse.h"
#include "sim/cost.h"

namespace vramlab {

namespace {

constexpr uint64_t kAway = UINT64_MAX;

// ---- thesis model ----------------------------------------------------------------------------

// VRAM as the list of allocations; holes are whatever lies between them.
struct NaiveVram {
	uint64_t size;
	std::map<uint64_t, uint64_t> used; // addr -> bytes
	std::vector<std::pair<uint64_t, uint64_t>> holes() const
	{
		std::vector<std::pair<uint64_t, uint64_t>> h;
		uint64_t at = 0;
		for (auto [a, b] : used) {
			if (a > at)
				h.push_back({at, a - at});
			at = a + b;
		}
		if (at < size)
			h.push_back({at, size - at});
		return h;
	}
	bool fits(uint64_t b) const
	{
		for (auto [a, s] : holes())
			if (s > b)
				return true;
		return false;
	}
	uint64_t place(uint64_t b, bool top)
	{
		auto h = holes();
		if (top)
			std::reverse(h.begin(), h.end());
		for (auto [a, s] : h)
			if (s > b) {
				const uint64_t at = top ? a + s - b : a;
				used[at] = b;
				return at;
			}
		throw std::logic_error("naive: no hole");
	}
};

struct St {
	uint32_t reads = 0, writes = 0, cpu_ops = 0, last_read = 0, last_write = 0, last_cpu = 0,
	         last_gpu = 0, scored = 0;
};

} // namespace

SimResult naive_thesis(const CompactTrace &t, const SimConfig &c, const std::string &name)
{
	const bool minmax = name == "minmax" || name.rfind("minmax+", 0) == 0;
	const std::string policy = name == "minmax" ? "lru" : minmax ? name.substr(7) : name;
	const bool lru = policy == "lru", gdsf = policy == "gdsf",
	           score = policy == "score" || policy == "score-age", by_age = policy == "score-age";
	if (!lru && !gdsf && !score)
		throw std::invalid_argument("naive_thesis: no reference for " + policy);
	if (score && !c.mlp)
		throw std::invalid_argument("the score policy needs weights");
	const size_t n = t.size.size();
	NaiveVram vram{c.vram, {}};
	std::vector<uint64_t> addr(n, kAway), last_use(n, 0), key(n, 0);
	std::vector<uint32_t> freq(n, 0);
	std::vector<double> h(n, 0);
	std::vector<St> st(n);
	uint64_t clock = 0;
	uint32_t tick = 0;
	double inflation = 0;
	SimResult r;
	bool evicted_now = false;

	auto resident = [&](uint32_t i) { return addr[i] != kAway && t.size[i] > 0; };
	auto rank = [&](uint32_t id) {
		const St &s = st[id];
		BufferStats b;
		b.size = t.size[id];
		b.vram_size = c.vram;
		b.high_prio = t.prio[id];
		b.since_read = tick - s.last_read;
		b.since_write = tick - s.last_write;
		b.since_cpu = tick - s.last_cpu;
		b.reads = s.reads;
		b.writes = s.writes;
		b.cpu_ops = s.cpu_ops;
		return uint64_t(tick) * 10000 + c.mlp->score(b);
	};
	auto gdsf_value = [&](uint32_t id) {
		return inflation + double(freq[id]) * double(cost::move(t.size[id])) / double(t.size[id]);
	};
	auto on_insert = [&](uint32_t id) { // inserted or touched
		last_use[id] = ++clock;
		if (gdsf)
			h[id] = gdsf_value(id);
	};
	auto victim = [&] {
		uint32_t v = UINT32_MAX;
		for (uint32_t i = 0; i < n; i++) {
			if (!resident(i))
				continue;
			if (v == UINT32_MAX)
				v = i;
			else if (lru ? last_use[i] < last_use[v] : gdsf ? h[i] < h[v] : key[i] < key[v])
				v = i;
		}
		return v;
	};
	auto move_in = [&](uint32_t id, uint64_t b) {
		for (bool asked = false; !vram.fits(b); asked = true) {
			const uint32_t v = victim();
			if (v == UINT32_MAX)
				throw std::logic_error("naive: no victim");
			if (!asked && score && key[v] > key[id]) {
				r.declined++;
				return false;
			}
			r.cost += cost::move(t.size[v]);
			r.evictions++;
			r.evicted_bytes += t.size[v];
			vram.used.erase(addr[v]);
			addr[v] = kAway;
			if (gdsf)
				inflation = h[v];
			evicted_now = true;
		}
		const bool top = minmax && b >= c.threshold;
		addr[id] = vram.place(b, top);
		r.moves_in++;
		on_insert(id);
		if (c.placements)
			c.placements->push_back({id, addr[id]});
		return true;
	};

	uint32_t frag_tick = 0;
	for (uint32_t op : t.ops) {
		const uint32_t id = op & CompactTrace::kIdMask;
		const uint64_t b = t.size[id];
		evicted_now = false;
		switch (EventType(op >> CompactTrace::kTypeShift)) {
		case EventType::Create:
			if (b >= c.vram) {
				r.cut = true;
				r.cut_at = id;
				return r;
			}
			freq[id] = 1;
			if (score) {
				tick++;
				st[id] = St{};
				St &s = st[id];
				s.last_read = s.last_write = s.last_cpu = s.last_gpu = s.scored = tick;
				key[id] = rank(id);
			}
			if (b == 0) {
				addr[id] = 0;
				r.cost += cost::move(0);
			} else if (move_in(id, b)) {
				r.cost += cost::move(b);
			} else {
				r.cost += cost::gpu_read_ram(b);
			}
			break;
		case EventType::Read:
		case EventType::Write: {
			const bool w = EventType(op >> CompactTrace::kTypeShift) == EventType::Write;
			freq[id]++;
			if (score) {
				tick++;
				St &s = st[id];
				const bool refresh = tick - (by_age ? s.scored : s.last_gpu) > 600;
				(w ? s.writes : s.reads)++;
				(w ? s.last_write : s.last_read) = tick;
				s.last_gpu = tick;
				if (refresh) {
					key[id] = rank(id);
					s.scored = tick;
				}
			}
			if (addr[id] != kAway) {
				r.cost += cost::gpu_in_vram(b);
				if (b)
					on_insert(id);
			} else if (move_in(id, b)) {
				r.cost += cost::move(b);
			} else {
				r.cost += w ? cost::gpu_write_ram(b) : cost::gpu_read_ram(b);
			}
			break;
		}
		case EventType::Cpu:
			r.cost += addr[id] != kAway ? cost::cpu_vram(b) : cost::cpu_ram(b);
			st[id].cpu_ops++;
			st[id].last_cpu = tick;
			break;
		case EventType::Destroy:
			if (addr[id] != kAway && b)
				vram.used.erase(addr[id]);
			addr[id] = kAway;
			break;
		default: break;
		}
		r.entries++;
		r.eviction_events += evicted_now;
		if (++frag_tick == 10) {
			frag_tick = 0;
			const auto holes = vram.holes().size();
			const uint32_t f = holes ? uint32_t(holes - 1) : 0;
			r.frag_sum += f;
			r.frag_samples++;
			r.frag_peak = std::max(r.frag_peak, f);
		}
	}
	return r;
}

// ---- kernel model ----------------------------------------------------------------------------

namespace {

constexpr uint64_t kPage = 4096;
enum : uint8_t { None = 255 };

struct KHole {
	uint64_t start, pages, seq;
};

struct NaiveKernel {
	const KernelTrace &t;
	const KernelConfig &c;
	std::vector<KHole> holes; // by address
	uint64_t hole_seq = 0, lru_seq = 0, used = 0, stamp = 4096, bytes_moved = 0;
	uint64_t now = 0, last = 0; // the move budget's clock
	int64_t budget = 0;         // us of moves; negative: debt
	struct B {
		uint64_t pages = 0, start = 0, evict_key = 0, key = 0, seq = 0, used_us = 0;
		uint32_t cs_score = 0, prio = kTtmPriorities - 1;
		uint8_t mem = None;
		bool reserved = false;
		// the thrash guard: last eviction + 1 (0: none), quick returns in a row, guarded until
		uint64_t evicted_us = 0, until_us = 0;
		uint32_t events = 0;
	};
	uint64_t guarded_pages = 0;
	uint64_t next_cs = 0; // the clairvoyant rules: the first submission still to come
	uint64_t list_pages = UINT64_MAX; // the list's BOs that want VRAM (none: no list)
	std::vector<B> bo;
	std::vector<ReuseEstimate> reuse; // the predicted window: each BO's estimate, as reuse.h says
	bool may_decline = false;         // predicted admission may leave this BO in GTT
	KernelResult r;

	NaiveKernel(const KernelTrace &t_, const KernelConfig &c_)
	    : t(t_), c(c_), bo(t_.size.size()), reuse(t_.size.size())
	{
		if (c.vram / kPage)
			holes.push_back({0, c.vram / kPage, ++hole_seq});
	}

	void add_hole(uint64_t s, uint64_t p)
	{
		holes.push_back({s, p, ++hole_seq});
		std::sort(holes.begin(), holes.end(),
		          [](const KHole &a, const KHole &b) { return a.start < b.start; });
	}
	// placed from the top of VRAM (radeon.topdown_threshold)
	bool topdown(uint32_t id) const
	{
		return c.topdown_kib && bo[id].pages * kPage > uint64_t(c.topdown_kib) * 1024;
	}
	bool alloc(uint32_t id)
	{
		const uint64_t p = bo[id].pages;
		const bool high = topdown(id);
		int pick = -1;
		for (int i = 0; i < int(holes.size()); i++) {
			if (holes[i].pages < p)
				continue;
			if (pick < 0)
				pick = i;
			else if (high)
				pick = i; // the highest address that fits
			else if (holes[i].pages < holes[pick].pages ||
			         (holes[i].pages == holes[pick].pages && holes[i].seq > holes[pick].seq))
				pick = i;
		}
		if (pick < 0)
			return false;
		const KHole h = holes[pick];
		holes.erase(holes.begin() + pick);
		if (high) {
			bo[id].start = h.start + h.pages - p;
			if (h.pages > p)
				add_hole(h.start, h.pages - p);
		} else {
			bo[id].start = h.start;
			if (h.pages > p)
				add_hole(h.start + p, h.pages - p);
		}
		used += p;
		return true;
	}
	void free_vram(uint32_t id)
	{
		uint64_t s = bo[id].start, e = s + bo[id].pages;
		for (size_t i = 0; i < holes.size();) {
			if (holes[i].start + holes[i].pages == s) {
				s = holes[i].start;
				holes.erase(holes.begin() + i);
			} else if (holes[i].start == e) {
				e += holes[i].pages;
				holes.erase(holes.begin() + i);
			} else {
				i++;
			}
		}
		add_hole(s, e - s);
		used -= bo[id].pages;
	}
	void to_tail(uint32_t id)
	{
		bo[id].key = c.bo_priority ? bo[id].prio : c.bo_score ? bo[id].evict_key : 0;
		bo[id].seq = ++lru_seq;
	}
	void account(uint32_t id, uint8_t from, uint8_t to, bool evict)
	{
		const uint64_t bytes = bo[id].pages * kPage;
		bytes_moved += bytes;
		if (evict) {
			r.mem[from].evictions++;
			r.mem[from].evicted_bytes += bytes;
		}
		r.mem[from].moves_out++;
		r.mem[from].bytes_out += bytes;
		r.mem[to].moves_in++;
		r.mem[to].bytes_in += bytes;
		if (from == MemGtt && to == MemVram) {
			r.vram_in_from_gtt++;
			r.vram_in_from_gtt_bytes += bytes;
		}
	}
	void move(uint32_t id, uint8_t to, bool evict, bool allocated = false)
	{
		const uint8_t from = bo[id].mem == None ? uint8_t(MemSystem) : bo[id].mem;
		if (from == MemVram)
			free_vram(id);
		bo[id].mem = to;
		if (to == MemVram) {
			if (!allocated && !alloc(id))
				throw std::logic_error("naive: move without space");
			to_tail(id);
		}
		account(id, from, to, evict);
		if (c.guard && evict)
			bo[id].evicted_us = now + 1;
		if (c.guard && from == MemGtt && to == MemVram)
			returned(id);
	}
	// The thrash guard, rule by rule as thrash_guard.h states it
	void returned(uint32_t id)
	{
		B &b = bo[id];
		const ThrashGuardParams &g = c.guard_params;
		if (!b.evicted_us || now + 1 - b.evicted_us > g.within_ms * 1000ull) {
			b.events = 0;
			return;
		}
		b.events++;
		if (b.events < g.count || b.until_us)
			return;
		if (guarded_pages + b.pages > (c.vram / kPage) * g.cap_pct / 100) {
			r.guard_refusals++;
			return;
		}
		b.events = 0;
		b.until_us = now + g.hold_ms * 1000ull;
		guarded_pages += b.pages;
		r.guards++;
	}
	bool stays(uint32_t v) const { return bo[v].reserved || (c.guard && bo[v].until_us); }
	// The first submission from `from` on that names id, else the submissions before its
	// destroy, else never (the clairvoyant rules)
	uint64_t next_use(uint32_t id, uint64_t from) const
	{
		for (uint64_t k = from; k < t.cs.size(); k++)
			for (uint32_t i = 0; i < t.cs[k].n; i++)
				if (t.relocs[t.cs[k].first + i].id == id)
					return k;
		uint64_t cs_before = 0;
		for (uint32_t op : t.ops) {
			const uint32_t arg = op & KernelTrace::kMask;
			if (KernelTrace::Op(op >> KernelTrace::kShift) == KernelTrace::Cs)
				cs_before++;
			else if (KernelTrace::Op(op >> KernelTrace::kShift) == KernelTrace::Destroy &&
			         arg == id)
				return cs_before;
		}
		return UINT64_MAX;
	}
	std::vector<uint32_t> eviction_order()
	{
		std::vector<uint32_t> order;
		for (uint32_t i = 0; i < bo.size(); i++)
			if (bo[i].mem == MemVram)
				order.push_back(i);
		std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
			return bo[a].key != bo[b].key ? bo[a].key < bo[b].key : bo[a].seq < bo[b].seq;
		});
		return order;
	}
	bool evict_alloc(uint32_t id)
	{
		if (!c.flush_for_impossible && bo[id].pages > c.vram / kPage) {
			r.impossible_noevict++;
			return false;
		}
		if (c.guard)
			for (B &b : bo)
				if (b.until_us && now >= b.until_us) {
					b.until_us = 0;
					guarded_pages -= b.pages;
				}
		if (c.window_oracle)
			return belady(id);
		if (c.window_predict) {
			const int w = predicted(id);
			if (w >= 0)
				return w == 1;
		} else if (c.scan) {
			const int w = window(id);
			if (w >= 0)
				return w == 1;
		}
		for (uint32_t v : eviction_order()) {
			if (stays(v))
				continue;
			move(v, MemGtt, true);
			if (alloc(id))
				return true;
		}
		return false;
	}
	// The free stretch around removed.back() with every BO of `removed` gone: its window
	// (low end, or top for a top-down BO) if it holds `size` pages, else UINT64_MAX
	uint64_t stretch(const std::vector<uint32_t> &removed, uint64_t size, bool high) const
	{
		const uint64_t vram_pages = c.vram / kPage;
		std::vector<bool> busy(vram_pages, false);
		for (uint32_t i = 0; i < bo.size(); i++)
			if (bo[i].mem == MemVram &&
			    std::find(removed.begin(), removed.end(), i) == removed.end())
				for (uint64_t p = bo[i].start; p < bo[i].start + bo[i].pages; p++)
					busy[p] = true;
		uint64_t lo = bo[removed.back()].start, hi = lo + bo[removed.back()].pages;
		while (lo > 0 && !busy[lo - 1])
			lo--;
		while (hi < vram_pages && !busy[hi])
			hi++;
		return hi - lo >= size ? (high ? hi - size : lo) : UINT64_MAX;
	}
	// cand removed one by one (into `removed`) until the stretch around the last one holds
	// the BO: its window, else UINT64_MAX (the clairvoyant and the predicted window)
	uint64_t first_stretch(const std::vector<uint32_t> &cand, uint64_t size, bool high,
	                       std::vector<uint32_t> &removed) const
	{
		uint64_t hit = UINT64_MAX;
		for (size_t i = 0; i < cand.size() && hit == UINT64_MAX; i++) {
			removed.push_back(cand[i]);
			hit = stretch(removed, size, high);
		}
		return hit;
	}
	// A window found: its victims to GTT, the BO at `hit`
	void place_in_window(uint32_t id, uint64_t hit, const std::vector<uint32_t> &victims)
	{
		r.windows++;
		for (uint32_t v : victims)
			move(v, MemGtt, true);
		take(hit, bo[id].pages);
		bo[id].start = hit;
		used += bo[id].pages;
	}
	// The clairvoyant window: candidates in Belady's order (next used last first, then the
	// walk's order), removed one by one until the stretch around the last one holds the BO
	bool belady(uint32_t id)
	{
		const uint64_t size = bo[id].pages;
		const bool high = topdown(id);
		std::vector<uint32_t> order = eviction_order(), cand;
		for (uint32_t v : order)
			if (!stays(v))
				cand.push_back(v);
		auto rank = [&](uint32_t v) { return std::find(order.begin(), order.end(), v) - order.begin(); };
		std::stable_sort(cand.begin(), cand.end(), [&](uint32_t a, uint32_t b) {
			const uint64_t na = next_use(a, next_cs), nb = next_use(b, next_cs);
			return na != nb ? na > nb : rank(a) < rank(b);
		});
		std::vector<uint32_t> removed;
		const uint64_t hit = first_stretch(cand, size, high, removed);
		if (hit == UINT64_MAX) {
			r.window_nofit++;
			return false;
		}
		std::vector<uint32_t> victims;
		uint64_t earliest = UINT64_MAX;
		for (uint32_t v : removed)
			if (bo[v].start < hit + size && hit < bo[v].start + bo[v].pages) {
				victims.push_back(v);
				earliest = std::min(earliest, next_use(v, next_cs));
			}
		if (c.admit_oracle && next_use(id, next_cs) > earliest) {
			r.admit_bypasses++;
			return false;
		}
		place_in_window(id, hit, victims);
		return true;
	}

	// The predicted window: the first scan_max entries of the eviction order (obstacles
	// count), the evictable ones sorted by ReuseEstimate::victim_key() (latest first, ties in
	// the walk's order), removed one by one until the stretch around the last one holds the
	// BO; predicted admission as ReuseEstimate::bypass() states it. Everything from scratch at
	// every eviction. With predict_escalate above scan_max, a bounded scan that finds nothing
	// is done again from scratch with that bound. 1: placed, 0: nothing evicted, -1: the walk.
	int predicted(uint32_t id)
	{
		const uint64_t size = bo[id].pages;
		const bool high = topdown(id);
		const std::vector<uint32_t> order = eviction_order();
		size_t bound = c.scan_max;
	again:
		const size_t seen = std::min<size_t>(order.size(), bound);
		std::vector<uint32_t> cand;
		for (size_t i = 0; i < seen; i++)
			if (!stays(order[i]))
				cand.push_back(order[i]);
		const auto key = [&](uint32_t v) {
			return reuse[v].victim_key(r.cs, bo[v].pages, c.predict_size_exp2,
			                           c.predict_move_pages, c.predict_unused);
		};
		std::stable_sort(cand.begin(), cand.end(),
		                 [&](uint32_t a, uint32_t b) { return key(a) > key(b); });
		std::vector<uint32_t> removed;
		uint64_t hit = first_stretch(cand, size, high, removed);
		// the repack: nothing fitted with every LRU entry seen and some were the
		// submission's own; they join (all may live in GTT; the guarded stay), same order.
		// The fit test without pinned BOs: the naive models none (the differential test
		// pins nothing; WindowPredict.Repack* pins)
		if (c.predict_repack && hit == UINT64_MAX && order.size() <= bound &&
		    cand.size() < seen && list_pages <= c.vram / kPage) {
			std::vector<uint32_t> more;
			bool own_seen = false;
			for (size_t i = 0; i < seen; i++)
				if (!(c.guard && bo[order[i]].until_us)) {
					more.push_back(order[i]);
					own_seen |= bo[order[i]].reserved;
				}
			if (own_seen) {
				std::stable_sort(more.begin(), more.end(),
				                 [&](uint32_t a, uint32_t b) { return key(a) > key(b); });
				r.window_repack_scans++;
				removed.clear();
				hit = first_stretch(more, size, high, removed);
			}
		}
		if (hit == UINT64_MAX) {
			if (order.size() > bound && bound == c.scan_max &&
			    c.predict_escalate > c.scan_max) {
				r.window_escalations++;
				bound = c.predict_escalate;
				goto again;
			}
			if (order.size() > bound || (c.predict_nofit_walk && cand.size() < seen)) {
				r.window_fallbacks++;
				return -1;
			}
			r.window_nofit++;
			return 0;
		}
		std::vector<uint32_t> victims;
		uint64_t rate = 0, victim_pages = 0, own = 0;
		for (uint32_t v : removed)
			if (bo[v].start < hit + size && hit < bo[v].start + bo[v].pages) {
				victims.push_back(v);
				own += bo[v].reserved;
				rate += ReuseEstimate::rate(bo[v].pages, reuse[v].predicted_next(r.cs) - r.cs);
				victim_pages += bo[v].pages;
			}
		if (c.admit_predict && may_decline) {
			const uint32_t g = c.admit_gtt_permille ? c.admit_gtt_permille : gtt_read_permille(c);
			if (reuse[id].rate_test(r.cs, size, rate)) {
				r.admit_cost_tests++;
				ReuseEstimate::narrow_same_charges(
				        size, victim_pages, c.admit_reads,
				        ReuseEstimate::cost_test(size, victim_pages, g, c.admit_reads),
				        r.admit_same_from, r.admit_same_to);
			}
			if (reuse[id].bypass(r.cs, size, rate, victim_pages, g, c.admit_reads)) {
				r.admit_bypasses++;
				return 0;
			}
		}
		r.window_repacks += own;
		place_in_window(id, hit, victims);
		return 1;
	}

	// Window eviction written as "which prefix of the candidates, if it were gone, first
	// leaves a free stretch around its last member that holds the BO": the free stretches
	// with the prefix removed are recomputed from scratch for every prefix. 1: fitted in the
	// window, 0: no candidate set can make room (nothing evicted), -1: bound hit (the walk).
	int window(uint32_t id)
	{
		const uint64_t size = bo[id].pages, vram_pages = c.vram / kPage;
		const bool high = topdown(id);
		// a scan visits at most scan_max LRU entries, obstacles included; the candidates
		// are the entries among them it may evict
		const std::vector<uint32_t> order = eviction_order();
		const bool more = order.size() > c.scan_max; // an entry past the bound
		std::vector<uint32_t> cand;
		for (size_t i = 0; i < order.size() && i < c.scan_max; i++)
			if (!stays(order[i]))
				cand.push_back(order[i]);
		uint64_t hit = UINT64_MAX;
		size_t k = 0;
		if (c.idle_ms != UINT32_MAX) {
			// a first scan of the idle ones: the others are visited (and counted) but not
			// removed; the same "free stretch around the last one removed" test
			std::vector<uint32_t> idle;
			for (size_t i = 0; i < cand.size() && hit == UINT64_MAX; i++) {
				if (now - bo[cand[i]].used_us < c.idle_ms * 1000ull)
					continue;
				idle.push_back(cand[i]);
				hit = stretch(idle, size, high);
			}
			if (hit != UINT64_MAX) {
				r.window_idle++;
				cand = idle;
				k = idle.size();
			}
		}
		for (; hit == UINT64_MAX && k < cand.size(); k++) {
			std::vector<bool> busy(vram_pages, false);
			for (uint32_t i = 0; i < bo.size(); i++)
				if (bo[i].mem == MemVram &&
				    std::find(cand.begin(), cand.begin() + k + 1, i) == cand.begin() + k + 1)
					for (uint64_t p = bo[i].start; p < bo[i].start + bo[i].pages; p++)
						busy[p] = true;
			uint64_t lo = bo[cand[k]].start, hi = lo + bo[cand[k]].pages;
			while (lo > 0 && !busy[lo - 1])
				lo--;
			while (hi < vram_pages && !busy[hi])
				hi++;
			if (hi - lo >= size)
				hit = high ? hi - size : lo;
		}
		if (hit == UINT64_MAX) {
			if (more) {
				r.window_fallbacks++;
				return -1;
			}
			r.window_nofit++;
			return 0;
		}
		r.windows++;
		if (c.window_weigh) {
			// the lightest window of the same stretch, found the slow way: every start tried,
			// every scanned candidate weighed by pages x (rank + 1) where it overlaps
			const uint32_t last = cand[k - 1];
			uint64_t lo = bo[last].start, hi = lo + bo[last].pages;
			std::vector<bool> busy(vram_pages, false);
			for (uint32_t i = 0; i < bo.size(); i++)
				if (bo[i].mem == MemVram && std::find(cand.begin(), cand.begin() + k, i) ==
				                                    cand.begin() + k)
					for (uint64_t p = bo[i].start; p < bo[i].start + bo[i].pages; p++)
						busy[p] = true;
			while (lo > 0 && !busy[lo - 1])
				lo--;
			while (hi < vram_pages && !busy[hi])
				hi++;
			uint64_t best = hit, best_cost = UINT64_MAX;
			for (uint64_t s = lo; s + size <= hi; s += c.window_ends ? std::max<uint64_t>(1, hi - size - lo) : 1) {
				uint64_t w = 0;
				for (size_t i = 0; i < k; i++) {
					const uint32_t v = cand[i];
					if (bo[v].start < s + size && s < bo[v].start + bo[v].pages)
						w += bo[v].pages * (i + 1);
				}
				if (w < best_cost || (w == best_cost && high)) {
					best = s;
					best_cost = w;
				}
			}
			hit = best;
		}
		for (size_t i = 0; i < k; i++) {
			const uint32_t v = cand[i];
			const bool inside = bo[v].start < hit + size && hit < bo[v].start + bo[v].pages;
			const bool cold = c.cold_ms != UINT32_MAX && now - bo[v].used_us >= c.cold_ms * 1000ull;
			if (inside || cold) {
				r.window_cold += !inside;
				move(v, MemGtt, true);
			} else {
				r.window_saved_pages += bo[v].pages;
			}
		}
		take(hit, size);
		bo[id].start = hit;
		used += size;
		return 1;
	}
	// the node at `hit`: the hole holding it loses it, its parts are added below then above
	void take(uint64_t hit, uint64_t size)
	{
		for (size_t i = 0; i < holes.size(); i++)
			if (holes[i].start <= hit && hit + size <= holes[i].start + holes[i].pages) {
				const KHole h = holes[i];
				holes.erase(holes.begin() + i);
				if (h.start < hit)
					add_hole(h.start, hit - h.start);
				if (hit + size < h.start + h.pages)
					add_hole(hit + size, h.start + h.pages - hit - size);
				return;
			}
		throw std::logic_error("naive: the window is not free");
	}
	bool validate(uint32_t id, uint8_t domain)
	{
		const bool vram = domain & DomainVram, gtt = domain & DomainGtt;
		if ((bo[id].mem == MemVram && vram) || (bo[id].mem == MemGtt && gtt))
			return true;
		for (int force = 0; force < 2; force++) {
			if (vram && (alloc(id) || (force && evict_alloc(id)))) {
				move(id, MemVram, false, true);
				return true;
			}
			if (gtt) {
				move(id, MemGtt, false);
				return true;
			}
		}
		return false;
	}
	void create(uint32_t id)
	{
		list_pages = UINT64_MAX;
		bo[id].pages = (t.size[id] + kPage - 1) / kPage;
		if (!bo[id].pages) {
			r.creates_refused++;
			return;
		}
		bo[id].evict_key = c.bo_score ? stamp : 0;
		bo[id].prio = kTtmPriorities - 1;
		reuse[id].created(r.cs, c.reuse_tunables());
		const uint8_t d = t.domain[id] & (DomainVram | DomainGtt);
		may_decline = true; // a user BO: a refusal retries with GTT
		const bool ok = validate(id, d) || (d == DomainVram && validate(id, DomainVram | DomainGtt));
		may_decline = false;
		if (!ok) {
			r.creates_refused++;
			return;
		}
		r.creates++;
		if (bo[id].mem == MemVram)
			to_tail(id);
	}
	struct E {
		uint32_t id, prio, score;
		uint8_t pref, allowed;
	};
	void submit(const KernelCs &cs, uint64_t cs_time)
	{
		now = cs_time; // the clock moves for a refused submission too
		std::vector<E> list;
		for (uint32_t i = 0; i < cs.n; i++) {
			const CsReloc &rl = t.relocs[cs.first + i];
			const uint8_t d = rl.write_domain ? rl.write_domain : rl.read_domains;
			if (bo[rl.id].mem == None || (d & DomainCpu)) {
				r.cs_rejected++;
				return;
			}
			list.push_back({rl.id, std::min(rl.prio * 2u + (rl.write_domain ? 1u : 0u), 32u),
			                cs.scores ? rl.score : kScoreNeutral, d,
			                uint8_t(d == DomainVram ? DomainVram | DomainGtt : d)});
		}
		std::stable_sort(list.begin(), list.end(),
		                 [](const E &a, const E &b) { return a.prio > b.prio; });
		std::vector<E> head, dups;
		for (const E &e : list) {
			bool seen = false;
			for (const E &h : head)
				seen |= h.id == e.id;
			(seen ? dups : head).push_back(e);
		}
		list_pages = 0; // the repack's test: the list's BOs that want VRAM fit in it
		for (const E &e : head) {
			bo[e.id].reserved = true;
			list_pages += e.pref & DomainVram ? bo[e.id].pages : 0;
		}
		const uint64_t u = used * kPage, half = c.vram >> 1;
		uint64_t thr = std::max<uint64_t>(((u >= half ? 0 : half - u) >> 1), 1 << 20);
		if (c.budget) {
			// amdgpu's rule: all of the time accrues, then the sum is capped; a quarter of the
			// free VRAM when an eighth is free; bytes at the rate
			const int64_t cap = c.budget_cap_ms * 1000ll;
			const int64_t since = now > last ? int64_t(now - last) : 0;
			last = std::max(last, now);
			budget = std::min<int64_t>(budget + since, cap); // clamped every time
			const uint64_t free = c.vram > u ? c.vram - u : 0;
			if (free >= c.vram / 8)
				budget = std::max<int64_t>(budget, int64_t(free / 4 / c.budget_mbps));
			thr = budget > 0 ? uint64_t(budget) * c.budget_mbps : 0;
		}
		bytes_moved = 0;
		bool kept = false;
		// stock 6.14-7.2 validates every entry of the list, a BO named twice twice
		for (const E &e : c.stock == Stock::V6_14 ? list : head) {
			uint8_t d = e.pref;
			const uint8_t cur = bo[e.id].mem == MemVram ? DomainVram : DomainGtt;
			const bool over = c.budget ? bytes_moved >= thr : bytes_moved > thr;
			if ((e.allowed & cur) && !(d & cur) && over) {
				d = cur;
				kept = true;
				r.threshold_bos++;
			}
			may_decline = e.allowed & DomainGtt;
			if (!validate(e.id, d) && (d == e.allowed || !validate(e.id, e.allowed)))
				throw std::logic_error("naive: validation failed");
			may_decline = false;
		}
		r.threshold_cs += kept;
		if (c.budget) { // debt bounded at an hour of moves
			const int64_t debt_max = 3600ll * 1000 * 1000;
			budget -= std::min<int64_t>(int64_t(bytes_moved / c.budget_mbps), debt_max);
			if (budget < -debt_max)
				budget = -debt_max;
		}
		for (const E &e : head) {
			bo[e.id].cs_score = e.score;
			bo[e.id].used_us = now;
			reuse[e.id].used(r.cs);
		}
		for (const E &e : dups)
			bo[e.id].cs_score = std::max(bo[e.id].cs_score, e.score);
		for (const E &e : head)
			if (bo[e.id].mem == MemGtt) {
				r.gtt_accesses++;
				r.gtt_access_bytes += bo[e.id].pages * kPage;
			}
		// the tail moves: 6.12 and the fixes over the reserved list, stock 6.14-7.2 none;
		// smallest first
		std::vector<E> tail = c.stock == Stock::V6_14 ? std::vector<E>{} : head;
		std::stable_sort(tail.begin(), tail.end(),
		                 [&](const E &a, const E &b) { return bo[a.id].pages < bo[b.id].pages; });
		for (const E &e : head)
			bo[e.id].reserved = false;
		if (c.bo_score) {
			stamp++;
			for (const E &e : tail)
				bo[e.id].evict_key = radeon_evict_key(stamp, bo[e.id].cs_score, c.window);
		}
		if (c.bo_priority)
			for (const E &e : tail)
				bo[e.id].prio = radeon_bo_priority(bo[e.id].cs_score);
		for (const E &e : tail)
			if (bo[e.id].mem == MemVram)
				to_tail(e.id);
		r.cs++;
	}
	KernelResult run()
	{
		for (uint32_t op : t.ops) {
			const uint32_t arg = op & KernelTrace::kMask;
			switch (KernelTrace::Op(op >> KernelTrace::kShift)) {
			case KernelTrace::Create: create(arg); break;
			case KernelTrace::Cs:
				next_cs = uint64_t(arg) + 1;
				submit(t.cs[arg], t.cs_us.size() == t.cs.size() ? t.cs_us[arg] : 0);
				break;
			case KernelTrace::Cpu: r.cpu_maps++; break;
			case KernelTrace::Destroy:
				if (bo[arg].mem != None) {
					if (bo[arg].mem == MemVram)
						free_vram(arg);
					if (bo[arg].until_us)
						guarded_pages -= bo[arg].pages;
					bo[arg].evicted_us = bo[arg].until_us = bo[arg].events = 0;
					bo[arg].mem = None;
					r.destroys++;
				}
				break;
			case KernelTrace::Frame: r.frames++; break;
			}
		}
		r.stamp = stamp;
		uint64_t hsh = 0xcbf29ce484222325ull;
		auto mix = [&hsh](uint64_t v) {
			for (int i = 0; i < 8; i++) {
				hsh ^= (v >> (8 * i)) & 0xff;
				hsh *= 0x100000001b3ull;
			}
		};
		for (uint32_t id = 0; id < bo.size(); id++)
			if (bo[id].mem != None) {
				mix(id);
				mix(bo[id].mem);
				mix(bo[id].mem == MemVram ? bo[id].start : 0);
			}
		r.digest = hsh;
		return r;
	}
};

} // namespace

KernelResult naive_kernel(const KernelTrace &t, const KernelConfig &c)
{
	return NaiveKernel(t, c).run();
}

// ---- random traces ---------------------------------------------------------------------------

namespace {

template <class Next> RandomTraces make_random(Next next, size_t max_events)
{
	RandomTraces out;
	CompactTrace &ct = out.thesis;
	KernelTrace &kt = out.kernel;
	ct.name = kt.name = "random";
	std::vector<uint32_t> live;
	uint64_t time_us = 0;
	static const uint64_t kSizes[] = {0, 1, 4096, 5000, 8192, 16384, 65536, 3 * 65536, 1 << 20};
	for (size_t i = 0; i < max_events; i++) {
		const uint32_t r = next();
		if (r == UINT32_MAX)
			break;
		const unsigned kind = r % 16;
		if (live.empty() || kind < 3) { // create
			const uint32_t id = uint32_t(ct.size.size());
			const uint64_t size = kSizes[(r >> 4) % 9] + ((r >> 8) % 3) * 4096;
			const uint8_t dom = (r >> 12) % 5 == 0   ? uint8_t(DomainGtt)
			                    : (r >> 12) % 5 == 1 ? uint8_t(DomainVram | DomainGtt)
			                                         : uint8_t(DomainVram);
			ct.size.push_back(size);
			ct.prio.push_back((r >> 16) & 1);
			ct.ops.push_back(CompactTrace::pack(EventType::Create, id));
			kt.size.push_back(size);
			kt.domain.push_back(dom);
			kt.prio.push_back((r >> 16) & 1);
			kt.ops.push_back(KernelTrace::pack(KernelTrace::Create, id));
			live.push_back(id);
			continue;
		}
		const uint32_t pick = live[(r >> 4) % live.size()];
		if (kind == 3) { // destroy
			ct.ops.push_back(CompactTrace::pack(EventType::Destroy, pick));
			kt.ops.push_back(KernelTrace::pack(KernelTrace::Destroy, pick));
			live.erase(std::find(live.begin(), live.end(), pick));
		} else if (kind == 4) {
			ct.ops.push_back(CompactTrace::pack(EventType::Cpu, pick));
			kt.ops.push_back(KernelTrace::pack(KernelTrace::Cpu, pick));
		} else { // a submission of 1..6 buffers
			KernelCs cs;
			cs.first = uint32_t(kt.relocs.size());
			cs.n = 1 + (r >> 8) % 6;
			cs.scores = (r >> 11) & 1;
			for (uint32_t k = 0; k < cs.n; k++) {
				const uint32_t q = k ? next() : r;
				const uint32_t id = k ? live[(q >> 3) % live.size()] : pick;
				CsReloc rl;
				rl.id = id;
				const bool w = (q >> 20) & 1;
				const uint8_t d = (q >> 21) % 6 == 0 ? uint8_t(DomainGtt) : uint8_t(DomainVram);
				rl.read_domains = w ? 0 : d;
				rl.write_domain = w ? d : 0;
				rl.prio = (q >> 24) % 4;
				rl.score = (q >> 26) % 4 == 0 ? kScoreNeutral : q * 2654435761u;
				kt.relocs.push_back(rl);
				ct.ops.push_back(CompactTrace::pack(w ? EventType::Write : EventType::Read, id));
			}
			kt.ops.push_back(KernelTrace::pack(KernelTrace::Cs, uint32_t(kt.cs.size())));
			kt.cs.push_back(cs);
			time_us += (r >> 28) * 250; // 0..3.75 ms apart: the move budget's clock
			kt.cs_us.push_back(time_us);
		}
	}
	kt.accesses = kt.relocs.size();
	return out;
}

} // namespace

RandomTraces random_traces(const uint8_t *bytes, size_t n)
{
	size_t at = 0;
	auto next = [&]() -> uint32_t {
		if (at + 4 > n)
			return UINT32_MAX;
		uint32_t v = bytes[at] | bytes[at + 1] << 8 | bytes[at + 2] << 16 |
		             uint32_t(bytes[at + 3]) << 24;
		at += 4;
		return v == UINT32_MAX ? v - 1 : v;
	};
	return make_random(next, n / 4);
}

RandomTraces random_traces(uint64_t seed, size_t events)
{
	std::mt19937 g{uint32_t(seed)};
	auto next = [&]() -> uint32_t {
		const uint32_t v = uint32_t(g());
		return v == UINT32_MAX ? v - 1 : v;
	};
	return make_random(next, events);
}

} // namespace vramlab
