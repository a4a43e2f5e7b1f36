#include "kmodel/kernel_model.h"
#include "kmodel/window_choice.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>

#include "kmodel/drm_mm.h"
#include "kmodel/clairvoyant.h"
#include "kmodel/evict_order.h"
#include "kmodel/move_threshold.h"
#include "kmodel/window_scan.h"

namespace vramlab {

uint64_t KernelResult::bytes_to_vram() const { return vram_in_from_gtt_bytes; }
uint64_t KernelResult::moves() const { return vram_in_from_gtt + mem[MemVram].moves_out; }

namespace {

constexpr uint64_t kPage = 4096;
constexpr uint8_t kNowhere = 255;           // not created, refused or destroyed
constexpr uint64_t kStampStart = 4096;      // RADEON_BO_SCORE_WINDOW_MAX
constexpr uint32_t kMaxPriority = 32;       // RADEON_CS_MAX_PRIORITY

struct Bo {
	uint64_t pages = 0, start = 0;
	uint64_t evict_key = 0;  // bo->evict_key
	uint64_t reserved_by = 0; // CS number holding its reservation
	uint64_t used_us = 0;     // time of the last submission that used it (window's cold rule)
	uint32_t cs_score = 0;
	uint8_t mem = kNowhere;
	uint8_t priority = kTtmPriorities - 1; // bo->priority (the variant)
};

struct Entry { // one radeon_bo_list entry
	uint32_t id, priority, score, pos;
	uint8_t preferred, allowed;
};

} // namespace

class KernelModel::Impl {
public:
	Impl(const KernelConfig &c, size_t bos) : c_(c), mm_(c.vram / kPage), bo_(bos),
	      order_(bos, c.bo_score, c.window, kStampStart, c.bo_priority),
	      threshold_(c.vram, c.budget, c.budget_mbps, c.budget_cap_ms),
	      guard_(c.guard_params, c.vram / kPage)
	{
		if (c.guard)
			guard_.grow(bos);
		if (c.future)
			next_use_.resize(bos);
		if ((c.window_oracle || c.admit_oracle) && !c.future)
			throw std::invalid_argument("the clairvoyant rules need the trace's future "
			                            "(simulate_kernel() gives it; a live model has none)");
		if (c.admit_oracle && !c.window_oracle)
			throw std::invalid_argument("clairvoyant admission needs the clairvoyant window");
		if (c.guard && (c.guard_params.count < 1 || c.guard_params.count > 255 ||
		                c.guard_params.within_ms < 1 || c.guard_params.within_ms > 60000 ||
		                c.guard_params.hold_ms < 1 || c.guard_params.hold_ms > 600000 ||
		                c.guard_params.cap_pct < 1 || c.guard_params.cap_pct > 90))
			throw std::invalid_argument("thrash guard: count 1..255, within 1..60000 ms, hold "
			                            "1..600000 ms, cap 1..90% of VRAM");
		if (c.bo_score && c.bo_priority)
			throw std::invalid_argument("bo_score and bo_priority exclude each other");
		if (c.stock == Stock::V6_14 && (c.bo_score || c.bo_priority))
			throw std::invalid_argument("bo_score needs the LRU moves 6.14 lost: "
			                            "lab_cs_end 0 or 2 (Stock::V6_12 or V6_14_Fixed)");
		if (c.window < 1 || c.window > 4096)
			throw std::invalid_argument("bo_score_window must be 1..4096");
		if (c.scan && (c.scan_max < 1 || c.scan_max > 65536))
			throw std::invalid_argument("scan_max must be 1..65536");
		if (c.budget && (c.budget_mbps < 1 || c.budget_mbps > 1000000 || c.budget_cap_ms < 1 ||
		                 c.budget_cap_ms > 10000))
			throw std::invalid_argument("move budget: MB/s must be 1..1000000, the cap 1..10000 ms");
		if (c_.per_frame)
			r_.per_frame.emplace_back();
		r_.timeline.every = c.timeline_every;
		// radeon_bo_create() + radeon_bo_pin() at init: kernel BOs, bottom-up best fit, then
		// off every LRU (ttm_bo_pin()); they count in the manager's usage
		for (uint64_t bytes : c_.pinned) {
			const uint64_t pages = (bytes + kPage - 1) / kPage;
			if (!pages || mm_.insert(pages, DrmMm::Mode::Best) == UINT64_MAX)
				throw std::invalid_argument("pinned kernel BOs do not fit in VRAM");
			used_ += pages;
		}
		r_.peak_vram_pages = used_;
	}

