// The kernel-only predictor of issue 50 (window-predict): when will a BO be used next, from
// what radeon sees at submission alone (no uapi, any Mesa). The clock is the device's
// submission count: the traces' times have millisecond resolution, and a frame's submissions
// share one, so time cannot order the BOs a frame names one after the other. Per BO, an
// exponentially weighted mean of the intervals between the submissions that named it (1/4
// weight to the newest, as TCP's RTT estimate); its next use is predicted one period after the
// last, and a BO idle longer than its period (or never reused, counting from its creation) is
// predicted to stay idle as long again, so that among those the order is the LRU's. A BO named
// only twice has one interval, which says little (bastion1's 12 MiB buffer came back once after
// 40,162 submissions, then after 35), so until its second interval it is predicted as an
// overdue one (at 256 MiB: dub1 +21.8% -> -5.2%, docs/window-predict.md). When the last
// interval is under 1/64 of the mean, it is the period: one long gap (a ring of render targets
// idle through a level change) keeps the mean high for dozens of uses after the BO is busy
// again (stargazer1 at 256 MiB: +50% -> -2.2%). A bound of a quarter, or the shorter of the
// two always, took it for bursts of use too and lost 3-5 points at 64 MiB. Used as
// the clairvoyant window's order (clairvoyant.h), latest predicted first: under a loop that
// does not fit, every period is about a frame and the most recently used go first, as
// Belady's victims do.
//
// Bursts (2026-11-30): many BOs are used a few times a short interval apart, then not for a
// long gap, and again (spin1: four or five uses 20 submissions apart, then 120-150 idle).
// The mean above says "soon" at a burst's end and "overdue, as long again" early in the gap,
// where Belady's victims are exactly those BOs. So each BO also keeps the mean of its brief
// intervals, the mean of its gaps (an interval over kGapRatio times the brief mean) and of
// its uses a burst; once a burst has had its usual uses, the next use is predicted one gap
// after the last. Which of the two predictions a BO follows is learnt per BO, as a branch
// predictor chooses between two: at each use that ends a burst, the one whose interval was
// nearer the true one (by ratio) moves a 2-bit counter. The gap prediction is followed when
// the counter is at least kGapTrust and the BO is within its gap; the two constants are
// what folds by game choose (make folds-gap). Clean corpus, 16 boards, against 6.12 at x1:
// 256 MiB -9.3% -> -12.9%, 64 MiB -20.4% -> -26.3% (docs/window-predict.md, "Bursts").
// 34 bytes of state per BO (40 with the model's two tunables and padding; radeon's 40 hold
// the size's root instead).
//
// The candidates are ordered by victim_key(): the predicted distance to the next use divided
// by the square root of the BO's size, so that of two BOs predicted back equally late the
// smaller goes first, and a large one only when it is predicted back much later. Without it
// the rule evicted fewer but larger BOs that came back (docs/window-predict.md); the exponent
// 1/2 was chosen among 0, 1/2 and 1 on the shared corpus.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace vramlab {

struct ReuseEstimate {
	static constexpr uint32_t kTrusted = 3; // uses (two intervals) before the period counts
	static constexpr uint8_t kRegimeShift = 6; // a last interval 2^this (64) times shorter is the period
	static constexpr uint8_t kGapRatio = 4; // an interval this much over the brief mean is a gap
	static constexpr uint32_t kGapsTrusted = 2; // gaps before the gap prediction counts
	static constexpr uint8_t kGapTrust = 1; // the counter's value that follows it (4: never)
	static constexpr bool kOverdueGap = true; // predicted_next()'s overdue case (folds.py)
	uint64_t last = 0;   // clock at the last use, or at creation before any
	uint32_t period = 0; // 0: not reused yet
	uint32_t uses = 0;
	uint32_t recent = 0; // the last interval
	uint32_t brief = 0;  // mean of the intervals within bursts; 0: none yet
	uint32_t gap = 0;    // mean of the gaps between bursts
	uint16_t run = 0;    // uses since the last gap (this burst's)
	uint16_t burst = 0;  // mean uses a burst, in 1/16ths
	uint8_t gaps = 0;    // gaps seen, up to kGapsTrusted
	uint8_t trust = 0;   // 0-3: the gap prediction nearer (up) or the period's (down)
	// The model's tunables for the folds by game (harness/python/folds.py), kept per BO (in
	// the padding: 40 bytes either way) so that every call has the kernel's shape; radeon has
	// the constants
	uint8_t gap_ratio = kGapRatio, gap_trust = kGapTrust;
	uint8_t overdue_gap = kOverdueGap; // an overdue BO idle past a burst's interval: one gap
	uint8_t trusted = kTrusted, regime_shift = kRegimeShift;

