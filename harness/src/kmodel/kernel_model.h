// A model of radeon on Linux 6.12 with vramlab's series (patches/linux-6.12), replaying a
// KernelTrace: TTM's range manager over drm_mm for VRAM, radeon's placement, CS validation and
// move threshold, TTM's eviction walk in LRU or key order, and the series' keys. Every rule and
// the kernel function it comes from: docs/kernel-model.md. The KUnit suite radeon_replay in the
// series replays the same traces through the real code; the two must agree on every counter.
#pragma once
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "kmodel/kernel_trace.h"
#include "kmodel/reuse.h"
#include "kmodel/thrash_guard.h"
#include "sim/timeline.h"

namespace vramlab {

struct Future; // clairvoyant.h

// What the clairvoyant window decided, for learning it (`vramlab labels`, issue 50): at each
// ttm_bo_evict_alloc() of a run with window_oracle, the BO being placed and every evictable
// BO, with the future the oracle read and what the kernel itself could have known then.
// Times are the trace's submission times (microseconds); "submissions" count the trace's.
struct OracleCandidate {
	uint32_t id;
	uint32_t lru_rank;   // position in TTM's eviction order (0: the walk's first)
	uint64_t pages;
	uint64_t start;      // first page in VRAM
	uint64_t next_use;   // submission index of its next use or destroy (Future::kNever: none)
	uint64_t last_us;    // the last submission that used it (its create's time if none)
	uint64_t created_us; // time of its create
	uint32_t uses;       // submissions that named it
	uint32_t returns;    // times it came back to VRAM after an eviction
	uint64_t last_reloc; // the trace relocation that last named it (UINT64_MAX: none yet):
	                     // where Mesa's view of it (its network inputs) is found
	uint64_t predicted_in; // submissions to its next use as window-predict predicts it (reuse.h)
	uint8_t priority;    // bo->priority
	bool victim;         // the oracle evicted it here
};
struct OracleDecision {
	uint32_t id;         // the BO being placed
	uint64_t pages;
	uint64_t next_use;   // the placed BO's own next use
	uint64_t now_us;     // time of the submission in progress (or of the last one)
	uint64_t subs;       // submissions begun so far: a BO next used at submission k is
	                     // k + 1 - subs submissions away
	enum Outcome : uint8_t { Placed, NoFit, Bypass } outcome;
};
class OracleObserver {
public:
	virtual ~OracleObserver() = default;
	// candidates in TTM's eviction order; the span lives until the call returns
	virtual void decision(const OracleDecision &d, const OracleCandidate *candidates,
	                      size_t n) = 0;
};

// The built-in transfer costs, assumptions measured on no card (docs/cost-file.md): PCIe 2.0
// x16's 8 GB/s, the thesis's 232 GB/s VRAM and 20 us a move, a GPU use of a buffer in GTT
// charged as one read of its whole size at PCIe speed. costs/default.json holds the same
// values (tests/test_cost_file.cc); a cost file (--cost) replaces all four.
inline constexpr double kDefaultPcieGbps = 8.0, kDefaultVramGbps = 232.0,
                        kDefaultMoveLatencyUs = 20.0, kDefaultGttReadsPerUse = 1.0;

// How a stock radeon submission ends, the one thing that changed radeon's eviction order between
// 6.12 and today (docs/kernel-model.md, "Linux 6.12 and 6.14+"; kernel/notes/radeon-lru-since-6.14.md).
enum class Stock : uint8_t {
	// ttm_eu_fence_buffer_objects() moves every validated BO to the LRU tail, smallest first,
	// and ttm_eu_backoff_reservation() every reserved one; a BO named twice is validated once
	V6_12,
	// drm_exec (e2b3f7c88cc1, 6.14 to 7.2 at least): drm_exec_fini() only unlocks, so no tail
	// move at all (eviction order: least recently placed); every entry of the list is
	// validated, duplicates too. Proven on 7.2.13's own code (replay-7.2).
	V6_14,
	// With vramlab's two fixes (patches/linux-7.2/): drm_exec's -EALREADY entries off the list
	// (a BO named twice validated and fenced once) and the list moved to the LRU tail, in its
	// sorted order, before drm_exec_fini(); unlike 6.12, a failed submission moves nothing
	V6_14_Fixed,
};
// "6.12", "6.14", "6.14+fix"; parse_stock() also takes "7.2" and "7.2+fix" for the last two
const char *stock_name(Stock s);
Stock parse_stock(const std::string &s); // std::invalid_argument, naming the known ones
// Whether a policy name starts with "KERNEL:" (a kernel's name starts with a digit, a
// policy's never does)
inline bool has_kernel_prefix(const std::string &name)
{
	return !name.empty() && name[0] >= '0' && name[0] <= '9' && name.find(':') != std::string::npos;
}

struct KernelConfig {
	Stock stock = Stock::V6_12;     // the kernel the submission path is that of
	uint64_t vram = 256ull << 20;   // bytes, like radeon.vramlimit (whole pages)
	uint32_t topdown_kib = 0;       // radeon.topdown_threshold (0: off); the series boots 512
	bool bo_score = false;          // radeon.bo_score: key-ordered eviction
	// The bo->priority variant (not in the series; the review's question): TTM's
	// TTM_MAX_BO_PRIORITY LRU lists, the lowest evicted first, a BO's list set from its score
	// at each submission (radeon_bo_priority()). Exclusive with bo_score.
	bool bo_priority = false;
	uint32_t window = 256;          // radeon.bo_score_window, 1..4096
	// The modelled transfer time (docs/kernel-model.md): PCIe bandwidth for moves and for GPU
	// accesses served from GTT, VRAM bandwidth, a fixed cost per move, and how many reads of
	// its whole size at PCIe speed (instead of VRAM speed) one GPU use of a buffer in GTT
	// costs. The defaults are assumptions; a cost file sets all four (kmodel/cost_file.h).
	double pcie_gbps = kDefaultPcieGbps, vram_gbps = kDefaultVramGbps,
	       move_latency_us = kDefaultMoveLatencyUs, gtt_reads_per_use = kDefaultGttReadsPerUse;
	bool per_frame = false;         // keep per-frame move counts
	// Stock 6.12 evicts every evictable BO for a BO larger than VRAM, then fails; the series'
	// first patch (ttm_range_man_alloc() says -E2BIG) does not. true: stock.
	bool flush_for_impossible = false;
	// Window eviction (the range manager's eviction_window, series v4, docs/kernel-model.md):
	// the LRU in eviction order, at most scan_max entries visited (obstacles count too),
	// candidates into a drm_mm scan until they and the free space around them hold the BO;
	// TTM's walk then evicts only those inside that window. Off: TTM's walk alone.
	bool scan = false;
	uint32_t scan_max = 1024;
	// With window eviction: scanned candidates outside the window that no submission used
	// for cold_ms are evicted too (what the walk would have evicted, when it is cold).
	// UINT32_MAX: never.
	uint32_t cold_ms = UINT32_MAX;
	// With window eviction: the lightest window of the span the scan stopped at
	// (window_choice.h: victims weighed by bytes and recency), not its first. Model only.
	bool window_weigh = false;
	bool window_ends = false; // with window_weigh: only the span's two ends (no split)
	// With window eviction: a first scan over the candidates idle at least idle_ms only (the
	// others are obstacles and count toward scan_max), a second over all of them if that finds
	// no window. UINT32_MAX: one scan. Model only.
	uint32_t idle_ms = UINT32_MAX;
	static constexpr uint32_t kDefaultIdleMs = 100; // window-idle without --idle-ms
	// The offline references (clairvoyant.h): the window whose victims are next used latest,
	// over all of VRAM; with admit_oracle a BO needed later than that stays in GTT. They read
	// `future`, which simulate_kernel() computes from the trace. Model only.
	bool window_oracle = false, admit_oracle = false;
	const Future *future = nullptr;
	// The predicted window (reuse.h): the clairvoyant window's rule with each BO's next use
	// predicted from its past reuse intervals, over the first scan_max LRU entries; the walk
	// when they hold no window. radeon.evict_predict in the 7.2 series (issue 50).
	bool window_predict = false;
	// With it: a scan that visits scan_max entries without a window goes on to
	// predict_escalate entries (re-sorting them all) before the walk; 0, or not above
	// scan_max: the walk at once. A window in a longer scan costs less than the walk's
	// evictions one by one (docs/window-predict.md, "Escalation"). radeon's order sets
	// TTM_RANGE_EVICT_ORDER_MAX, the default.
	static constexpr uint32_t kPredictEscalate = 4096;
	uint32_t predict_escalate = kPredictEscalate;
	// With it: pages added to every size in the victims' order (ReuseEstimate::size_divisor())
	uint32_t predict_move_pages = 0;
	// With it: a BO no submission has named in this many submissions since its creation is
	// the first victim (ReuseEstimate::never_used()); 0: off. radeon.evict_unused (the 7.2
	// series' patch 7: radeon_reuse_never_used()).
	uint32_t predict_unused = 0;
	// With it, predicted admission (ReuseEstimate::bypass()): a BO that needs fewer pages per
	// submission than its window's victims stays in GTT where the card's GTT reads are cheap
	// enough;
	// admit_gtt_permille is that card's cost of a GPU read from GTT against a move of the same
	// bytes; 0: this configuration's charge, gtt_reads_per_use (decide sets it per cost band:
	// the charge x the band's factor). radeon.evict_admit in the 7.2 series (issue 50).
	bool admit_predict = false;
	uint32_t admit_gtt_permille = 0;
	// The constants chosen on the corpus, for the folds by game (harness/python/folds.py):
	// the size's exponent in the predicted window's order, in halves (0, 1 = the square root
	// as in the kernel, 2), and the GPU reads from GTT admission's cost test counts (1, 2 as in
	// the kernel). Model only.
	uint32_t predict_size_exp2 = 1, admit_reads = 2;
	// And the gap prediction's (reuse.h): an interval over this many times the brief mean is a
	// gap (4 as in the kernel; 2-8), and the counter's value from which the gap prediction is
	// followed (1 as in the kernel; 0: always, 4: never). Model only.
	uint32_t predict_gap_ratio = 4, predict_gap_trust = 1;
	// An overdue BO idle for longer than its bursts' intervals is predicted one gap after its
	// last use (true, as in the kernel) or as far ahead as it has been idle (reuse.h). Model
	// only.
	bool predict_overdue_gap = true;
	// The plain prediction's (reuse.h): the uses before a BO's mean interval is its period (3
	// as in the kernel; 2-8), and how many times shorter than that mean a last interval is
	// taken for a change of regime (64 as in the kernel; a power of two, 4-1024). Model only.
	uint32_t predict_trusted = ReuseEstimate::kTrusted;
	uint32_t predict_regime = 1u << ReuseEstimate::kRegimeShift;
	// The predictor's tunables above, as each BO's estimate keeps them
	ReuseEstimate::Tunables reuse_tunables() const
	{
		return {.gap_ratio = uint8_t(predict_gap_ratio),
		        .gap_trust = uint8_t(predict_gap_trust),
		        .overdue_gap = predict_overdue_gap,
		        .trusted = uint8_t(predict_trusted),
		        .regime_shift = uint8_t(std::countr_zero(predict_regime))};
	}
	// A predicted scan that finds no window after meeting an obstacle falls back to the walk
	// instead of evicting nothing: measured on 16 boards and not kept (apitrace's live 12 MiB
	// tail; docs/window-predict.md). Model only.
	bool predict_nofit_walk = false;
	// A predicted scan that finds no window because of the submission's own BOs scans again
	// with them as candidates, where the list's BOs that want VRAM fit in it beside the pinned
	// ones, so that a frame whose own BOs lie scattered can pack them again
	// (docs/window-predict.md, "Repack"). Model only.
	bool predict_repack = false;
	// Told every decision of the clairvoyant window (labels for learning it); the model then
	// also keeps each BO's create time, use count and returns from GTT.
	OracleObserver *observer = nullptr;
	// The thrash guard (thrash_guard.h): a BO evicted and brought back quickly, several times
	// in a row, stays resident for a while. Model only.
	bool guard = false;
	ThrashGuardParams guard_params;
	// The guard's bookkeeping without the guard (decide): the run is the guard's twin's as
	// long as KernelResult::guard_observed stays 0. Model only.
	bool guard_observe = false;
	// The time-based move budget (ttm_move_budget, amdgpu's design): budget_mbps MB/s of
	// submission time (1 MB/s = 1 byte/us) accumulate, at most budget_cap_ms of them, and
	// every byte moved is debited (debt allowed); a BO is moved to its preferred domain only
	// while the submission's moves are under the budget. Off: radeon's per-submission threshold.
	bool budget = false;
	uint32_t budget_mbps = 1000, budget_cap_ms = 200;
	// Kernel BOs pinned in VRAM at load, in this order, before any user BO (bytes each): the
	// VGA stolen memory, the fbdev scanout, UVD's firmware (ensemble.h). Never evicted.
	std::vector<uint64_t> pinned;
	uint32_t timeline_every = 0;    // holes and swaps every N operations, FRAMEs not counted
	uint32_t check_every = 0;       // check invariants every N operations (tests)
};

// TTM memory types as the series' debugfs radeon_mm_stats counts them.
enum KernelMem : uint8_t { MemSystem = 0, MemGtt = 1, MemVram = 2 };

struct KernelCounters {
	uint64_t evictions = 0, evicted_bytes = 0, moves_in = 0, bytes_in = 0, moves_out = 0,
	         bytes_out = 0;
	bool operator==(const KernelCounters &) const = default;
};

struct KernelFrame {
	uint64_t moves = 0, bytes = 0;     // between VRAM and GTT, either way
	uint64_t gtt_accesses = 0, gtt_access_bytes = 0;
	double transfer_us = 0;            // the run's transfer-time terms, for this frame's share
};

struct KernelResult {
	KernelCounters mem[3];             // system, gtt, vram (debugfs radeon_mm_stats)
	uint64_t cs = 0, cs_rejected = 0;  // submissions replayed / refused (-EINVAL)
	uint64_t creates = 0, creates_refused = 0, cpu_maps = 0, destroys = 0, frames = 0;
	uint64_t threshold_cs = 0;         // CS where the move threshold kept a BO in place
	uint64_t threshold_bos = 0;        // BOs it kept in place
	// window eviction (debugfs radeon_mm_stats): scans that found a window, scans that fell
	// back to the walk (candidate bound), scans that found none with every candidate (no
	// eviction: the BO cannot fit), pages the walk would have evicted and the window did not,
	// cold candidates evicted beside a window
	uint64_t windows = 0, window_fallbacks = 0, window_nofit = 0, window_saved_pages = 0,
	         window_cold = 0;
	uint64_t window_escalations = 0;   // predicted scans that went on past scan_max
	// predict_repack: scans again with the submission's own BOs, and own BOs those evicted
	uint64_t window_repack_scans = 0, window_repacks = 0;
	uint64_t impossible_noevict = 0;   // allocations too large for VRAM, refused without eviction
	// ttm_bo_evict_alloc() calls, and those for a BO larger than VRAM: every eviction rule
	// (fit, window, keys, guard, oracle) acts there and nowhere else, and the fit rule only on
	// the second kind, so runs that never get there are the same run (decide copies them)
	uint64_t evict_allocs = 0, evict_allocs_too_big = 0;
	uint64_t window_idle = 0;          // windows the idle-only scan found (idle_ms)
	uint64_t admit_bypasses = 0;       // BOs clairvoyant admission left in GTT
	uint64_t guards = 0, guard_refusals = 0; // BOs the thrash guard kept; cap reached
	// Where decide may copy a run instead of replaying it: with guard_observe, the BOs the
	// guard would have kept (not 0: the guarded run differs from here on); with predicted
	// admission, the decisions where its cost test was asked (0: every GTT charge gives this
	// run), and the GTT charges (KernelConfig::admit_gtt_permille) at which each of those
	// tests gives the answer it gave here: the run at any charge in [from, to] is this run
	uint64_t guard_observed = 0, admit_cost_tests = 0;
	uint64_t admit_same_from = 1, admit_same_to = UINT32_MAX;
	// The predicted and the clairvoyant window's gathers that went on from the last one of
	// the same submission instead of starting over, and of those the ones that read the BOs
	// added at the tail since (kernel_model.cc, gather_sorted()); the model's speed only
	uint64_t keep_resumes = 0, keep_appended = 0;
	uint64_t gtt_accesses = 0, gtt_access_bytes = 0; // CS buffers in GTT after validation
	uint64_t stamp = 0;                // rdev->bo_use_stamp at the end
	uint64_t digest = 0;               // FNV-1a of every live BO's (id, mem type, start page)
	uint64_t peak_vram_pages = 0;
	std::vector<KernelFrame> per_frame;
	Timeline timeline;                 // with KernelConfig::timeline_every (result() closes it)