	void step() // after each operation
	{
		if (c_.check_every && ++ops_ % c_.check_every == 0)
			check();
	}
	void record() // after each operation but FRAME (the thesis model has no frames)
	{
		if (!c_.timeline_every) [[likely]]
			return;
		const uint64_t ev = r_.mem[MemVram].evictions;
		r_.timeline.add(mm_.holes() ? uint32_t(mm_.holes() - 1) : 0, ev != timeline_ev_);
		timeline_ev_ = ev;
	}
	void frame()
	{
		r_.frames++;
		if (c_.per_frame)
			r_.per_frame.emplace_back();
	}
	void cpu_map() { r_.cpu_maps++; } // see docs: a no-op with a full BAR
	void grow(uint32_t id)
	{
		if (id >= bo_.size()) [[unlikely]] {
			const size_t n = std::max<size_t>(size_t(id) + 1, bo_.size() * 2);
			bo_.resize(n);
			order_.grow(n);
			if (c_.guard)
				guard_.grow(n);
			if (c_.future)
				next_use_.resize(n);
		}
	}
	const KernelResult &result()
	{
		if (c_.check_every)
			check();
		finish();
		r_.timeline.finish();
		return r_;
	}
	const KernelResult &running()
	{
		derive();
		return r_;
	}

private:
	// ---- placement: radeon_ttm_placement_from_domain() + radeon_bo_vram_place_flags()
	bool topdown(uint32_t id) const
	{
		return c_.topdown_kib && bo_[id].pages * kPage > uint64_t(c_.topdown_kib) * 1024;
	}

	// ---- the VRAM manager's eviction order (ttm_resource.c with the series)
	uint64_t lru_key(uint32_t id) const
	{
		return c_.bo_priority ? bo_[id].priority : c_.bo_score ? bo_[id].evict_key : 0;
	}
	void lru_add(uint32_t id) { order_.add(id, lru_key(id)); }
	void lru_del(uint32_t id) { order_.del(id); }
	void lru_tail(uint32_t id) // ttm_bo_move_to_lru_tail()
	{
		if (bo_[id].mem == MemVram)
			order_.to_tail(id, lru_key(id));
	}

	bool vram_alloc(uint32_t id)
	{
		Bo &b = bo_[id];
		const uint64_t at =
		        mm_.insert(b.pages, topdown(id) ? DrmMm::Mode::High : DrmMm::Mode::Best);
		if (at == UINT64_MAX)
			return false;
		b.start = at;
		used_ += b.pages;
		r_.peak_vram_pages = std::max(r_.peak_vram_pages, used_);
		return true;
	}
	void vram_free(uint32_t id)
	{
		mm_.remove(bo_[id].start, bo_[id].pages);
		used_ -= bo_[id].pages;
		lru_del(id);
	}

	// radeon_bo_move() + radeon_bo_move_account(): every move adds to num_bytes_moved
	void account(uint32_t id, uint8_t from, uint8_t to, bool evict)
	{
		const uint64_t bytes = bo_[id].pages * kPage;
		bytes_moved_ += bytes;
		if (evict) {
			r_.mem[from].evictions++;
			r_.mem[from].evicted_bytes += bytes;
		}
		r_.mem[from].moves_out++;
		r_.mem[from].bytes_out += bytes;
		r_.mem[to].moves_in++;
		r_.mem[to].bytes_in += bytes;
		if ((from == MemGtt && to == MemVram) || (from == MemVram && to == MemGtt)) {
			if (to == MemVram) {
				r_.vram_in_from_gtt++;
				r_.vram_in_from_gtt_bytes += bytes;
			}
			if (c_.per_frame) {
				r_.per_frame.back().moves++;
				r_.per_frame.back().bytes += bytes;
			}
		}
	}