	// The tunables, as KernelConfig holds them
	struct Tunables {
		uint8_t gap_ratio = kGapRatio, gap_trust = kGapTrust;
		bool overdue_gap = kOverdueGap;
		uint8_t trusted = kTrusted, regime_shift = kRegimeShift;
	};
	void created(uint64_t now) { created(now, Tunables{}); }
	void created(uint64_t now, const Tunables &t)
	{
		*this = {.last = now,
		         .gap_ratio = t.gap_ratio,
		         .gap_trust = t.gap_trust,
		         .overdue_gap = t.overdue_gap,
		         .trusted = t.trusted,
		         .regime_shift = t.regime_shift};
	}
	// A submission at `now` names the BO
	void used(uint64_t now)
	{
		if (uses > 0) {
			const uint64_t interval = std::min<uint64_t>(now - last, UINT32_MAX);
			if (burst_over()) // which prediction was nearer, where the two differ
				learn(interval);
			period = mean(period, interval);
			recent = uint32_t(interval);
			if (brief && uses >= trusted && interval > uint64_t(gap_ratio) * brief) {
				gap = mean(gap, interval);
				burst = uint16_t(mean(burst, run * 16u));
				run = 1;
				gaps += gaps < kGapsTrusted;
			} else {
				brief = mean(brief, interval);
				run += run < kMaxRun;
			}
		} else {
			run = 1;
		}
		last = now;
		uses += uses < UINT32_MAX;
	}
	// Idle for longer than an interval within a burst can be, not yet a gap's mean
	bool in_gap(uint64_t idle) const
	{
		return gaps >= kGapsTrusted && idle > uint64_t(gap_ratio) * brief && idle <= gap;
	}
	// This burst has had its usual uses: the gap prediction applies (when trusted)
	bool burst_over() const
	{
		return gaps >= kGapsTrusted && uint32_t(run) * 16 + 8 >= burst;
	}
	// The candidates' order (largest first): now + the predicted distance x 16 / sqrt(pages);
	// integer arithmetic, as the kernel's int_sqrt64() would do it. size_exp2 is the size's
	// exponent in halves (1, the default: the square root; 0: size ignored; 2: the size
	// itself), the alternatives the choice was made among (`harness/python/folds.py`)
	// move_pages (0: none) is added to every size: a move's fixed cost in pages (the
	// model's 20 us at 8 GB/s is 40), so that a window of many small BOs is not taken for
	// as cheap as its bytes alone (docs/window-predict.md, "Escalation")
	// unused (0: off) makes a BO that no submission has named in that many submissions since
	// its creation the first victim (never_used())
	uint64_t victim_key(uint64_t now, uint64_t pages, uint32_t size_exp2 = 1,
	                    uint32_t move_pages = 0, uint32_t unused = 0) const
	{
		return victim_key_over(now, size_exp2, size_divisor(pages, size_exp2, move_pages),
		                       unused);
	}
	// victim_key() in two steps: the divisor depends on the size alone, and the kernel model
	// keeps it per BO instead of taking a square root per candidate and eviction
	static uint64_t size_divisor(uint64_t pages, uint32_t size_exp2, uint32_t move_pages = 0)
	{
		if (size_exp2 == 0)
			return 1;
		pages += move_pages;
		return std::max<uint64_t>(size_exp2 == 2 ? pages : isqrt(pages << 16), 1);
	}
	uint64_t victim_key_over(uint64_t now, uint32_t size_exp2, uint64_t divisor,
	                         uint32_t unused = 0) const
	{
		if (never_used(now, unused))
			return kNeverUsedKey;
		const uint64_t distance = predicted_next(now) - now;
		return now + distance * (size_exp2 == 1 ? 4096 : 16) / divisor;
	}
	// A BO created `unused` or more submissions ago that no submission has named yet (0:
	// off): predicted never to be used, so it goes before every BO with a prediction, and
	// among such BOs in LRU order (the key ties). Without it such a BO is predicted to stay
	// idle as long again, as any overdue one, and the square root of its size keeps a large
	// one behind the small BOs in use: supertuxkart1 at 256 MiB took 3-19 BOs of 1-86 pages
	// a window, which came back, where one BO of up to 3 MiB that it had never named would
	// do (142 moves on one board, 6 with the rule; docs/window-predict.md, "Never named").
	// A BO just created is about to be named: the threshold keeps it out (the creation fix,
	// docs/window-predict.md "The rule"). radeon: radeon_reuse_never_used() (its key U64_MAX,
	// as TTM's ghosts have), radeon.evict_unused.
	// radeon writes it now >= last + unused: the same wherever last <= now, which the model
	// always has; in the kernel a stale read racing a submission may not, and that form
	// then says "not yet" rather than wrapping.
	static constexpr uint64_t kNeverUsedKey = UINT64_MAX;
	bool never_used(uint64_t now, uint32_t unused) const
	{
		return unused && uses == 0 && now - last >= unused;
	}
	static uint64_t isqrt(uint64_t x)
	{
		uint64_t r = uint64_t(std::sqrt(double(x)));
		while (r * r > x)
			r--;
		while ((r + 1) * (r + 1) <= x)
			r++;
		return r;
	}
	// Predicted admission (window-predict+admit). A BO in GTT named at `now` stays in GTT
	// when two tests pass:
	// - Rate: counting this use, the pages it needs per submission until its predicted next
	//   use are fewer than its window's victims' (`victims_rate`: the sum of rate() over
	//   them). What stays out of VRAM is what is needed at the lowest rate, its size counted.
	//   Belady's bypass (back later than every victim) ignored size: it left a large BO out
	//   to keep smaller ones in (trine2_1 +13% at 64 MiB, x1; docs/window-predict.md).
	// - Cost: two GPU reads of it from GTT cost less than moving it in and its victims out
	//   and back: 2 g pages < pages + 2 victim_pages, g = gtt_permille / 1000 the card's cost
	//   of one read from GTT against one move of the same bytes. Two reads, not one: a BO
	//   left in GTT is read from there at least until the next use asks again (the weight was
	//   chosen on the corpus among 1 and 2).
	// `reads` is that weight (2, the default; 1 the alternative).
	bool bypass(uint64_t now, uint64_t pages, uint64_t victims_rate, uint64_t victim_pages,
	            uint32_t gtt_permille, uint32_t reads = 2) const
	{
		return rate_test(now, pages, victims_rate) &&
		       cost_test(pages, victim_pages, gtt_permille, reads);
	}
	// The two tests apart (the kernel model counts how often the cost test is asked)
	bool rate_test(uint64_t now, uint64_t pages, uint64_t victims_rate) const
	{
		ReuseEstimate e = *this;
		e.used(now);
		return rate(pages, e.predicted_next(now) - now) < victims_rate;
	}
	static bool cost_test(uint64_t pages, uint64_t victim_pages, uint32_t gtt_permille,
	                      uint32_t reads)
	{
		return reads * uint64_t(gtt_permille) * pages < 1000 * (pages + 2 * victim_pages);
	}
	// The largest gtt_permille at which cost_test() passes (it fails from one more on):
	// the charges that give a decision the same answer
	static uint64_t cost_test_last_pass(uint64_t pages, uint64_t victim_pages, uint32_t reads)
	{
		return (1000 * (pages + 2 * victim_pages) - 1) / (reads * std::max<uint64_t>(pages, 1));
	}
	// Narrows [from, to], the charges at which every cost test so far gives its answer, by
	// one more test, which answered `stays`
	static void narrow_same_charges(uint64_t pages, uint64_t victim_pages, uint32_t reads,
	                                bool stays, uint64_t &from, uint64_t &to)
	{
		const uint64_t last = cost_test_last_pass(pages, victim_pages, reads);
		if (stays)
			to = std::min(to, last);
		else
			from = std::max(from, last + 1);
	}
	// Pages per submission, in 1/65536ths, of a BO predicted back in `distance` submissions
	static uint64_t rate(uint64_t pages, uint64_t distance)
	{
		return (pages << 16) / std::max<uint64_t>(distance, 1);
	}
	// The predicted clock of the next use, at `now` (later = a better victim)
	uint64_t predicted_next(uint64_t now) const
	{
		const uint64_t idle = now - last;
		if (trust >= gap_trust && burst_over() && idle <= gap)
			return last + gap;
		const uint64_t p = period_now();
		if (uses < trusted || p == 0)
			return now + idle;
		if (idle > p) // overdue; idle past a burst's interval, the burst has ended
			return overdue_gap && in_gap(idle) ? last + gap : now + idle;
		return last + p;
	}

private:
	static constexpr uint16_t kMaxRun = 1000; // a burst's uses counted (burst stays in u16)
	// the means: 1/4 to the newest value, the first value as it is (0: none yet)
	static uint32_t mean(uint32_t m, uint64_t x)
	{
		return uint32_t(m == 0 ? x : (3 * uint64_t(m) + x) / 4);
	}
	// the period the plain prediction uses: the last interval after a change of regime
	uint64_t period_now() const
	{
		return (uint64_t(recent) << regime_shift) < period ? recent : period;
	}
	// At a use after a burst's end: the gap prediction and the period's, whichever was nearer
	// the true interval by ratio, moves the counter its way (no move when they agree or the
	// period says nothing)
	void learn(uint64_t interval)
	{
		const uint64_t p = uses < trusted ? 0 : period_now();
		if (p == 0 || p == gap)
			return;
		if (nearer(gap, p, interval))
			trust += trust < 3;
		else
			trust -= trust > 0;
	}
	// a nearer x than b: max(a, x) / min(a, x) < max(b, x) / min(b, x), without dividing
	static bool nearer(uint64_t a, uint64_t b, uint64_t x)
	{
		const uint64_t a_hi = std::max(a, x), a_lo = std::max<uint64_t>(std::min(a, x), 1);
		const uint64_t b_hi = std::max(b, x), b_lo = std::max<uint64_t>(std::min(b, x), 1);
		return a_hi * b_lo < b_hi * a_lo;
	}
};

} // namespace vramlab
