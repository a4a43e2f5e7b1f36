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
#include "kmodel/reuse.h"
#include "kmodel/window_scan.h"

namespace vramlab {

uint64_t KernelResult::bytes_to_vram() const { return vram_in_from_gtt_bytes; }
uint64_t KernelResult::moves() const { return vram_in_from_gtt + mem[MemVram].moves_out; }

namespace {

constexpr uint64_t kPage = 4096;
constexpr uint8_t kNowhere = 255;           // not created, refused or destroyed
constexpr uint64_t kStampStart = 4096;      // RADEON_BO_SCORE_WINDOW_MAX
constexpr uint32_t kMaxPriority = 32;       // RADEON_CS_MAX_PRIORITY

// One cache line each (48 bytes used): the walk, the scan and the tail moves read several
// fields of a BO at a time, and at 48 bytes a stride half the records straddled two lines
// (2-4% faster on the eviction-heavy replays, 16 more bytes a BO).
struct alignas(64) Bo {
	uint64_t pages = 0, start = 0;
	uint64_t evict_key = 0;  // bo->evict_key
	uint64_t reserved_by = 0; // CS number holding its reservation
	uint64_t used_us = 0;     // time of the last submission that used it (window's cold rule)
	uint32_t cs_score = 0;
	uint8_t mem = kNowhere;
	uint8_t priority = kTtmPriorities - 1; // bo->priority (the variant)
};

// One submission's list as radeon builds it (Submissions). seen[id] == mark: the BO is
// already on this list (each list gets a mark no earlier one had).
class ListBuilder {
public:
	// Fills out[0 .. n) in list order and appends the reserved BOs to `tail` in tail-move
	// order; returns how many there are. cpu: a relocation asks for the CPU domain.
	template <class PagesOf>
	uint32_t build(const CsReloc *relocs, uint32_t n, Submissions::Entry *out, PagesOf pages_of,
	               uint32_t *seen, uint32_t mark, std::vector<uint32_t> &tail, bool &cpu)
	{
		prio_.resize(n);
		bool in_order = true; // most lists are (one priority, or few buffers)
		for (uint32_t i = 0; i < n; i++) {
			const CsReloc &rl = relocs[i];
			const uint8_t domain = rl.write_domain ? rl.write_domain : rl.read_domains;
			cpu |= (domain & DomainCpu) != 0;
			prio_[i] = uint8_t(std::min<uint32_t>(rl.prio * 2u + (rl.write_domain ? 1 : 0),
			                                      kMaxPriority));
			in_order &= i == 0 || prio_[i - 1] >= prio_[i];
			out[i] = {rl.id, i, domain,
			          uint8_t(domain == DomainVram ? (DomainVram | DomainGtt) : domain), false};
		}
		// radeon_cs_buckets_get_list(): a counting sort, highest priority first, stable
		if (!in_order) {
			uint32_t start[kMaxPriority + 2] = {};
			for (uint32_t i = 0; i < n; i++)
				start[kMaxPriority - prio_[i] + 1]++;
			for (uint32_t p = 1; p <= kMaxPriority + 1; p++)
				start[p] += start[p - 1];
			tmp_.resize(n);
			for (uint32_t i = 0; i < n; i++)
				tmp_[start[kMaxPriority - prio_[out[i].pos]]++] = out[i];
			std::copy(tmp_.begin(), tmp_.end(), out);
		}
		// ttm_eu_reserve_buffers(): the later entries of a BO are the duplicates; the tail
		// moves are radeon_cs_parser_fini()'s list_sort() over the others, smallest first,
		// stable: (pages, position) words sort without allocating
		key_.clear();
		bool sorted = true;
		for (uint32_t i = 0; i < n; i++) {
			Submissions::Entry &e = out[i];
			if (seen[e.id] == mark) {
				e.dup = true;
				continue;
			}
			seen[e.id] = mark;
			key_.push_back(pages_of(e.id) << 20 | key_.size());
			sorted &= key_.size() == 1 || key_[key_.size() - 2] < key_.back();
		}
		if (!sorted) { // the keys are distinct: any sort gives the stable order
			if (key_.size() <= 32) { // a submission's usual few BOs
				for (size_t i = 1; i < key_.size(); i++) {
					const uint64_t k = key_[i];
					size_t j = i;
					for (; j && key_[j - 1] > k; j--)
						key_[j] = key_[j - 1];
					key_[j] = k;
				}
			} else {
				std::sort(key_.begin(), key_.end());
			}
		}
		head_.clear();
		for (uint32_t i = 0; i < n; i++)
			if (!out[i].dup)
				head_.push_back(out[i].id);
		for (uint64_t k : key_)
			tail.push_back(head_[k & 0xfffff]);
		return uint32_t(key_.size());
	}

private:
	std::vector<uint8_t> prio_;
	std::vector<Submissions::Entry> tmp_;
	std::vector<uint64_t> key_;
	std::vector<uint32_t> head_;
};

} // namespace

class KernelModel::Impl {
public:
	Impl(const KernelConfig &c, size_t bos) : c_(c), mm_(c.vram / kPage), bo_(bos),
	      order_(bos, c.bo_score, c.window, kStampStart, c.bo_priority),
	      threshold_(c.vram, c.budget, c.budget_mbps, c.budget_cap_ms),
	      guard_(c.guard_params, c.vram / kPage)
	{
		if (track_guard_)
			guard_.grow(bos);
		if (c.future)
			next_use_.resize(bos);
		if (c.observer)
			extra_.resize(bos);
		if (track_reuse_)
			reuse_.resize(bos);
		if (c.window_predict)
			key_div_.resize(bos);
		if ((c.window_oracle || c.admit_oracle) && !c.future)
			throw std::invalid_argument("the clairvoyant rules need the trace's future "
			                            "(simulate_kernel() gives it; a live model has none)");
		if (c.admit_predict && !c.window_predict)
			throw std::invalid_argument("predicted admission needs the predicted window");
		if (c.predict_size_exp2 > 2 || c.admit_reads < 1 || c.admit_reads > 2)
			throw std::invalid_argument("the predicted window's size exponent is 0, 1/2 or 1 "
			                            "and admission counts 1 or 2 reads");
		if (c.predict_gap_ratio < 2 || c.predict_gap_ratio > 8 || c.predict_gap_trust > 4)
			throw std::invalid_argument("the gap prediction's ratio is 2 to 8 and its "
			                            "counter's threshold 0 to 4");
		if (c.predict_trusted < 2 || c.predict_trusted > 8 || c.predict_regime < 4 ||
		    c.predict_regime > 1024 || !std::has_single_bit(c.predict_regime))
			throw std::invalid_argument("the prediction trusts a period after 2 to 8 uses, and "
			                            "its change of regime is a power of two, 4 to 1024");
		if (c.admit_oracle && !c.window_oracle)
			throw std::invalid_argument("clairvoyant admission needs the clairvoyant window");
		if ((c.guard || c.guard_observe) && (c.guard_params.count < 1 || c.guard_params.count > 255 ||
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
		if (c.window_predict && c.predict_escalate > 65536)
			throw std::invalid_argument("predict_escalate must be at most 65536");
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
			pinned_pages_ += pages;
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
			if (track_guard_)
				guard_.grow(n);
			if (c_.future)
				next_use_.resize(n);
			if (c_.observer)
				extra_.resize(n);
			if (track_reuse_)
				reuse_.resize(n);
			if (c_.window_predict)
				key_div_.resize(n);
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
	void lru_add(uint32_t id)
	{
		order_.add(id, lru_key(id));
		if (keep_.collect && keep_holds()) [[unlikely]]
			keep_.appended.push_back(id);
	}
	void lru_del(uint32_t id)
	{
		order_.del(id);
		lru_changes_++;
	}
	// ttm_bo_move_to_lru_tail(), counted in lru_changes_ (gather_sorted())
	void lru_tail(uint32_t id)
	{
		lru_tail_uncounted(id);
		lru_changes_++;
	}
	// for tail_moves() alone, which counts its whole list once (a count per BO cost every
	// policy's submission path 5-10%)
	void lru_tail_uncounted(uint32_t id)
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
		if (track_guard_)
			guard_.expire(now_us_);
		if (c_.window_oracle)
			return oracle_evict(id);
		if (c_.window_predict) {
			switch (predict_evict(id)) {
			case Scan::Fit: return true;
			case Scan::NoFit: return false;
			case Scan::Bounded: break;
			}
		} else if (c_.scan) {
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
		if (track_guard_)
			guard_.evicted(v, now_us_);
		if (c_.observer) [[unlikely]]
			extra_[v].out = true;
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
			if (in_window(v, h.at, size))
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

	// BO v overlaps the window [at, at + size)
	bool in_window(uint32_t v, uint64_t at, uint64_t size) const
	{
		return bo_[v].start < at + size && bo_[v].start + bo_[v].pages > at;
	}

	// belady_ = the evictable BOs among the first `bound` LRU entries (obstacles count), each
	// with key_of(v) and its LRU rank, in Belady's order (latest key first, then rank); true
	// if the bound stopped the walk.
	//
	// Where keep_on_ allows, a later eviction of the same validation loop goes on from the
	// last one instead of starting over. Within radeon_bo_list_validate() the keys stand still
	// (the clock and each BO's estimate move after the list, the next uses before it), so do
	// the reservations, and the LRU only loses the windows' victims (forget_victims()) and
	// gains the placed BOs at its tail. So the kept candidates are still in order, and the
	// entries the bound now reaches lie after all of them: those are sorted apart and merged.
	// A larger bound goes on from the last one too (window-predict's escalation); a smaller
	// one, any other LRU change (lru_changes_) and every create() start over.
	template <class KeyOf> bool gather_sorted(uint32_t bound, KeyOf key_of)
	{
		const bool resume = keep_holds() && bound >= keep_.bound;
		fresh_.clear();
		bool bounded = false;
		const auto visit = [&](uint32_t v) {
			if (visited_ == bound) {
				bounded = true;
				keep_.stop = v;
				return true;
			}
			if (!stays(v))
				fresh_.push_back({key_of(v), keep_.next_rank, v});
			keep_.next_rank++;
			visited_++;
			return false;
		};
		if (!resume) {
			belady_.clear();
			visited_ = 0;
			keep_.next_rank = 0;
			keep_.appended.clear();
			keep_.collect = !order_.walk(visit) && keep_on_;
		} else if (keep_.collect) { // the last walk reached the tail: what was added since
			r_.keep_appended++;
			for (uint32_t v : keep_.appended)
				if (visit(v))
					break; // the entries after keep_.stop are the LRU's from there on
			keep_.appended.clear();
			keep_.collect = !bounded;
		} else {
			keep_.collect = !order_.walk_from(keep_.stop, visit);
		}
		r_.keep_resumes += resume;
		sort_belady(fresh_, belady_scratch_);
		if (belady_.empty()) {
			belady_.swap(fresh_);
		} else if (!fresh_.empty()) {
			merged_.resize(belady_.size() + fresh_.size());
			std::merge(belady_.begin(), belady_.end(), fresh_.begin(), fresh_.end(),
			           merged_.begin(), belady_before);
			belady_.swap(merged_);
		}
		keep_.live = keep_on_;
		keep_.bound = bound;
		keep_.cs_no = cs_no_;
		keep_.lru_changes = lru_changes_;
		return bounded;
	}
	// The kept candidates are still this submission's and the LRU has changed only as
	// gather_sorted() allows since
	bool keep_holds() const
	{
		return keep_.live && keep_.cs_no == cs_no_ && keep_.lru_changes == lru_changes_;
	}
	// After a window's victims left: the kept candidates without them (they lie among the
	// first scanned_.size(), and were visited)
	void forget_victims()
	{
		if (!keep_on_)
			return;
		const auto first = belady_.begin(), last = first + ptrdiff_t(scanned_.size());
		const auto kept = std::remove_if(first, last, [&](const BeladyCandidate &c) {
			return bo_[c.id].mem != MemVram;
		});
		visited_ -= uint32_t(last - kept);
		belady_.erase(kept, last);
		keep_.lru_changes = lru_changes_;
	}

	// belady_ (in Belady's order) into the drm_mm scan until a span holds BO id: where the
	// window starts (its end for a top-down BO), UINT64_MAX if none; scanned_ the candidates
	// added. The clairvoyant and the predicted window share it.
	uint64_t first_span_in_order(uint32_t id)
	{
		const uint64_t size = bo_[id].pages;
		scan_.begin(mm_.size());
		scanned_.clear();
		for (const BeladyCandidate &c : belady_) {
			scanned_.push_back(c.id);
			const WindowScan::Span s = scan_.add(bo_[c.id].start, bo_[c.id].pages, mm_);
			if (s.r - s.l >= size)
				return topdown(id) ? s.r - size : s.l;
		}
		return UINT64_MAX;
	}

	// The clairvoyant window (clairvoyant.h): window eviction's scan with every evictable BO
	// as a candidate, in Belady's order (next used last first, then LRU order) instead of
	// the walk's, unbounded; with admit_oracle, the BO stays in GTT when it is needed later
	// than every victim (a refusal here is one: radeon's callers then validate with GTT
	// allowed, a create retries with GTT added, a CS entry asks again with its allowed
	// domains).
	bool oracle_evict(uint32_t id)
	{
		gather_sorted(UINT32_MAX, [&](uint32_t v) { return next_use_[v]; });
		const uint64_t size = bo_[id].pages;
		const uint64_t at = first_span_in_order(id);
		if (at == UINT64_MAX) {
			r_.window_nofit++;
			if (c_.observer) [[unlikely]]
				tell(id, OracleDecision::NoFit);
			return false;
		}
		victims_.clear();
		uint64_t earliest = Future::kNever;
		for (uint32_t v : scanned_)
			if (in_window(v, at, size)) {
				victims_.push_back(v);
				earliest = std::min(earliest, next_use_[v]);
			}
		if (c_.admit_oracle && next_use_[id] > earliest) {
			r_.admit_bypasses++;
			if (c_.observer) [[unlikely]]
				tell(id, OracleDecision::Bypass);
			return false;
		}
		if (c_.observer) [[unlikely]]
			tell(id, OracleDecision::Placed);
		r_.windows++;
		for (uint32_t v : victims_)
			evict(v);
		forget_victims();
		place_at(id, at);
		return true;
	}

	// The predicted window (reuse.h): the clairvoyant window's scan with the next use
	// predicted from each BO's own past instead of read from the future, over the first
	// scan_max LRU entries (obstacles count, as for window eviction); the walk if no span of
	// them holds the BO.
	Scan predict_evict(uint32_t id)
	{
		const auto key = [&](uint32_t v) {
			return reuse_[v].victim_key_over(r_.cs, c_.predict_size_exp2, key_div_[v],
			                                 c_.predict_unused);
		};
		bool bounded = gather_sorted(c_.scan_max, key);
		const uint64_t size = bo_[id].pages;
		uint64_t at = first_span_in_order(id);
		if (at == UINT64_MAX && bounded && c_.predict_escalate > c_.scan_max) {
			// the same scan with the larger bound: gather_sorted() goes on from where the
			// bound stopped it (nothing moved in between) and merges the new candidates in
			r_.window_escalations++;
			bounded = gather_sorted(c_.predict_escalate, key);
			at = first_span_in_order(id);
		}
		// an obstacle: the submission's own BOs (fewer candidates than LRU entries visited)
		const bool obstacle = at == UINT64_MAX && belady_.size() < visited_;
		const bool repack = obstacle && !bounded && c_.predict_repack &&
		                    list_pages_ <= mm_.size() - pinned_pages_;
		if (repack)
			at = repack_span(id, key);
		if (at == UINT64_MAX) {
			// with predict_nofit_walk, a scan that met an obstacle has no opinion, and the
			// walk flushes as stock does (docs/window-predict.md)
			if (bounded || (c_.predict_nofit_walk && obstacle)) {
				r_.window_fallbacks++;
				return Scan::Bounded;
			}
			r_.window_nofit++;
			return Scan::NoFit;
		}
		if (c_.admit_predict && may_decline_ && bypass_predicted(id, at, size)) {
			r_.admit_bypasses++;
			return Scan::NoFit;
		}
		r_.windows++;
		for (uint32_t v : scanned_)
			if (in_window(v, at, size)) {
				r_.window_repacks += repack && bo_[v].reserved_by == cs_no_;
				evict(v);
			}
		if (!repack)
			forget_victims(); // else repack_span() ended the keep (it found a window)
		place_at(id, at);
		return Scan::Fit;
	}

	// The predicted window's scan once more where the submission's own BOs kept it from
	// finding one (predict_repack): they are candidates too, in the same order (the thrash
	// guard's still stay). radeon_cs_parser_relocs() lets every BO of a graphics submission
	// live in GTT (only UVD's message must stay in VRAM; traces hold no UVD submissions). One
	// evicted here comes back when the list validates it, where best fit puts it, or with the
	// next submission if the list already has; so a frame whose own BOs lie scattered over
	// VRAM can pack them again (docs/window-predict.md, "Repack"). Only where the list's BOs
	// that want VRAM fit in it beside the pinned ones: otherwise no packing holds them all, and
	// a repack only evicts one of the frame's BOs for another. The first scan was not
	// bounded, so this one visits the whole LRU. Model only.
	template <class KeyOf> uint64_t repack_span(uint32_t id, KeyOf key_of)
	{
		fresh_.clear();
		uint32_t rank = 0, own = 0;
		order_.walk([&](uint32_t v) {
			if (!(c_.guard && guard_.guarded(v))) {
				fresh_.push_back({key_of(v), rank, v});
				own += bo_[v].reserved_by == cs_no_;
			}
			rank++;
			return false;
		});
		if (!own) // the thrash guard's BOs were the only obstacles
			return UINT64_MAX;
		keep_.live = false; // belady_ is no longer the kept candidates
		sort_belady(fresh_, belady_scratch_);
		belady_.swap(fresh_);
		r_.window_repack_scans++;
		return first_span_in_order(id);
	}

	// Predicted admission (reuse.h, ReuseEstimate::bypass()): BO id stays in GTT when,
	// counting this use, it needs fewer pages per submission than the victims of its window
	// until their predicted next uses, and two GPU reads of it from GTT cost less than its
	// move in and its victims' move out and back
	bool bypass_predicted(uint32_t id, uint64_t at, uint64_t size)
	{
		uint64_t victims_rate = 0, victim_pages = 0;
		for (uint32_t v : scanned_)
			if (in_window(v, at, size)) {
				victims_rate += ReuseEstimate::rate(
				        bo_[v].pages, reuse_[v].predicted_next(r_.cs) - r_.cs);
				victim_pages += bo_[v].pages;
			}
		if (!reuse_[id].rate_test(r_.cs, bo_[id].pages, victims_rate))
			return false;
		r_.admit_cost_tests++; // the one test the card's GTT charge enters
		const bool stays = ReuseEstimate::cost_test(bo_[id].pages, victim_pages, gtt_permille_,
		                                            c_.admit_reads);
		ReuseEstimate::narrow_same_charges(bo_[id].pages, victim_pages, c_.admit_reads, stays,
		                                   r_.admit_same_from, r_.admit_same_to);
		return stays;
	}

	// The observer's view of one decision: belady_ holds every evictable BO; a placed one
	// evicts victims_ (after this call), the others evict nothing
	void tell(uint32_t id, OracleDecision::Outcome outcome)
	{
		cands_.clear();
		for (const BeladyCandidate &c : belady_) {
			const Bo &b = bo_[c.id];
			const BoExtra &x = extra_[c.id];
			const bool victim = outcome == OracleDecision::Placed &&
			                    std::find(victims_.begin(), victims_.end(), c.id) != victims_.end();
			cands_.push_back({c.id, c.rank, b.pages, b.start, c.next_use,
			                  x.uses ? b.used_us : x.created_us, x.created_us, x.uses, x.returns,
			                  x.last_reloc, reuse_[c.id].predicted_next(r_.cs) - r_.cs,
			                  b.priority, victim});
		}
		std::sort(cands_.begin(), cands_.end(),
		          [](const OracleCandidate &a, const OracleCandidate &b) {
			          return a.lru_rank < b.lru_rank;
		          });
		c_.observer->decision({id, bo_[id].pages, next_use_[id], now_us_, subs_, outcome},
		                      cands_.data(), cands_.size());
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
		if (track_guard_ && from == MemGtt) [[unlikely]]
			guard_.returned(id, b.pages, now_us_);
		if (c_.observer && extra_[id].out) [[unlikely]] {
			extra_[id].out = false;
			extra_[id].returns++;
		}
	}

public:
	// radeon_gem_object_create(): radeon_bo_create() in the domain asked for, and once more
	// with GTT added if that was VRAM alone and failed.
	bool create(uint32_t id, uint64_t size, uint8_t asked)
	{
		keep_.live = false; // a keep serves one validation loop or one create (gather_sorted())
		list_pages_ = UINT64_MAX; // no list: no repack
		grow(id);
		Bo &b = bo_[id];
		b.pages = (size + kPage - 1) / kPage;
		if (b.pages == 0) { // drm_vma_offset_add() of 0 pages fails: -ENOSPC
			r_.creates_refused++;
			return false;
		}
		b.evict_key = c_.bo_score ? stamp_ : 0; // radeon_bo_create(): used now, no score
		b.priority = kTtmPriorities - 1;
		if (track_reuse_) [[unlikely]] // idle from its creation until a use
			reuse_[id].created(r_.cs, c_.reuse_tunables());
		if (c_.observer) [[unlikely]]
			extra_[id] = BoExtra{.created_us = now_us_};
		if (c_.window_predict) [[unlikely]]
			key_div_[id] = ReuseEstimate::size_divisor(b.pages, c_.predict_size_exp2,
			                                           c_.predict_move_pages);
		if (c_.future)
			next_use_[id] = id < c_.future->first_use.size() ? c_.future->first_use[id]
			                                                 : Future::kNever;
		const uint8_t domain = asked & (DomainVram | DomainGtt); // checked at load
		may_decline_ = true; // a user BO: radeon_gem_object_create() retries with GTT
		bool ok = validate(id, domain);
		if (!ok && domain == DomainVram)
			ok = validate(id, DomainVram | DomainGtt);
		may_decline_ = false;
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
		if (track_guard_)
			guard_.gone(id);
		b.mem = kNowhere;
		r_.destroys++;
	}

	// radeon_cs_ioctl() from a live program: radeon_cs_parser_relocs() looks each handle up,
	// then the list is built as prepare_submissions() builds a trace's
	void submit(const CsReloc *relocs, uint32_t n, bool scores, uint64_t time_us)
	{
		now_us_ = time_us;
		note_future(relocs, n);
		for (uint32_t i = 0; i < n; i++)
			if (relocs[i].id >= bo_.size() || bo_[relocs[i].id].mem == kNowhere) { // -ENOENT
				r_.cs_rejected++;
				return;
			}
		list_.resize(n);
		tail_ids_.clear();
		if (++seen_mark_ == 0) { // wrapped: no stale mark may equal a new one
			std::fill(seen_.begin(), seen_.end(), 0);
			seen_mark_ = 1;
		}
		seen_.resize(bo_.size());
		bool cpu = false;
		const uint32_t head = builder_.build(
		        relocs, n, list_.data(), [this](uint32_t id) { return bo_[id].pages; },
		        seen_.data(), seen_mark_, tail_ids_, cpu);
		if (cpu) { // -EINVAL
			r_.cs_rejected++;
			return;
		}
		run_list(list_.data(), n, tail_ids_.data(), head, [&](const Submissions::Entry &e) {
			return scores ? relocs[e.pos].score : kScoreNeutral;
		});
	}
	// The same for submission k of a trace whose lists are prepared (simulate_kernel())
	// (`scores`: one per relocation of the trace, instead of its own, as if every submission
	// sent them)
	void submit(const Submissions &s, uint32_t k, const KernelCs &cs, const CsReloc *relocs,
	            const uint32_t *scores, uint64_t time_us)
	{
		now_us_ = time_us;
		note_future(relocs, cs.n);
		const Submissions::Cs &pc = s.cs[k];
		const Submissions::Entry *list = s.list.data() + cs.first;
		if (pc.refused) { // -ENOENT or -EINVAL whatever the state
			r_.cs_rejected++;
			return;
		}
		for (uint32_t i = 0; i < cs.n; i++)
			if (bo_[list[i].id].mem == kNowhere) { // -ENOENT
				r_.cs_rejected++;
				return;
			}
		if (scores)
			run_list(list, cs.n, s.tail.data() + pc.tail, pc.head,
			         [&](const Submissions::Entry &e) { return scores[cs.first + e.pos]; });
		else
			run_list(list, cs.n, s.tail.data() + pc.tail, pc.head, [&](const Submissions::Entry &e) {
				return cs.scores ? relocs[e.pos].score : kScoreNeutral;
			});
	}

private:
	// the clairvoyant rules: each named BO's next use after this one
	void note_future(const CsReloc *relocs, uint32_t n)
	{
		if (!c_.future) [[likely]]
			return;
		subs_++;
		const uint64_t base = relocs_seen_;
		relocs_seen_ += n;
		if (relocs_seen_ > c_.future->reloc_next.size())
			throw std::logic_error("kernel model: more relocations than the future knows");
		for (uint32_t i = 0; i < n; i++)
			if (relocs[i].id < bo_.size()) {
				next_use_[relocs[i].id] = c_.future->reloc_next[base + i];
				if (c_.observer) [[unlikely]] // extra_ is as long as bo_
					extra_[relocs[i].id].last_reloc = base + i;
			}
	}

	// ttm_eu_reserve_buffers() + radeon_bo_list_validate() + radeon_cs_parser_fini() over a
	// list whose BOs all exist; `tail` holds its `head` reserved BOs in tail-move order;
	// score_of(entry) is the score the entry's relocation carries
	template <class ScoreOf>
	void run_list(const Submissions::Entry *list, uint32_t n, const uint32_t *tail, uint32_t head,
	              ScoreOf score_of)
	{
		cs_no_++; // a BO named twice is reserved once
		for (uint32_t i = 0; i < n; i++)
			if (!list[i].dup)
				bo_[list[i].id].reserved_by = cs_no_;
		// what the list wants in VRAM (repack_span()); a BO named twice counts by its first
		// entry (6.14-7.2 validate the second too, with its own domain: an approximation)
		if (c_.predict_repack) [[unlikely]] {
			list_pages_ = 0;
			for (uint32_t i = 0; i < n; i++)
				if (!list[i].dup && (list[i].preferred & DomainVram))
					list_pages_ += bo_[list[i].id].pages;
		}
		// 6.12 validates the reserved list (duplicates went to their own list); 6.14-7.2's
		// radeon_bo_list_validate() walks every entry, a BO named twice validated twice; the
		// duplicate fix takes drm_exec's -EALREADY entries off the list again
		const bool dups_too = c_.stock == Stock::V6_14;
		const uint64_t threshold = threshold_.threshold(used_ * kPage, now_us_);
		bytes_moved_ = 0;
		bool kept = false;
		for (uint32_t i = 0; i < n; i++) {
			const Submissions::Entry &e = list[i];
			if (e.dup && !dups_too)
				continue;
			uint8_t domain = e.preferred;
			const uint8_t m = bo_[e.id].mem;
			const uint8_t current = m == MemVram ? DomainVram : m == MemGtt ? DomainGtt : DomainCpu;
			if ((e.allowed & current) && !(domain & current) &&
			    threshold_.over(bytes_moved_, threshold)) {
				domain = current;
				kept = true;
				r_.threshold_bos++;
			}
			// radeon_bo_list_validate(): admission may leave it in GTT if GTT is allowed
			may_decline_ = e.allowed & DomainGtt;
			const bool ok = validate(e.id, domain) ||
			                (domain != e.allowed && validate(e.id, e.allowed));
			may_decline_ = false;
			if (!ok) {
				// 6.12: ttm_eu_backoff_reservation() moves each to the tail; 6.14-7.2,
				// fixed or not: drm_exec_fini() only unlocks (cannot happen with an
				// unbounded GTT)
				if (c_.stock == Stock::V6_12)
					for (uint32_t j = 0; j < n; j++)
						if (!list[j].dup)
							lru_tail(list[j].id);
				cs_no_++;
				r_.cs_rejected++;
				return;
			}
		}
		r_.threshold_cs += kept;
		threshold_.debit(bytes_moved_); // the budget: every byte this submission moved
		// One pass: the scores (radeon_bo_list_note_scores(): a duplicate's counts too, and
		// it follows its BO's first entry) and where the GPU finds each BO
		for (uint32_t i = 0; i < n; i++) {
			const Submissions::Entry &e = list[i];
			Bo &b = bo_[e.id];
			const uint32_t score = score_of(e);
			if (e.dup) {
				b.cs_score = std::max(b.cs_score, score);
				continue;
			}
			b.cs_score = score;
			if (track_reuse_) [[unlikely]] // the clock: submissions before this one
				reuse_[e.id].used(r_.cs);
			b.used_us = now_us_;
			if (c_.observer) [[unlikely]]
				extra_[e.id].uses++;
			if (b.mem == MemGtt) {
				r_.gtt_accesses++;
				r_.gtt_access_bytes += b.pages * kPage;
				if (c_.per_frame) {
					r_.per_frame.back().gtt_accesses++;
					r_.per_frame.back().gtt_access_bytes += b.pages * kPage;
				}
			}
		}
		// The tail moves: 6.12's ttm_eu_fence_buffer_objects() and the fixes' fence loop over
		// the reserved list (duplicates taken off); stock 6.14-7.2 none (drm_exec_fini() only
		// unlocks)
		if (c_.stock != Stock::V6_14)
			tail_moves(tail, head);
		cs_no_++; // reservations dropped
		r_.cs++;
	}

	// Each reserved BO's key or priority, then its move to the LRU tail, in tail-move order
	void tail_moves(const uint32_t *ids, uint32_t n)
	{
		if (c_.bo_score) {
			stamp_++;
			order_.advance(stamp_);
			for (uint32_t i = 0; i < n; i++) {
				Bo &b = bo_[ids[i]];
				b.evict_key = radeon_evict_key(stamp_, b.cs_score, c_.window);
			}
		}
		if (c_.bo_priority)
			for (uint32_t i = 0; i < n; i++)
				bo_[ids[i]].priority = uint8_t(radeon_bo_priority(bo_[ids[i]].cs_score));
		for (uint32_t i = 0; i < n; i++)
			lru_tail_uncounted(ids[i]);
		lru_changes_++;
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
		if (c_.guard) {
			r_.guards = guard_.guards;
			r_.guard_refusals = guard_.cap_refusals;
		} else {
			r_.guard_observed = guard_.guards;
		}
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
	// the live path's list (submit()): built per submission, `seen_` marks the BOs on it
	ListBuilder builder_;
	std::vector<Submissions::Entry> list_;
	std::vector<uint32_t> tail_ids_, seen_;
	uint32_t seen_mark_ = 0;
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
	// predict_repack: the pinned BOs' pages; the pages of this list's BOs that want VRAM
	uint64_t pinned_pages_ = 0, list_pages_ = UINT64_MAX;
	BeladyScratch belady_scratch_;
	std::vector<uint32_t> victims_;
	uint64_t relocs_seen_ = 0;
	// kept only for an observer (labels): what a kernel could record per BO
	struct BoExtra {
		uint64_t created_us = 0;
		uint32_t uses = 0, returns = 0;
		uint64_t last_reloc = UINT64_MAX;
		bool out = false; // evicted, not back in VRAM yet
	};
	std::vector<BoExtra> extra_;
	std::vector<OracleCandidate> cands_;
	uint64_t subs_ = 0; // submissions begun (with a future)
	std::vector<ReuseEstimate> reuse_; // track_reuse_: each BO's reuse interval
	std::vector<uint64_t> key_div_;     // and its size's divisor (ReuseEstimate::size_divisor())
	// Predicted admission may leave the BO of this validation in GTT: the caller falls back
	// to GTT (radeon_bo.evict_may_decline: a user create, a CS entry that allows GTT)
	bool may_decline_ = false;
	// LRU entries gather_sorted() has visited, obstacles included, less the victims since
	uint32_t visited_ = 0;
	// gather_sorted()'s state between the evictions of one submission: the submission
	// (cs_no_) and lru_changes_ it holds for; the first LRU entry not visited, or once the
	// walk reached the tail (collect) the BOs added there since. Not with the thrash guard
	// (stays() moves with the clock), a key order (an add may not go to the tail, and
	// walk_from() follows one list) or an observer (it is told each candidate's LRU rank).
	struct Keep {
		bool live = false, collect = false;
		uint64_t cs_no = 0, lru_changes = 0;
		uint32_t stop = EvictOrder::kNone, next_rank = 0;
		uint32_t bound = 0; // the gather's, a larger one may go on from it
		std::vector<uint32_t> appended;
	} keep_;
	uint64_t lru_changes_ = 0; // LRU removals and tail moves
	std::vector<BeladyCandidate> fresh_, merged_;
	const bool keep_on_ = (c_.window_predict || c_.window_oracle) && !c_.guard && !c_.bo_score &&
	                      !c_.bo_priority && !c_.observer;
	// the thrash guard's bookkeeping: for the guard, or to say where it would first act
	const bool track_guard_ = c_.guard || c_.guard_observe;
	// each BO's predictor (reuse.h): for window-predict, or to tell an observer what it says
	const bool track_reuse_ = c_.window_predict || c_.observer;
	const uint32_t gtt_permille_ =
	        c_.admit_gtt_permille ? c_.admit_gtt_permille : gtt_read_permille(c_);
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

Submissions prepare_submissions(const KernelTrace &t)
{
	Submissions s;
	s.relocs = t.relocs.size();
	s.list.resize(t.relocs.size());
	s.cs.resize(t.cs.size());
	s.tail.reserve(t.relocs.size());
	std::vector<uint32_t> seen(t.size.size(), 0); // the mark of CS k is k + 1
	if (t.cs.size() >= UINT32_MAX)
		throw std::logic_error("kernel model: too many submissions");
	ListBuilder b;
	for (size_t k = 0; k < t.cs.size(); k++) {
		const KernelCs &cs = t.cs[k];
		if (size_t(cs.first) + cs.n > t.relocs.size())
			throw std::logic_error("kernel model: a submission past the relocations");
		const CsReloc *relocs = t.relocs.data() + cs.first;
		Submissions::Cs &c = s.cs[k];
		c.tail = uint32_t(s.tail.size());
		for (uint32_t i = 0; i < cs.n; i++)
			c.refused |= relocs[i].id >= t.size.size(); // never created: -ENOENT
		if (c.refused)
			continue;
		c.head = b.build(
		        relocs, cs.n, s.list.data() + cs.first,
		        [&t](uint32_t id) { return (t.size[id] + kPage - 1) / kPage; }, seen.data(),
		        uint32_t(k + 1), s.tail, c.refused);
	}
	return s;
}

// The replay loop: what KernelModel's calls do, inlined, with each submission made by
// submit(m, k, cs) (a list built in the run, or prepared for every run)
template <class Submit>
KernelResult replay_kernel(const KernelTrace &t, const KernelConfig &config, Submit submit)
{
	Future future;
	KernelConfig c = config;
	if (c.window_oracle || c.admit_oracle) {
		future = trace_future(t);
		c.future = &future;
	}
	KernelModel km(c, t.size.size());
	KernelModel::Impl &m = *km.p_;
	for (uint32_t op : t.ops) {
		const uint32_t arg = op & KernelTrace::kMask;
		switch (KernelTrace::Op(op >> KernelTrace::kShift)) {
		case KernelTrace::Create: m.create(arg, t.size[arg], t.domain[arg]); break;
		case KernelTrace::Cs: submit(m, arg, t.cs[arg]); break;
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

KernelResult simulate_kernel(const KernelTrace &t, const KernelConfig &config)
{
	const bool cs_us = t.cs_us.size() == t.cs.size();
	return replay_kernel(t, config, [&](auto &m, uint32_t k, const KernelCs &cs) {
		m.submit(t.relocs.data() + cs.first, cs.n, cs.scores, cs_us ? t.cs_us[k] : 0);
	});
}

KernelResult simulate_kernel(const KernelTrace &t, const Submissions &s, const KernelConfig &config,
                             const std::vector<uint32_t> *scores)
{
	if (s.cs.size() != t.cs.size() || s.relocs != t.relocs.size())
		throw std::logic_error("kernel model: the prepared submissions are another trace's");
	if (scores && scores->size() != t.relocs.size())
		throw std::logic_error("kernel model: scores for another trace's relocations");
	const uint32_t *sc = scores ? scores->data() : nullptr;
	const bool cs_us = t.cs_us.size() == t.cs.size();
	return replay_kernel(t, config, [&](auto &m, uint32_t k, const KernelCs &cs) {
		m.submit(s, k, cs, t.relocs.data() + cs.first, sc, cs_us ? t.cs_us[k] : 0);
	});
}

} // namespace vramlab