	// Moves id into a new resource of type `to` (ttm_bo_handle_move_mem()).
	void move_to(uint32_t id, uint8_t to, bool evict)
	{
		Bo &b = bo_[id];
		const uint8_t from = b.mem == kNowhere ? uint8_t(MemSystem) : b.mem;
		if (from == MemVram)
			vram_free(id);
		b.mem = to;
		if (to == MemVram)
			lru_add(id); // ttm_resource_init() puts it at the tail
		account(id, from, to, evict);
	}

	// Whether the walk and the scans may not touch v: this submission holds it reserved, or
	// the thrash guard keeps it resident.
	bool stays(uint32_t v) const
	{
		return (cs_no_ && bo_[v].reserved_by == cs_no_) || (c_.guard && guard_.guarded(v));
	}

	// ttm_bo_evict_alloc(): with the series, nothing is evicted for a BO larger than VRAM
	// (ttm_range_man_alloc() says -E2BIG); with window eviction the scan chooses first; then
	// TTM's walk: the VRAM manager in eviction order, skipping the BOs this submission holds
	// reserved, evicting one at a time (to GTT: radeon_evict_flags() with a ready copy ring)
	// until the allocation succeeds.
	bool evict_alloc(uint32_t id)
	{
		r_.evict_allocs++;
		if (bo_[id].pages > mm_.size()) {
			r_.evict_allocs_too_big++;
			if (!c_.flush_for_impossible) {
				r_.impossible_noevict++;
				return false;
			}
		}
		if (c_.guard)
			guard_.expire(now_us_);
		if (c_.window_oracle)
			return oracle_evict(id);
		if (c_.scan) {
			switch (evict_window(id)) {
			case Scan::Fit: return true;
			case Scan::NoFit: return false;
			case Scan::Bounded: break;
			}
		}
		return order_.walk([&](uint32_t v) {
			if (stays(v))
				return false;
			evict(v);
			return vram_alloc(id);
		});
	}
	void evict(uint32_t v)
	{
		if (c_.guard)
			guard_.evicted(v, now_us_);
		move_to(v, MemGtt, true);
	}