	// Derived figures.
	uint64_t evictions() const { return mem[MemVram].evictions; }
	uint64_t bytes_to_vram() const;   // GTT -> VRAM
	uint64_t bytes_from_vram() const { return mem[MemVram].bytes_out; }
	uint64_t moves() const;           // between VRAM and GTT, either way
	double transfer_us = 0;           // modelled transfer time
	uint64_t vram_in_from_gtt = 0, vram_in_from_gtt_bytes = 0;
};

struct Submissions; // below

// The model driven one operation at a time, as a live program drives the kernel (the virtual
// radeon) or a trace replays it (simulate_kernel()). Buffer ids are the trace's: unique, never
// reused, learnt at their create; domains are v2 domain bits (event.h). Operations on ids never
// created are what the kernel does with an unknown handle: a CS naming one is rejected, a map or
// destroy of one does nothing.
class KernelModel {
public:
	explicit KernelModel(const KernelConfig &c, size_t expected_bos = 0);
	~KernelModel();
	KernelModel(KernelModel &&) noexcept;
	KernelModel &operator=(KernelModel &&) noexcept;

	// radeon_gem_create_ioctl(); false: refused (zero size, or no room in VRAM or GTT)
	bool create(uint32_t id, uint64_t size, uint8_t domain);
	// radeon_cs_ioctl() at time_us (the move budget's clock; traces give it per submission)
	void submit(const CsReloc *relocs, uint32_t n, bool scores, uint64_t time_us = 0);
	void cpu_map(uint32_t id);
	void destroy(uint32_t id);
	void frame();
	// The figures so far (digest and transfer time computed now); the model can go on.
	const KernelResult &result();
	// The counters and transfer time so far, without the placement digest and the invariant
	// checks (cheap enough to call often: the trainer's early stop).
	const KernelResult &running();

private:
	class Impl;
	std::unique_ptr<Impl> p_;
	// the replay loop drives Impl directly: one call per operation, not two
	template <class Submit>
	friend KernelResult replay_kernel(const KernelTrace &t, const KernelConfig &c, Submit submit);
};

// Every submission of a trace as radeon's buffer list, built once and shared by all the runs
// that replay the trace (decide: every size, policy and board of a trace and period). What
// radeon_cs_parser_relocs() and ttm_eu_reserve_buffers() make of a relocation list depends on
// the trace alone: the order (radeon_cs_buckets_get_list(): highest priority first, reloc
// order within one), which entries name a BO already on the list (the duplicates), each
// entry's domains, and the order of the tail moves (radeon_cs_parser_fini()'s list_sort() by
// size, stable). A run keeps what depends on its state: unknown handles, reservations, where
// each BO is, keys.
struct Submissions {
	struct Entry {
		uint32_t id;
		uint32_t pos;                // its relocation: relocs[cs.first + pos] (the score)
		uint8_t preferred, allowed; // v2 domain bits
		bool dup;                    // named earlier on the list: reserved once
	};
	struct Cs {
		uint32_t tail = 0; // tail[tail .. tail + head): the reserved BOs in tail-move order
		uint32_t head = 0;
		bool refused = false; // whatever the state: a relocation asks for the CPU domain
		                      // (-EINVAL) or names an id the trace never creates (-ENOENT)
	};
	std::vector<Entry> list;    // per CS, at the CS's first relocation: n entries in list order
	std::vector<uint32_t> tail; // BO ids
	std::vector<Cs> cs;
	size_t relocs = 0; // the trace's relocation count (a check that they belong together)
};
// For t, or a copy of t with other scores (decide's network and oracle scores).
Submissions prepare_submissions(const KernelTrace &t);

// One run, each submission's list built as the run reaches it (a live program's path).
KernelResult simulate_kernel(const KernelTrace &t, const KernelConfig &c);
// The same run with t's lists prepared beforehand (s = prepare_submissions(t)): the same
// result, about 1.3x faster on penumbra1; preparing costs about 0.6 of a run, so it pays from
// a few runs of a trace on.
// With `scores` (one per relocation of t), the run of t with those scores in every submission
// (decide's network and oracle scores: a vector per size, not a copy of the trace).
KernelResult simulate_kernel(const KernelTrace &t, const Submissions &s, const KernelConfig &c,
                             const std::vector<uint32_t> *scores = nullptr);

// Placement x eviction, as radeon.topdown_threshold and radeon.bo_score set them
// (kernel_policies.cc): lru, minmax, key, minmax+key.
struct KernelPolicy {
	const char *name, *summary;
	bool topdown, key; // placement: min-max at the threshold; eviction: by key
	bool fit = false;  // no eviction for a BO larger than VRAM (the series; stock flushes)
	bool scan = false, budget = false; // window eviction; the time-based move budget
	bool prio = false; // eviction by bo->priority set from the scores (the variant)
	bool weigh = false; // window eviction takes the lightest window (window_choice.h)
	bool ends = false;  // ... of the two at the span's ends only
	bool idle = false;   // window eviction scans idle candidates first (KernelConfig::idle_ms)
	bool oracle = false; // the clairvoyant window (clairvoyant.h)
	bool admit = false;  // ... and clairvoyant admission
	bool guard = false;  // the thrash guard (thrash_guard.h)
	bool predict = false; // the predicted window (reuse.h)
	bool predict_admit = false; // ... and predicted admission
	bool scored() const { return key || prio; } // eviction order uses the scores
	// Every rule flag, names and summaries aside: two policies with equal rules() are one
	// policy (a new flag goes here)
	auto rules() const
	{
		return std::tie(topdown, key, fit, scan, budget, prio, weigh, ends, idle, oracle, admit,
		                guard, predict, predict_admit);
	}
	// Its decisions read the card's GTT read cost (KernelConfig::admit_gtt_permille): decide
	// runs it once per GTT charge of its cost bands
	bool reads_gtt_cost() const { return predict_admit; }
	// Acts only in ttm_bo_evict_alloc() (the model's evict_alloc()): the rule's runs are its
	// stock twin's wherever that run never got there (KernelResult::evict_allocs); the fit
	// rule alone acts there only for a BO larger than VRAM (evict_allocs_too_big)
	bool eviction_rule() const { return fit || beyond_fit(); }
	bool fit_only() const { return fit && !beyond_fit(); }
	bool beyond_fit() const
	{
		return key || prio || scan || weigh || ends || idle || oracle || admit || guard ||
		       predict || predict_admit;
	}
};
const std::vector<KernelPolicy> &kernel_policies();
const KernelPolicy &find_kernel_policy(const std::string &name); // std::invalid_argument

// A kernel-model policy name, with an optional "@SIZE" threshold for its min-max placement
// ("minmax@256K"): the policy and the radeon.topdown_threshold it runs with (KiB).
// std::invalid_argument for an unknown name or a threshold the kernel would refuse.
// A "KERNEL:" prefix (6.12, 6.14, 6.14+fix: Stock) runs the policy on that kernel's submission
// path ("6.14:lru" is stock 6.14, "6.14+fix:window" window eviction on the fixed 6.14).
struct KernelChoice {
	const KernelPolicy *policy;
	uint32_t topdown_kib;
	Stock stock = Stock::V6_12;
};
KernelChoice kernel_choice(const std::string &name, uint32_t default_kib);
// The configuration `base` (VRAM, costs, the mechanisms' parameters) running choice k.
void apply_choice(const KernelChoice &k, KernelConfig &c);

// The modelled transfer time (docs/kernel-model.md) of moved bytes, moves and bytes the GPU
// read from GTT, the GTT term charged c.gtt_reads_per_use reads and scaled by gtt_factor (a
// cost band around the configuration's charge; 1 = that charge), a move's fixed cost
// move_us (< 0: c's). The one formula: runs, frames and the cost bands of ensemble.h all
// use it.
inline double transfer_time_us(uint64_t moved_bytes, uint64_t moves, uint64_t gtt_bytes,
                               double pcie_gbps, const KernelConfig &c, double gtt_factor = 1,
                               double move_us = -1)
{
	const double pcie = pcie_gbps * 1e3, vram = c.vram_gbps * 1e3; // bytes per us
	const double latency = move_us < 0 ? c.move_latency_us : move_us;
	// gtt_factor * 1.0 is gtt_factor: with the default charge the bits are those of before
	return double(moved_bytes) / pcie + double(moves) * latency +
	       gtt_factor * c.gtt_reads_per_use * double(gtt_bytes) * (1.0 / pcie - 1.0 / vram);
}

// Predicted admission's g (KernelConfig::admit_gtt_permille): the card's cost of one GPU read
// from GTT against a move of the same bytes, per mille, at a cost band's factor on c's GTT
// charge; at least 1, since 0 stands for c's own charge
inline uint32_t gtt_read_permille(const KernelConfig &c, double gtt_factor = 1)
{
	return uint32_t(std::max(1L, std::lround(1000 * c.gtt_reads_per_use * gtt_factor)));
}

// The bo->priority variant: a submission's score puts the BO in list score >> 30 of TTM's
// four; an unscored BO (neutral score) stays in the top one, so that scores only bring
// eviction forward, as with the key.
constexpr uint32_t kTtmPriorities = 4; // TTM_MAX_BO_PRIORITY
inline uint32_t radeon_bo_priority(uint32_t score) { return score >> 30; }

// The series' key arithmetic (radeon_bo_evict_key()).
inline uint64_t radeon_evict_key(uint64_t stamp, uint32_t score, uint32_t window)
{
	return stamp - ((uint64_t(kScoreNeutral - score) * window) >> 32);
}

} // namespace vramlab
