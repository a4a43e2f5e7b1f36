// The kernel model's rules of issue 36, each on its own: the clairvoyant window and admission
// (kmodel/clairvoyant.h), the thrash guard (kmodel/thrash_guard.h) and window-idle, on inputs
// whose outcome can be worked out on paper.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "kernel_builder.h"
#include "kmodel/clairvoyant.h"
#include "kmodel/kernel_model.h"
#include "kmodel/reuse.h"
#include "kmodel/thrash_guard.h"

namespace vramlab {
namespace {

constexpr uint64_t kNever = Future::kNever;

TEST(ClairvoyantWindow, BeladysOrderPutsTheBufferNeededLastFirst)
{
	std::vector<BeladyCandidate> c = {{5, 0, 10}, {kNever, 3, 11}, {9, 1, 12}, {kNever, 2, 13}};
	std::sort(c.begin(), c.end(), belady_before);
	std::vector<uint32_t> ids;
	for (const auto &x : c)
		ids.push_back(x.id);
	// never used again first (LRU among them), then the latest next use
	EXPECT_EQ(ids, (std::vector<uint32_t>{13, 11, 12, 10}));
}

// The radix sort the window scans use gives std::sort's order: ties, never used again, keys
// next to 2^64 - 1, ranges too wide for the radix key (the comparison sort's fallback), lists
// at and past the small-list cut, the 8-bit digit boundaries
TEST(ClairvoyantWindow, SortBeladyIsTheComparisonSort)
{
	std::mt19937_64 rng(49);
	BeladyScratch scratch;
	const uint64_t ranges[] = {1, 3, 255, 256, 65537, uint64_t(1) << 40, uint64_t(1) << 55,
	                           kNever - 1};
	int cases = 0;
	for (size_t n : {0, 1, 2, 31, 32, 33, 100, 257, 1000, 5000})
		for (uint64_t range : ranges)
			for (int kind = 0; kind < 4; kind++) {
				// kind 0: plain; 1: some never used again; 2: next to 2^64 - 1; 3: all never
				std::vector<BeladyCandidate> c;
				uint32_t rank = uint32_t(rng() % 7);
				for (size_t i = 0; i < n; i++) {
					uint64_t k = rng() % range;
					if (kind == 1 && rng() % 5 == 0)
						k = kNever;
					if (kind == 2)
						k = kNever - 1 - k;
					if (kind == 3)
						k = kNever;
					c.push_back({k, rank, uint32_t(i * 7919 % 100003)});
					rank += 1 + uint32_t(rng() % 3);
				}
				std::vector<BeladyCandidate> want = c;
				std::sort(want.begin(), want.end(), belady_before);
				sort_belady(c, scratch);
				ASSERT_EQ(c.size(), want.size());
				for (size_t i = 0; i < n; i++)
					ASSERT_TRUE(c[i].id == want[i].id && c[i].rank == want[i].rank &&
					            c[i].next_use == want[i].next_use)
					        << "n " << n << " range " << range << " kind " << kind << " at " << i;
				cases++;
			}
	EXPECT_EQ(cases, 320);
	// the tie rule needs the candidates in rank order, as the walk gathers them
	std::vector<BeladyCandidate> c(40, BeladyCandidate{1, 0, 0});
	for (uint32_t i = 0; i < 40; i++)
		c[i].rank = 40 - i;
	EXPECT_THROW(sort_belady(c, scratch), std::logic_error);
}

TEST(ClairvoyantWindow, TheFutureOfARelocationIsItsBufferNextSubmission)
{
	Builder b;
	const auto x = b.create(4), y = b.create(4);
	b.cs({{x, false}});
	b.cs({{x, false}, {x, true}}); // named twice: both are next used at submission 3
	b.cs({{y, false}});
	b.cs({{x, false}});
	const auto z = b.create(4); // never named, destroyed after submission 3: "used" at 4
	b.destroy(y);               // y's last use was submission 2: its destroy is next, at 4
	b.destroy(z);
	const Future f = trace_future(b.t);
	EXPECT_EQ(f.reloc_next, (std::vector<uint64_t>{1, 3, 3, 4, kNever}));
	EXPECT_EQ(f.first_use, (std::vector<uint64_t>{0, 2, 4}));
}


// [a][b][c][d] fill 1 MiB, used in that order; e needs 256 KiB; a, b and d are used again
// soon, c last: LRU evicts a (and then b for a, ...), the clairvoyant window c.
TEST(ClairvoyantWindow, EvictsTheBufferNeededLastAndAdmissionLeavesAColdOneInGtt)
{
	Builder b;
	b.oracle_example();
	KernelConfig k = checked_config(1024);
	const KernelResult lru = simulate_kernel(b.t, k);
	k.scan = k.window_oracle = true;
	const KernelResult oracle = simulate_kernel(b.t, k);
	EXPECT_GT(lru.evictions(), 2u);
	// c for e, then e (never used) for c
	EXPECT_EQ(oracle.evictions(), 2u);
	k.admit_oracle = true; // e is needed later than c: it stays in GTT, nothing moves
	const KernelResult admit = simulate_kernel(b.t, k);
	EXPECT_EQ(admit.evictions(), 0u);
	EXPECT_EQ(admit.admit_bypasses, 1u);
	// a live model has no future: refused, not silently run as something else
	EXPECT_THROW(KernelModel m(k), std::invalid_argument);
}

// The predictor of window-predict: a period once reused, the next use one period after the
// last, and past it (or before any reuse) as far ahead as the BO has been idle
TEST(ReuseEstimate, PredictsOnePeriodAfterTheLastUseUntilOverdue)
{
	ReuseEstimate r;
	r.created(10);
	EXPECT_EQ(r.predicted_next(20), 30u); // idle since its creation
	r.used(12);
	EXPECT_EQ(r.period, 0u);
	EXPECT_EQ(r.predicted_next(15), 18u);
	r.used(16);
	EXPECT_EQ(r.period, 4u);
	EXPECT_EQ(r.predicted_next(20), 24u); // one interval is not trusted yet: idle 4, as long again
	r.used(24);                           // interval 8: (3 x 4 + 8) / 4
	EXPECT_EQ(r.period, 5u);
	EXPECT_EQ(r.uses, 3u);
	EXPECT_EQ(r.predicted_next(26), 29u); // two intervals: due at 24 + 5
	EXPECT_EQ(r.predicted_next(29), 29u);
	EXPECT_EQ(r.predicted_next(30), 36u); // overdue: idle 6, as long again
	// the order: the distance x 16 / sqrt(pages); four times the pages halve it
	EXPECT_EQ(r.victim_key(26, 1), 26u + 3 * 16);
	EXPECT_EQ(r.victim_key(26, 4), 26u + 3 * 8);
	EXPECT_EQ(r.victim_key(26, 9), 26u + 3 * 16 / 3);
	// the other exponents folds.py weighs: none (size ignored) and the size itself
	EXPECT_EQ(r.victim_key(26, 9, 0), 26u + 3 * 16);
	EXPECT_EQ(r.victim_key(26, 4, 2), 26u + 3 * 16 / 4);
	// a move's fixed cost in pages counts with the size: 1 + 8 pages weigh as 9
	EXPECT_EQ(r.victim_key(26, 1, 1, 8), 26u + 3 * 16 / 3);
	EXPECT_EQ(r.victim_key(26, 1, 2, 3), 26u + 3 * 16 / 4);
	EXPECT_EQ(r.victim_key(26, 1, 0, 8), 26u + 3 * 16); // size ignored: so is the move
	EXPECT_EQ(ReuseEstimate::isqrt((1ull << 52) + 1), 1ull << 26);
	EXPECT_EQ(ReuseEstimate::isqrt((1ull << 52) - 1), (1ull << 26) - 1);
}

// A ring of render targets idle for a long stretch (a level change) and then used every few
// submissions again: the mean still remembers the gap for dozens of uses, the last interval
// does not. stargazer1 at 256 MiB: +50% against stock with the mean alone, -2.2% with both.
TEST(ReuseEstimate, OneLongGapDoesNotHideAShortRecentInterval)
{
	// overdue as far as idle: with the shipped overdue rule an idle 17 is a gap here (the
	// brief mean is still the first three intervals', 1), and the BO is predicted one gap
	// mean (75,002) after its last use; OverduePastABurstsIntervals... below
	ReuseEstimate r;
	r.created(0, {.overdue_gap = false});
	r.used(1);
	r.used(2);
	r.used(3); // period 1
	r.used(100003); // a gap: the mean becomes (3 x 1 + 100000) / 4
	EXPECT_EQ(r.period, 25000u);
	r.used(100013);
	EXPECT_EQ(r.period, 18752u);
	EXPECT_EQ(r.recent, 10u);
	EXPECT_EQ(r.predicted_next(100015), 100023u); // under 1/64 of the mean: the last interval
	EXPECT_EQ(r.predicted_next(100030), 100047u); // overdue by it: idle 17, as long again
	// a burst is not a regime change: a last interval of 4 against a mean of 10 leaves the mean
	ReuseEstimate s;
	s.created(0);
	s.used(10);
	s.used(22);
	s.used(34); // period 12
	s.used(38); // (3 x 12 + 4) / 4
	EXPECT_EQ(s.period, 10u);
	EXPECT_EQ(s.predicted_next(39), 48u);
	// nor a last interval of 100 against a mean of 775 (a burst in a slow loop)
	ReuseEstimate u;
	u.created(0);
	u.used(1000);
	u.used(2000);
	u.used(3000);
	u.used(3100);
	EXPECT_EQ(u.period, 775u);
	EXPECT_EQ(u.predicted_next(3101), 3875u);
}

// Bursts (spin1: four or five uses 20 submissions apart, then a gap of 120-150): once a
// burst has had its usual uses and the gap prediction has been nearer twice, the next use is
// predicted one gap after the last; mid-burst, and once the period's prediction is nearer
// again, the period's
TEST(ReuseEstimate, AtABurstsEndPredictsTheGapOnceItWasNearerTwice)
{
	ReuseEstimate r; // the counter's threshold 2, overdue as far as idle (folds.py's others)
	r.created(0, {.gap_trust = 2, .overdue_gap = false});
	for (uint64_t t : {0, 2, 4, 6, 26, 28, 30, 32, 52, 54, 56, 58})
		r.used(t);
	EXPECT_EQ(r.brief, 2u);
	EXPECT_EQ(r.gap, 20u); // over 4 x 2: a gap
	EXPECT_EQ(r.burst, 64u); // four uses a burst, in 1/16ths
	EXPECT_EQ(r.gaps, 2u);
	EXPECT_EQ(r.run, 4u);
	EXPECT_EQ(r.trust, 0u);
	EXPECT_EQ(r.predicted_next(59), 61u); // not trusted yet: the period's (3)
	for (uint64_t t : {78, 80, 82, 84}) // the gap's 20 was nearer than the period's 3
		r.used(t);
	EXPECT_EQ(r.trust, 1u);
	EXPECT_EQ(r.predicted_next(85), 87u); // once is not enough
	r.used(104); // nearer again
	EXPECT_EQ(r.trust, 2u);
	r.used(106);
	EXPECT_EQ(r.predicted_next(107), 106u + r.period); // mid-burst: the period's
	r.used(108);
	r.used(110);
	EXPECT_EQ(r.predicted_next(111), 130u); // the burst is over: one gap after the last
	EXPECT_EQ(r.predicted_next(130), 130u);
	EXPECT_EQ(r.predicted_next(131), 152u); // past the gap: overdue, idle 21 as long again
	// the model's tunables (folds.py): threshold 4 never follows it, 0 always
	ReuseEstimate never = r, always = r;
	never.gap_trust = 4;
	always.gap_trust = 0;
	always.trust = 0;
	EXPECT_EQ(never.predicted_next(111), 110u + never.period);
	EXPECT_EQ(always.predicted_next(111), 130u);
	r.used(112); // back at once: the period's prediction was nearer
	EXPECT_EQ(r.trust, 1u);
	EXPECT_EQ(r.predicted_next(113), 112u + r.period);
	// a BO never idle longer than four times its brief mean has no gap prediction
	ReuseEstimate s;
	s.created(0);
	for (uint64_t t = 0; t <= 100; t += 5)
		s.used(t + (t % 10 ? 1 : 0));
	EXPECT_EQ(s.gaps, 0u);
	EXPECT_EQ(s.predicted_next(101), 100u + s.period);
}

// A burst cut short (spin1's BOs: one to four uses a submission apart, then 150-400 idle):
// the last interval, one submission, is the prediction, and once it is overdue the plain
// rule says "as far ahead as it has been idle", a few submissions. With the overdue rule, a
// BO idle for longer than a burst's intervals can be (the gap ratio times the brief mean) is
// in a gap: its next use is one gap after its last
TEST(ReuseEstimate, OverduePastABurstsIntervalsPredictsOneGapWhenAskedTo)
{
	ReuseEstimate r;
	r.created(0, {.overdue_gap = false});
	for (uint64_t t : {0, 1, 2, 300, 301, 302, 600, 601})
		r.used(t);
	EXPECT_EQ(r.brief, 1u);
	EXPECT_EQ(r.gap, 298u);
	EXPECT_EQ(r.gaps, 2u);
	EXPECT_FALSE(r.burst_over()); // two uses of a usual three
	ReuseEstimate gap = r;
	gap.overdue_gap = 1;
	EXPECT_EQ(r.predicted_next(602), 602u);     // the last interval's (1): due now
	EXPECT_EQ(r.predicted_next(603), 605u);     // overdue, idle 2: within a burst's four
	EXPECT_EQ(gap.predicted_next(603), 605u);   // the same
	EXPECT_EQ(r.predicted_next(606), 611u);     // idle 5: as far again
	EXPECT_EQ(gap.predicted_next(606), 899u);   // past four times the brief mean: a gap
	EXPECT_EQ(gap.predicted_next(899), 899u);
	EXPECT_EQ(gap.predicted_next(900), 1199u);  // past the gap's mean: as far again
	// no gaps seen: the rule has nothing to say
	ReuseEstimate p;
	p.created(0); // the shipped rule
	EXPECT_TRUE(p.overdue_gap);
	for (uint64_t t : {0, 10, 20, 30})
		p.used(t);
	EXPECT_EQ(p.predicted_next(45), 60u);
}

// Predicted admission's test: counting this use, fewer pages per submission until its
// predicted next use than its victims' until theirs, and two GTT reads of it (g = permille /
// 1000 of a move each) cheaper than its move in and its victims' out and back:
// 2 g pages < pages + 2 victims
TEST(ReuseEstimate, BypassWhenNeededAtALowerRateThanTheVictimsAndGttIsCheapEnough)
{
	using R = ReuseEstimate;
	R r;
	r.created(0);
	r.used(10);
	r.used(20);
	// this use would be the third: period 10 trusted, back in 10
	EXPECT_EQ(R::rate(64, 10), (64u << 16) / 10);
	EXPECT_EQ(R::rate(64, 0), R::rate(64, 1));
	EXPECT_TRUE(r.bypass(30, 64, R::rate(64, 5), 64, 1000));
	EXPECT_FALSE(r.bypass(30, 64, R::rate(64, 10), 64, 1000)); // the same rate: admitted
	EXPECT_FALSE(r.bypass(30, 640, R::rate(64, 5), 64, 1000)); // ten times the size: admitted
	EXPECT_TRUE(r.bypass(30, 64, R::rate(64, 1), 33, 1000));   // 128 < 64 + 66
	EXPECT_FALSE(r.bypass(30, 64, R::rate(64, 1), 32, 1000));  // 128 = 64 + 64: admitted
	EXPECT_FALSE(r.bypass(30, 64, R::rate(224, 5), 224, 4000)); // x4: 512 = 64 + 448
	EXPECT_TRUE(r.bypass(30, 64, R::rate(225, 5), 225, 4000));
	// one read instead of two (folds.py's alternative): at x4 100 victim pages are enough
	EXPECT_FALSE(r.bypass(30, 64, R::rate(100, 5), 100, 4000));   // 512 > 64 + 200
	EXPECT_TRUE(r.bypass(30, 64, R::rate(100, 5), 100, 4000, 1)); // 256 < 64 + 200
	EXPECT_TRUE(r.bypass(30, 64, R::rate(8, 1), 8, 100));   // x0.1: 12.8 < 80
	EXPECT_FALSE(r.bypass(30, 64, R::rate(8, 1), 8, 1000)); // x1: 128 > 80
	// before its period counts (this use the second) a BO is predicted back at once
	R n;
	n.created(0);
	n.used(10);
	EXPECT_FALSE(n.bypass(20, 64, R::rate(64, 1), 1 << 20, 1));
}

// decide copies predicted admission's run to the GTT charges at which every cost test it
// asked answers the same (KernelResult::admit_same_from/to): the last charge that passes must
// be exact, or a copy is a different run
TEST(ReuseEstimate, TheCostTestsLastPassingChargeIsExact)
{
	using R = ReuseEstimate;
	for (const uint32_t reads : {1u, 2u})
		for (const uint64_t pages : {1ull, 3ull, 64ull, 1000ull, 4096ull, 1ull << 22})
			for (const uint64_t victims : {0ull, 1ull, 7ull, 33ull, 64ull, 999ull, 1ull << 22}) {
				const uint64_t last = R::cost_test_last_pass(pages, victims, reads);
				if (last >= UINT32_MAX) { // past every charge: it passes at all of them
					EXPECT_TRUE(R::cost_test(pages, victims, UINT32_MAX, reads));
					continue;
				}
				EXPECT_TRUE(R::cost_test(pages, victims, uint32_t(last), reads))
				        << pages << " " << victims << " " << reads;
				EXPECT_FALSE(R::cost_test(pages, victims, uint32_t(last + 1), reads))
				        << pages << " " << victims << " " << reads;
			}
	uint64_t from = 1, to = UINT32_MAX;
	R::narrow_same_charges(64, 64, 2, true, from, to); // passes up to 1499
	EXPECT_EQ(from, 1u);
	EXPECT_EQ(to, 1499u);
	R::narrow_same_charges(64, 0, 2, false, from, to); // fails from 500 on
	EXPECT_EQ(from, 500u);
	EXPECT_EQ(to, 1499u);
	R::narrow_same_charges(64, 1000, 2, true, from, to); // a wider pass narrows nothing
	EXPECT_EQ(from, 500u);
	EXPECT_EQ(to, 1499u);
}

// Four 256 KiB BOs used in turn fill 1 MiB; a fifth, x, is used every fifth round. Once x's
// period counts, it needs fewer pages per submission than any victim, and where GTT reads
// are cheap (x0.1, x1) it stays in GTT instead of evicting a buffer that comes back before
// it; at x4 one victim of its size is not worth two GTT reads and the run is
// window-predict's.
TEST(WindowPredict, AdmissionLeavesARarelyUsedBufferInGttWhereGttReadsAreCheap)
{
	Builder b;
	std::vector<uint32_t> hot;
	for (int i = 0; i < 4; i++)
		hot.push_back(b.create(256));
	const uint32_t x = b.create(256, DomainGtt);
	for (int round = 0; round < 60; round++) {
		for (uint32_t id : hot)
			b.cs({{id, false}});
		if (round % 5 == 4)
			b.cs({{x, false}});
	}
	KernelConfig k = checked_config(1024);
	apply_choice(kernel_choice("window-predict", 0), k);
	const KernelResult predict = simulate_kernel(b.t, k);
	KernelConfig cheap = k, dear = k;
	apply_choice(kernel_choice("window-predict+admit", 0), cheap);
	dear = cheap;
	cheap.admit_gtt_permille = 100;
	dear.admit_gtt_permille = 4000;
	const KernelResult admit = simulate_kernel(b.t, cheap), not_worth = simulate_kernel(b.t, dear);
	EXPECT_GT(predict.evictions(), 10u);
	EXPECT_GT(admit.admit_bypasses, 5u);
	EXPECT_LT(admit.evictions() * 2, predict.evictions());
	EXPECT_GT(admit.gtt_access_bytes, predict.gtt_access_bytes);
	EXPECT_EQ(not_worth.admit_bypasses, 0u);
	EXPECT_EQ(not_worth.digest, predict.digest);
	EXPECT_EQ(not_worth.evictions(), predict.evictions());
	// the configuration's own charge when none is given: at x1 one victim of its size is
	// worth two reads (128 < 64 + 128 pages), at x4 not
	KernelConfig charge = cheap;
	charge.admit_gtt_permille = 0;
	EXPECT_GT(simulate_kernel(b.t, charge).admit_bypasses, 5u);
	charge.gtt_reads_per_use = 4;
	EXPECT_EQ(simulate_kernel(b.t, charge).admit_bypasses, 0u);
	// it needs the predicted window
	KernelConfig alone = checked_config(1024);
	alone.admit_predict = true;
	EXPECT_THROW(KernelModel m(alone), std::invalid_argument);
}

// --nofit-walk: VRAM holds a and b, 512 KiB each; a submission names a and a new 1 MiB BO in
// GTT. With a reserved, no span of candidates holds 1 MiB: the predicted scan evicts nothing
// and the BO stays in GTT; with the walk after a scan that met an obstacle, b goes in vain
// first, as stock's walk does.
TEST(WindowPredict, NoWindowPastAnObstacleFallsBackToTheWalkWithNofitWalk)
{
	Builder b;
	const uint32_t a = b.create(512);
	b.create(512);
	const uint32_t c = b.create(1024, DomainGtt);
	b.cs({{a, false}, {c, false}});
	KernelConfig k = checked_config(1024);
	apply_choice(kernel_choice("window-predict", 0), k);
	const KernelResult nofit = simulate_kernel(b.t, k);
	k.predict_nofit_walk = true;
	const KernelResult walk = simulate_kernel(b.t, k);
	KernelConfig s = checked_config(1024);
	apply_choice(kernel_choice("lru", 0), s);
	const KernelResult stock = simulate_kernel(b.t, s);
	EXPECT_EQ(nofit.window_nofit, 1u);
	EXPECT_EQ(nofit.evictions(), 0u);
	EXPECT_EQ(walk.window_nofit, 0u);
	EXPECT_EQ(walk.window_fallbacks, 1u);
	EXPECT_EQ(stock.evictions(), 1u);
	EXPECT_EQ(walk.evictions(), stock.evictions());
	EXPECT_EQ(walk.gtt_accesses, stock.gtt_accesses);
}

// --predict-repack: [A][B][C][D], 256 KiB each, fill 1 MiB; submissions name B, D and a
// BO E created in GTT. E of 512 KiB: without A and C no two neighbours are free, so the
// predicted scan finds no window and E is read from GTT in every submission. The repack takes
// B and D as candidates too: one window evicts an own BO once, and from the next submission
// on all three are in VRAM (A and C gone). E of 768 KiB: the three do not fit in 1 MiB
// together, and the repack does not try. The same with 256 KiB pinned below them in 1.25
// MiB: E of 768 KiB fits in VRAM with B and D, but not beside the pinned BO.
TEST(WindowPredict, RepackMovesTheSubmissionsOwnBosWhereTheListFitsInVram)
{
	for (const uint64_t pin : {0, 256})
		for (const uint64_t e_kib : {512, 768}) {
			Builder b;
			[[maybe_unused]] const auto [a, bb, c, d] = b.four();
			const uint32_t e = b.create(e_kib, DomainGtt);
			for (int i = 0; i < 4; i++)
				b.cs({{bb, false}, {d, false}, {e, false}});
			KernelConfig k = checked_config(1024 + pin);
			if (pin)
				k.pinned = {pin * 1024};
			apply_choice(kernel_choice("window-predict", 0), k);
			const KernelResult plain = simulate_kernel(b.t, k);
			k.predict_repack = true;
			const KernelResult repack = simulate_kernel(b.t, k);
			SCOPED_TRACE(testing::Message() << "pinned " << pin << " KiB, E " << e_kib << " KiB");
			EXPECT_EQ(plain.window_nofit, 4u);
			EXPECT_EQ(plain.gtt_accesses, 4u);
			if (e_kib == 768) {
				EXPECT_EQ(repack.window_repack_scans, 0u);
				EXPECT_EQ(repack.digest, plain.digest);
				continue;
			}
			EXPECT_EQ(repack.window_repack_scans, 1u);
			EXPECT_EQ(repack.window_repacks, 1u);
			EXPECT_EQ(repack.window_nofit, 0u);
			EXPECT_EQ(repack.gtt_accesses, 1u); // the own BO evicted, in the first submission
		}
}

// Escalation: [A][B][C][D], 256 KiB each, fill 1 MiB; B and D are used again, so the LRU is
// A C B D, and a 512 KiB BO arrives. Bounded at two entries the scan sees A and C, which are
// not adjacent: the walk evicts A, C and B before the BO fits. Escalated to four entries it
// sees B too, and evicts the window A B alone.
TEST(WindowPredict, EscalationFindsTheWindowTheBoundMissedInsteadOfWalking)
{
	Builder b;
	[[maybe_unused]] const auto [a, bb, c, d] = b.four();
	b.cs({{bb, false}});
	b.cs({{d, false}});
	const uint32_t e = b.create(512, DomainGtt);
	b.cs({{e, false}});
	KernelConfig k = checked_config(1024);
	apply_choice(kernel_choice("window-predict", 0), k);
	k.scan_max = 2;
	EXPECT_EQ(k.predict_escalate, 4096u); // radeon's, the default
	const KernelResult by_default = simulate_kernel(b.t, k);
	k.predict_escalate = 0;
	const KernelResult walk = simulate_kernel(b.t, k);
	k.predict_escalate = 4;
	const KernelResult escalated = simulate_kernel(b.t, k);
	EXPECT_EQ(walk.window_fallbacks, 1u);
	EXPECT_EQ(walk.window_escalations, 0u);
	EXPECT_EQ(walk.evictions(), 3u);
	EXPECT_EQ(escalated.window_escalations, 1u);
	EXPECT_EQ(escalated.window_fallbacks, 0u);
	EXPECT_EQ(escalated.windows, 1u);
	EXPECT_EQ(escalated.evictions(), 2u);
	EXPECT_EQ(by_default.digest, escalated.digest);
	EXPECT_EQ(by_default.window_escalations, 1u);
	// an escalation not above the bound is none, as in TTM
	k.predict_escalate = 2;
	const KernelResult none = simulate_kernel(b.t, k);
	EXPECT_EQ(none.window_escalations, 0u);
	EXPECT_EQ(none.digest, walk.digest);
	k.predict_escalate = 65537;
	EXPECT_THROW(KernelModel m(k), std::invalid_argument);
}

// Size in the order: [a 256 KiB][big 768 KiB] fill 1 MiB, used in turn (big first, the same
// period, 2), then two submissions of a GTT buffer; c needs 256 KiB. Both are overdue: big is
// predicted back in 4 submissions, a in 3, so by prediction alone (and by LRU) big would go,
// 768 KiB; by the key (x 16 / sqrt(pages): 4 x 4096 / 3547 = 4 against 3 x 4096 / 2048 = 6) a.
TEST(WindowPredict, ALargeBufferGoesOnlyWhenPredictedBackMuchLater)
{
	Builder b;
	const uint32_t a = b.create(256), big = b.create(768), x = b.create(4, DomainGtt);
	for (int i = 0; i < 3; i++) {
		b.cs({{big, false}});
		b.cs({{a, false}});
	}
	b.cs({{x, false}}, {}, DomainGtt);
	b.cs({{x, false}}, {}, DomainGtt);
	b.create(256);
	KernelConfig k = checked_config(1024);
	apply_choice(kernel_choice("window-predict", 0), k);
	const KernelResult r = simulate_kernel(b.t, k);
	EXPECT_EQ(r.evictions(), 1u);
	EXPECT_EQ(r.mem[MemVram].evicted_bytes, 256u << 10);
	apply_choice(kernel_choice("window", 0), k);
	EXPECT_EQ(simulate_kernel(b.t, k).mem[MemVram].evicted_bytes, 768u << 10);
}

// A 512 KiB BO no submission names, beside four 64 KiB ones used three times each and then
// idle a while: overdue, the small ones are predicted to stay away as long again, and the
// square root of the size keeps the large one behind them, so a 384 KiB BO evicts all four.
// With --predict-unused below the large one's age it goes first, alone; above it, nothing
// changes.
TEST(WindowPredict, ABufferNeverNamedSinceItsCreationGoesFirstWithPredictUnused)
{
	Builder b;
	const uint32_t big = b.create(512), x = b.create(4, DomainGtt);
	std::vector<uint32_t> small;
	for (int i = 0; i < 4; i++)
		small.push_back(b.create(64));
	for (int round = 0; round < 3; round++)
		for (uint32_t id : small)
			b.cs({{id, false}});
	for (int i = 0; i < 20; i++)
		b.cs({{x, false}}, {}, DomainGtt);
	b.create(384);
	KernelConfig k = checked_config(1024);
	apply_choice(kernel_choice("window-predict", 0), k);
	const KernelResult plain = simulate_kernel(b.t, k);
	EXPECT_EQ(plain.evictions(), 4u);
	EXPECT_EQ(plain.mem[MemVram].evicted_bytes, 256u << 10);
	k.predict_unused = 16; // the large one was created 32 submissions before
	const KernelResult unused = simulate_kernel(b.t, k);
	EXPECT_EQ(unused.evictions(), 1u);
	EXPECT_EQ(unused.mem[MemVram].evicted_bytes, 512u << 10);
	k.predict_unused = 64;
	EXPECT_EQ(simulate_kernel(b.t, k).evictions(), plain.evictions());
	// the key itself: off, below the threshold and once named, the prediction's
	ReuseEstimate r;
	r.created(10);
	EXPECT_EQ(r.victim_key(25, 64, 1, 0, 16), r.victim_key(25, 64));
	EXPECT_EQ(r.victim_key(26, 64, 1, 0, 16), ReuseEstimate::kNeverUsedKey);
	EXPECT_EQ(r.victim_key(26, 64, 1, 0, 0), r.victim_key(26, 64));
	r.used(26);
	EXPECT_NE(r.victim_key(60, 64, 1, 0, 16), ReuseEstimate::kNeverUsedKey);
	(void)big;
}

// Five 256 KiB BOs used in a loop in 1 MiB: LRU (and window eviction's LRU scan) evicts the
// one needed next, every time; with the loop's period learnt, window-predict evicts the most
// recently used one, as the clairvoyant window does, and moves a fraction of the bytes.
TEST(WindowPredict, ALoopThatDoesNotFitLosesItsMostRecentlyUsedBuffer)
{
	Builder b;
	std::vector<uint32_t> ids;
	for (int i = 0; i < 5; i++)
		ids.push_back(b.create(256));
	// 40 rounds: for its first three a BO has fewer than two intervals and the rule is the LRU's
	for (int round = 0; round < 40; round++)
		for (uint32_t id : ids)
			b.cs({{id, false}});
	KernelConfig k = checked_config(1024);
	const KernelResult lru = simulate_kernel(b.t, k);
	KernelConfig w = k;
	apply_choice(kernel_choice("window", 0), w);
	const KernelResult window = simulate_kernel(b.t, w);
	KernelConfig p = k;
	apply_choice(kernel_choice("window-predict", 0), p);
	const KernelResult predict = simulate_kernel(b.t, p);
	KernelConfig o = k;
	apply_choice(kernel_choice("window-oracle", 0), o);
	const KernelResult oracle = simulate_kernel(b.t, o);
	EXPECT_EQ(lru.evictions(), 201u); // the fifth creation, then every use
	EXPECT_EQ(window.evictions(), lru.evictions());
	EXPECT_LT(predict.evictions() * 3, lru.evictions());
	EXPECT_LE(oracle.evictions(), predict.evictions()) << predict.evictions();
	// a live model needs no future for it
	EXPECT_NO_THROW(KernelModel m(p));
}

TEST(ThrashGuard, QuickReturnsInARowGuardUnderTheCapUntilTheHoldEnds)
{
	ThrashGuardParams p;
	p.within_ms = 100;
	p.count = 2;
	p.hold_ms = 1000;
	p.cap_pct = 50;
	ThrashGuard g(p, 100);
	g.grow(3);
	g.evicted(0, 0);
	g.returned(0, 30, 50'000); // event 1
	EXPECT_FALSE(g.guarded(0));
	g.evicted(0, 60'000);
	g.returned(0, 30, 120'000); // event 2: guarded
	EXPECT_TRUE(g.guarded(0));
	EXPECT_EQ(g.guarded_pages(), 30u);
	g.evicted(1, 0);
	g.returned(1, 30, 10'000);
	g.evicted(1, 20'000);
	g.returned(1, 30, 30'000); // thrashes too, but 60 pages would pass the cap of 50
	EXPECT_FALSE(g.guarded(1));
	EXPECT_EQ(g.cap_refusals, 1u);
	g.evicted(2, 0);
	g.returned(2, 10, 500'000); // a slow return is no event
	g.evicted(2, 510'000);
	g.returned(2, 10, 520'000);
	EXPECT_FALSE(g.guarded(2));
	g.expire(1'119'999);
	EXPECT_TRUE(g.guarded(0));
	g.expire(1'120'000);
	EXPECT_FALSE(g.guarded(0));
	EXPECT_EQ(g.guarded_pages(), 0u);
	EXPECT_EQ(g.guards, 1u);
}

// Two 768 KiB buffers used in turn, 10 ms apart, in 1 MiB of VRAM: stock moves one out and
// the other in at every submission. The guard keeps one resident after three quick returns;
// the other is then used from GTT until the hold ends.
TEST(ThrashGuard, StopsTwoBuffersTakingTurnsInVram)
{
	Builder b;
	b.ms = 10;
	const auto x = b.create(768), y = b.create(768, DomainGtt);
	for (int i = 0; i < 20; i++) {
		b.cs({{x, false}});
		b.cs({{y, false}});
	}
	KernelConfig k = checked_config(1024);
	k.flush_for_impossible = false;
	const KernelResult fit = simulate_kernel(b.t, k);
	k.guard = true;
	k.guard_params.hold_ms = 10000;
	k.guard_params.cap_pct = 25; // 192 pages > 64: the cap refuses (at every return)
	const KernelResult capped = simulate_kernel(b.t, k);
	EXPECT_GT(capped.guard_refusals, 0u);
	EXPECT_EQ(capped.guards, 0u);
	EXPECT_EQ(capped.digest, fit.digest);
	k.guard_params.cap_pct = 90;
	const KernelResult guard = simulate_kernel(b.t, k);
	EXPECT_GE(fit.evictions(), 39u);
	EXPECT_EQ(guard.guards, 1u);
	// each is evicted three times (its third quick return guards x), then nothing moves
	EXPECT_EQ(guard.evictions(), 6u);
	EXPECT_GT(guard.gtt_accesses, fit.gtt_accesses);
	k.guard_params.count = 255; // never reached: exactly the unguarded run
	const KernelResult never = simulate_kernel(b.t, k);
	EXPECT_EQ(never.digest, fit.digest);
	EXPECT_EQ(never.evictions(), fit.evictions());
	k.guard_params.hold_ms = 25; // guarded for two submissions at a time
	const KernelResult brief = simulate_kernel(b.t, k);
	EXPECT_GT(brief.evictions(), guard.evictions());
}

// With every candidate idle (idle_ms 0) the first scan is the one scan of window eviction.
TEST(WindowIdle, WithEveryCandidateIdleItIsWindowEviction)
{
	Builder b;
	b.ms = 3;
	std::vector<uint32_t> ids;
	uint32_t seed = 12345;
	auto rnd = [&seed](uint32_t n) {
		seed = seed * 1103515245u + 12345u;
		return (seed >> 16) % n;
	};
	for (int i = 0; i < 400; i++) {
		if (ids.size() < 6 || rnd(4) == 0)
			ids.push_back(b.create(64 * (1 + rnd(6))));
		b.cs({{ids[rnd(uint32_t(ids.size()))], false}, {ids[rnd(uint32_t(ids.size()))], true}});
	}
	KernelConfig k = checked_config(1024);
	k.scan = true;
	const KernelResult window = simulate_kernel(b.t, k);
	k.idle_ms = 0;
	const KernelResult idle = simulate_kernel(b.t, k);
	EXPECT_GT(window.windows, 10u);
	EXPECT_EQ(idle.digest, window.digest);
	EXPECT_EQ(idle.evictions(), window.evictions());
	EXPECT_EQ(idle.window_idle, window.windows);
	k.idle_ms = 1000000; // nothing idle: every window from the second scan
	const KernelResult none = simulate_kernel(b.t, k);
	EXPECT_EQ(none.window_idle, 0u);
	EXPECT_EQ(none.digest, window.digest);
}

// The folds' tunables of the plain prediction (KernelConfig::predict_trusted, predict_regime):
// a period after two uses instead of three, and a change of regime at a 16th instead of a 64th.
TEST(ReuseEstimate, ThePlainPredictionsTunablesActWhereTheySay)
{
	ReuseEstimate three, two;
	three.created(0);
	two.created(0, {.trusted = 2});
	for (ReuseEstimate *r : {&three, &two}) {
		r->used(10);
		r->used(20); // one interval of 10
	}
	EXPECT_EQ(three.predicted_next(22), 22u + 2) << "two uses: as far ahead as idle";
	EXPECT_EQ(two.predicted_next(22), 30u) << "two uses are a period with trusted = 2";
	// a mean of about 640 and a last interval of 20: a 32nd of the mean
	ReuseEstimate r64, r16;
	r64.created(0);
	r16.created(0, {.regime_shift = 4});
	for (ReuseEstimate *r : {&r64, &r16}) {
		r->used(640);
		r->used(1280);
		r->used(1920);
		r->used(1940);
	}
	EXPECT_GT(r64.period, 20u * 16);
	EXPECT_LT(r64.period, 20u * 64);
	EXPECT_EQ(r16.predicted_next(1950), 1960u) << "under a 16th: a change of regime";
	EXPECT_EQ(r64.predicted_next(1950), 1940u + r64.period) << "over a 64th: the mean";
	static_assert(sizeof(ReuseEstimate) == 40, "the kernel's estimate is 40 bytes a BO");
}

} // namespace
} // namespace vramlab