	// The range manager's evict_window (drm_mm_scan_init_with_range() over VRAM in the BO's
	// mode, drm_mm_scan_add_block() per candidate, window_scan.h): the first span of
	// candidates and free space that holds the BO is where the window lies. Pinned BOs are not
	// on the LRU and the submission's own reserved BOs cannot be locked: both stay where they
	// are, obstacles. The walk would evict every scanned candidate and allocate in the same
	// place (no hole fits before the last one: it is the only span that does); the window
	// evicts only the candidates overlapping it, and with cold_ms the scanned ones idle that
	// long. With idle_ms a first scan takes only candidates idle that long (the others are
	// obstacles, and count toward the bound), and a second all of them if it finds no window.
	enum class Scan { Fit, NoFit, Bounded };
	struct Hit {
		uint64_t at = UINT64_MAX, l = 0, r = 0;
		bool bounded = false;
	};
	Hit scan_pass(uint32_t id, bool idle_only)
	{
		const uint64_t size = bo_[id].pages;
		const bool high = topdown(id);
		const uint64_t idle_us = uint64_t(c_.idle_ms) * 1000;
		scanned_.clear();
		scan_.begin(mm_.size());
		Hit h;
		uint32_t visited = 0;
		order_.walk([&](uint32_t v) {
			// every LRU entry the scan visits counts toward the bound, obstacles too
			// (ttm_range_man_eviction_window(): the bound bounds the time under the locks)
			if (visited++ == c_.scan_max) {
				h.bounded = true;
				return true;
			}
			if (stays(v) || (idle_only && now_us_ - bo_[v].used_us < idle_us))
				return false;
			scanned_.push_back(v);
			const WindowScan::Span s = scan_.add(bo_[v].start, bo_[v].pages, mm_);
			if (s.r - s.l < size)
				return false;
			h = {high ? s.r - size : s.l, s.l, s.r, false};
			return true;
		});
		return h;
	}
	Scan evict_window(uint32_t id)
	{
		const uint64_t size = bo_[id].pages;
		Hit h;
		if (c_.idle_ms != UINT32_MAX) {
			h = scan_pass(id, true);
			if (h.at != UINT64_MAX)
				r_.window_idle++;
		}
		if (h.at == UINT64_MAX)
			h = scan_pass(id, false);
		if (h.at == UINT64_MAX) {
			if (h.bounded) {
				r_.window_fallbacks++;
				return Scan::Bounded;
			}
			r_.window_nofit++;
			return Scan::NoFit;
		}
		r_.windows++;
		if (c_.window_weigh) { // the lightest window of that span instead of its first
			weigh_.clear();
			for (uint32_t i = 0; i < scanned_.size(); i++) {
				const Bo &b = bo_[scanned_[i]];
				if (b.start >= h.l && b.start < h.r)
					weigh_.push_back({b.start, b.pages, i});
			}
			h.at = lightest_window(h.l, h.r, size, weigh_, topdown(id), c_.window_ends);
		}
		for (uint32_t v : scanned_) {
			const Bo &b = bo_[v];
			if (b.start < h.at + size && b.start + b.pages > h.at)
				evict(v);
			else if (c_.cold_ms != UINT32_MAX &&
			         now_us_ - b.used_us >= uint64_t(c_.cold_ms) * 1000) {
				r_.window_cold++;
				evict(v);
			} else {
				r_.window_saved_pages += b.pages;
			}
		}
		place_at(id, h.at);
		return Scan::Fit;
	}
	void place_at(uint32_t id, uint64_t at)
	{
		Bo &b = bo_[id];
		if (!mm_.insert_at(at, b.pages))
			throw std::logic_error("kernel model: the window does not hold the BO");
		b.start = at;
		used_ += b.pages;
		r_.peak_vram_pages = std::max(r_.peak_vram_pages, used_);
	}

	// The clairvoyant window (clairvoyant.h): window eviction's scan with every evictable BO
	// as a candidate, in Belady's order (next used last first, then LRU order) instead of
	// the walk's, unbounded; with admit_oracle, the BO stays in GTT when it is needed later
	// than every victim (a refusal here is one: radeon's callers then validate with GTT
	// allowed, a create retries with GTT added, a CS entry asks again with its allowed
	// domains).
	bool oracle_evict(uint32_t id)
	{
		belady_.clear();
		uint32_t rank = 0;
		order_.walk([&](uint32_t v) {
			if (!stays(v))
				belady_.push_back({next_use_[v], rank, v});
			rank++;
			return false;
		});
		std::sort(belady_.begin(), belady_.end(), belady_before);
		const uint64_t size = bo_[id].pages;
		const bool high = topdown(id);
		scan_.begin(mm_.size());
		scanned_.clear();
		uint64_t at = UINT64_MAX;
		for (const BeladyCandidate &c : belady_) {
			scanned_.push_back(c.id);
			const WindowScan::Span s = scan_.add(bo_[c.id].start, bo_[c.id].pages, mm_);
			if (s.r - s.l >= size) {
				at = high ? s.r - size : s.l;
				break;
			}
		}
		if (at == UINT64_MAX) {
			r_.window_nofit++;
			return false;
		}
		victims_.clear();
		uint64_t earliest = Future::kNever;
		for (uint32_t v : scanned_)
			if (bo_[v].start < at + size && bo_[v].start + bo_[v].pages > at) {
				victims_.push_back(v);
				earliest = std::min(earliest, next_use_[v]);
			}
		if (c_.admit_oracle && next_use_[id] > earliest) {
			r_.admit_bypasses++;
			return false;
		}
		r_.windows++;
		for (uint32_t v : victims_)
			evict(v);
		place_at(id, at);
		return true;
	}

	// ttm_bo_validate() for a placement list of VRAM and/or GTT (domain bits, v2 values).
	// Most BOs of a submission are where it wants them: that test stays inline.
	bool validate(uint32_t id, uint8_t domain)
	{
		const uint8_t m = bo_[id].mem; // ttm_resource_compatible()
		if ((m == MemVram && (domain & DomainVram)) || (m == MemGtt && (domain & DomainGtt)))
			return true;
		return move_for_validate(id, domain);
	}
	[[gnu::noinline]] bool move_for_validate(uint32_t id, uint8_t domain)
	{
		const bool want_vram = domain & DomainVram, want_gtt = domain & DomainGtt;
		for (int force_space = 0; force_space < 2; force_space++) { // ttm_bo_alloc_resource()
			if (want_vram && (vram_alloc(id) || (force_space && evict_alloc(id)))) {
				place_in_vram(id);
				return true;
			}
			if (want_gtt) {
				move_to(id, MemGtt, false);
				return true;
			}
		}
		return false; // -ENOMEM
	}
	// The node is allocated; now the move (the old resource is freed after the new one).
	void place_in_vram(uint32_t id)
	{
		Bo &b = bo_[id];
		const uint8_t from = b.mem == kNowhere ? uint8_t(MemSystem) : b.mem;
		b.mem = MemVram;
		lru_add(id);
		account(id, from, MemVram, false);
		if (c_.guard && from == MemGtt) [[unlikely]]
			guard_.returned(id, b.pages, now_us_);
	}

public:
	// radeon_gem_object_create(): radeon_bo_create() in the domain asked for, and once more
	// with GTT added if that was VRAM alone and failed.
	bool create(uint32_t id, uint64_t size, uint8_t asked)
	{
		grow(id);
		Bo &b = bo_[id];
		b.pages = (size + kPage - 1) / kPage;
		if (b.pages == 0) { // drm_vma_offset_add() of 0 pages fails: -ENOSPC
			r_.creates_refused++;
			return false;
		}
		b.evict_key = c_.bo_score ? stamp_ : 0; // radeon_bo_create(): used now, no score
		b.priority = kTtmPriorities - 1;
		if (c_.future)
			next_use_[id] = id < c_.future->first_use.size() ? c_.future->first_use[id]
			                                                 : Future::kNever;
		const uint8_t domain = asked & (DomainVram | DomainGtt); // checked at load
		bool ok = validate(id, domain);
		if (!ok && domain == DomainVram)
			ok = validate(id, DomainVram | DomainGtt);
		if (!ok) {
			r_.creates_refused++;
			return false;
		}
		r_.creates++;
		lru_tail(id); // ttm_bo_unreserve()
		return true;
	}

	void destroy(uint32_t id)
	{
		if (id >= bo_.size())
			return; // never created
		Bo &b = bo_[id];
		if (b.mem == kNowhere)
			return; // its create was refused
		if (b.mem == MemVram)
			vram_free(id);
		if (c_.guard)
			guard_.gone(id);
		b.mem = kNowhere;
		r_.destroys++;
	}

	// radeon_cs_parser_relocs() + radeon_bo_list_validate() + radeon_cs_parser_fini()
	void submit(const CsReloc *relocs, uint32_t n, bool scores, uint64_t time_us)
	{
		now_us_ = time_us;
		entries_.clear();
		if (c_.future) [[unlikely]] { // the clairvoyant rules: each named BO's next use after this one
			const uint64_t base = relocs_seen_;
			relocs_seen_ += n;
			if (relocs_seen_ > c_.future->reloc_next.size())
				throw std::logic_error("kernel model: more relocations than the future knows");
			for (uint32_t i = 0; i < n; i++)
				if (relocs[i].id < bo_.size())
					next_use_[relocs[i].id] = c_.future->reloc_next[base + i];
		}
		bool in_order = true; // most lists are (one priority, or few buffers)
		for (uint32_t i = 0; i < n; i++) {
			const CsReloc &rl = relocs[i];
			if (rl.id >= bo_.size() || bo_[rl.id].mem == kNowhere) { // lookup fails: -ENOENT
				r_.cs_rejected++;
				return;
			}
			const uint8_t domain = rl.write_domain ? rl.write_domain : rl.read_domains;
			if (domain & DomainCpu) { // -EINVAL
				r_.cs_rejected++;
				return;
			}
			Entry e;
			e.id = rl.id;
			e.priority = std::min<uint32_t>(rl.prio * 2u + (rl.write_domain ? 1 : 0), kMaxPriority);
			e.score = scores ? rl.score : kScoreNeutral;
			e.preferred = domain;
			e.allowed = domain == DomainVram ? (DomainVram | DomainGtt) : domain;
			in_order &= entries_.empty() || entries_.back().priority >= e.priority;
			entries_.push_back(e);
		}
		// radeon_cs_buckets_get_list(): highest priority first, reloc order within one
		if (!in_order)
			bucket_sort(entries_);
		// ttm_eu_reserve_buffers(): a BO named twice is reserved once; the later entries go to
		// the duplicates list (only their score counts: radeon_bo_list_note_scores())
		cs_no_++;
		head_.clear();
		dups_.clear();
		for (const Entry &e : entries_) {
			if (bo_[e.id].reserved_by == cs_no_)
				dups_.push_back(e);
			else {
				bo_[e.id].reserved_by = cs_no_;
				head_.push_back(e);
			}
		}
		// 6.12 validates the reserved list (duplicates went to their own list); 6.14-7.2's
		// radeon_bo_list_validate() walks every entry, a BO named twice validated twice; the
		// duplicate fix takes drm_exec's -EALREADY entries off the list again
		const std::vector<Entry> &val = c_.stock == Stock::V6_14 ? entries_ : head_;
		const uint64_t threshold = threshold_.threshold(used_ * kPage, now_us_);
		bytes_moved_ = 0;
		bool kept = false;
		for (const Entry &e : val) {
			uint8_t domain = e.preferred;
			const uint8_t m = bo_[e.id].mem;
			const uint8_t current = m == MemVram ? DomainVram : m == MemGtt ? DomainGtt : DomainCpu;
			if ((e.allowed & current) && !(domain & current) &&
			    threshold_.over(bytes_moved_, threshold)) {
				domain = current;
				kept = true;
				r_.threshold_bos++;
			}
			if (!validate(e.id, domain) && (domain == e.allowed || !validate(e.id, e.allowed))) {
				// 6.12: ttm_eu_backoff_reservation() moves each to the tail; 6.14-7.2,
				// fixed or not: drm_exec_fini() only unlocks (cannot happen with an
				// unbounded GTT)
				if (c_.stock == Stock::V6_12)
					for (const Entry &h : head_)
						lru_tail(h.id);
				cs_no_++;
				r_.cs_rejected++;
				return;
			}
		}
		r_.threshold_cs += kept;
		threshold_.debit(bytes_moved_); // the budget: every byte this submission moved
		// One pass: the scores (radeon_bo_list_note_scores()) and where the GPU finds each BO
		for (uint32_t i = 0; i < head_.size(); i++) {
			Bo &b = bo_[head_[i].id];
			b.cs_score = head_[i].score;
			b.used_us = now_us_;
			if (b.mem == MemGtt) {
				r_.gtt_accesses++;
				r_.gtt_access_bytes += b.pages * kPage;
				if (c_.per_frame) {
					r_.per_frame.back().gtt_accesses++;
					r_.per_frame.back().gtt_access_bytes += b.pages * kPage;
				}
			}
		}
		for (const Entry &e : dups_)
			bo_[e.id].cs_score = std::max(bo_[e.id].cs_score, e.score);
		// The tail moves: 6.12's ttm_eu_fence_buffer_objects() and the fixes' fence loop over
		// the reserved list (duplicates taken off); stock 6.14-7.2 none (drm_exec_fini() only
		// unlocks)
		if (c_.stock != Stock::V6_14)
			tail_moves(head_);
		cs_no_++; // reservations dropped
		r_.cs++;
	}

private:
	// radeon_cs_parser_fini()'s list_sort() (smallest first, stable: (pages, position) words
	// sort without allocating or touching a BO), then each BO's key or priority and its move
	// to the LRU tail in that order
	void tail_moves(const std::vector<Entry> &moved)
	{
		size_key_.clear();
		bool sorted = true;
		for (uint32_t i = 0; i < moved.size(); i++) {
			size_key_.push_back(bo_[moved[i].id].pages << 20 | i);
			sorted &= i == 0 || size_key_[i - 1] < size_key_[i];
		}
		if (!sorted) { // the keys are distinct: any sort gives the stable order
			if (size_key_.size() <= 32) { // a submission's usual few BOs
				for (size_t i = 1; i < size_key_.size(); i++) {
					const uint64_t k = size_key_[i];
					size_t j = i;
					for (; j && size_key_[j - 1] > k; j--)
						size_key_[j] = size_key_[j - 1];
					size_key_[j] = k;
				}
			} else {
				std::sort(size_key_.begin(), size_key_.end());
			}
		}
		auto id_at = [&](size_t i) { return moved[size_key_[i] & 0xfffff].id; };
		if (c_.bo_score) {
			stamp_++;
			order_.advance(stamp_);
			for (size_t i = 0; i < moved.size(); i++) {
				Bo &b = bo_[id_at(i)];
				b.evict_key = radeon_evict_key(stamp_, b.cs_score, c_.window);
			}
		}
		if (c_.bo_priority)
			for (size_t i = 0; i < moved.size(); i++)
				bo_[id_at(i)].priority = uint8_t(radeon_bo_priority(bo_[id_at(i)].cs_score));
		for (size_t i = 0; i < moved.size(); i++)
			lru_tail(id_at(i));
	}

	// radeon_cs_buckets_get_list(): a counting sort, highest priority first, stable
	void bucket_sort(std::vector<Entry> &v) // callers skip a list already in order
	{
		uint32_t start[kMaxPriority + 2] = {};
		for (const Entry &e : v)
			start[kMaxPriority - e.priority + 1]++;
		for (uint32_t p = 1; p <= kMaxPriority + 1; p++)
			start[p] += start[p - 1];
		sort_tmp_.resize(v.size());
		for (const Entry &e : v)
			sort_tmp_[start[kMaxPriority - e.priority]++] = e;
		v.swap(sort_tmp_);
	}

	void finish()
	{
		r_.stamp = stamp_;
		uint64_t h = 0xcbf29ce484222325ull;
		auto mix = [&h](uint64_t v) {
			for (int i = 0; i < 8; i++) {
				h ^= (v >> (8 * i)) & 0xff;
				h *= 0x100000001b3ull;
			}
		};
		for (uint32_t id = 0; id < bo_.size(); id++)
			if (bo_[id].mem != kNowhere) {
				mix(id);
				mix(bo_[id].mem);
				mix(bo_[id].mem == MemVram ? bo_[id].start : 0);
			}
		r_.digest = h;
		derive();
	}

	// The transfer time of the counters so far (cheap: no walk over the BOs).
	void derive()
	{
		r_.guards = guard_.guards;
		r_.guard_refusals = guard_.cap_refusals;
		const KernelCounters &v = r_.mem[MemVram];
		const uint64_t moved = r_.vram_in_from_gtt_bytes + v.bytes_out;
		r_.transfer_us = transfer_time_us(moved, r_.moves(), r_.gtt_access_bytes, c_.pcie_gbps, c_);
		// the same terms per frame: the frames' times add up to the run's
		for (KernelFrame &f : r_.per_frame)
			f.transfer_us = transfer_time_us(f.bytes, f.moves, f.gtt_access_bytes, c_.pcie_gbps, c_);
	}

	void check()
	{
		if (const char *e = mm_.check(); *e)
			throw std::logic_error(std::string("drm_mm model: ") + e);
		if (mm_.free_pages() + used_ != mm_.size())
			throw std::logic_error("kernel model: used + free != VRAM");
		if (order_.size() != std::count_if(bo_.begin(), bo_.end(),
		                                   [](const Bo &b) { return b.mem == MemVram; }))
			throw std::logic_error("kernel model: eviction order out of step");
	}

	const KernelConfig c_;
	DrmMm mm_;
	std::vector<Bo> bo_;
	EvictOrder order_;
	std::vector<Entry> entries_, head_, dups_, sort_tmp_;
	std::vector<uint64_t> size_key_;
	KernelResult r_;
	uint64_t used_ = 0, stamp_ = kStampStart, cs_no_ = 0, bytes_moved_ = 0, ops_ = 0;
	uint64_t timeline_ev_ = 0; // VRAM evictions at the last timeline operation
	uint64_t now_us_ = 0;
	MoveThreshold threshold_;
	ThrashGuard guard_;
	WindowScan scan_;
	std::vector<uint32_t> scanned_; // window eviction's candidates, in scan order
	std::vector<WindowCandidate> weigh_; // window_weigh: the candidates in the hit span
	// The clairvoyant rules: when each BO is next used (clairvoyant.h), the candidates in
	// Belady's order, the victims, the relocations seen so far
	std::vector<uint64_t> next_use_; // per BO: the submission that names it next
	std::vector<BeladyCandidate> belady_;
	std::vector<uint32_t> victims_;
	uint64_t relocs_seen_ = 0;
};

KernelModel::KernelModel(const KernelConfig &c, size_t bos) : p_(std::make_unique<Impl>(c, bos)) {}
KernelModel::~KernelModel() = default;
KernelModel::KernelModel(KernelModel &&) noexcept = default;
KernelModel &KernelModel::operator=(KernelModel &&) noexcept = default;

bool KernelModel::create(uint32_t id, uint64_t size, uint8_t domain)
{
	const bool ok = p_->create(id, size, domain);
	p_->record();
	p_->step();
	return ok;
}
void KernelModel::submit(const CsReloc *relocs, uint32_t n, bool scores, uint64_t time_us)
{
	p_->submit(relocs, n, scores, time_us);
	p_->record();
	p_->step();
}
void KernelModel::cpu_map(uint32_t)
{
	p_->cpu_map();
	p_->record();
	p_->step();
}
void KernelModel::destroy(uint32_t id)
{
	p_->destroy(id);
	p_->record();
	p_->step();
}
void KernelModel::frame()
{
	p_->frame();
	p_->step();
}
const KernelResult &KernelModel::result() { return p_->result(); }
const KernelResult &KernelModel::running() { return p_->running(); }

KernelResult simulate_kernel(const KernelTrace &t, const KernelConfig &config)
{
	Future future;
	KernelConfig c = config;
	if (c.window_oracle || c.admit_oracle) {
		future = trace_future(t);
		c.future = &future;
	}
	KernelModel km(c, t.size.size());
	KernelModel::Impl &m = *km.p_; // what KernelModel's calls do, inlined
	const bool cs_us = t.cs_us.size() == t.cs.size();
	for (uint32_t op : t.ops) {
		const uint32_t arg = op & KernelTrace::kMask;
		switch (KernelTrace::Op(op >> KernelTrace::kShift)) {
		case KernelTrace::Create: m.create(arg, t.size[arg], t.domain[arg]); break;
		case KernelTrace::Cs: {
			const KernelCs &cs = t.cs[arg];
			m.submit(t.relocs.data() + cs.first, cs.n, cs.scores, cs_us ? t.cs_us[arg] : 0);
			break;
		}
		case KernelTrace::Cpu: m.cpu_map(); break;
		case KernelTrace::Destroy: m.destroy(arg); break;
		case KernelTrace::Frame:
			m.frame();
			m.step();
			continue; // FRAME is not recorded (the thesis model has no frames)
		}
		m.record();
		m.step();
	}
	return km.result();
}

} // namespace vramlab
