// The clairvoyant window's decisions as an observer sees them (KernelConfig::observer, the
// labels of `vramlab labels`): every decision, the victims the oracle evicts and nothing else,
// and a run that is the same with or without the observer.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "kernel_builder.h"
#include "kmodel/clairvoyant.h"
#include "kmodel/kernel_model.h"

namespace vramlab {
namespace {

struct Seen {
	OracleDecision d;
	std::vector<OracleCandidate> c;
	std::vector<uint32_t> victims() const
	{
		std::vector<uint32_t> v;
		for (const OracleCandidate &x : c)
			if (x.victim)
				v.push_back(x.id);
		return v;
	}
	const OracleCandidate *find(uint32_t id) const
	{
		for (const OracleCandidate &x : c)
			if (x.id == id)
				return &x;
		return nullptr;
	}
};

class Recorder : public OracleObserver {
public:
	void decision(const OracleDecision &d, const OracleCandidate *c, size_t n) override
	{
		seen.push_back({d, std::vector<OracleCandidate>(c, c + n)});
	}
	std::vector<Seen> seen;
};

// Builder::oracle_example(): the oracle evicts c for e, then e for c.
TEST(OracleLabels, TheDecisionsOfAnExampleWorkedOnPaper)
{
	Builder b;
	const auto [a, bb, c, d, e] = b.oracle_example();
	KernelConfig k = checked_config(1024);
	k.scan = k.window_oracle = true;
	Recorder rec;
	k.observer = &rec;
	const KernelResult r = simulate_kernel(b.t, k);
	ASSERT_EQ(rec.seen.size(), 2u);
	EXPECT_EQ(r.evictions(), 2u);
	const Seen &first = rec.seen[0], &second = rec.seen[1];
	EXPECT_EQ(first.d.id, e);
	EXPECT_EQ(first.d.outcome, OracleDecision::Placed);
	EXPECT_EQ(first.victims(), std::vector<uint32_t>{c});
	ASSERT_EQ(first.c.size(), 4u); // a, b, c, d: every one evictable
	// in the walk's order (a was used first), each used once, none back from GTT yet
	for (uint32_t i = 0; i < 4; i++) {
		EXPECT_EQ(first.c[i].lru_rank, i);
		EXPECT_EQ(first.c[i].uses, 1u);
		EXPECT_EQ(first.c[i].returns, 0u);
		EXPECT_EQ(first.c[i].pages, 64u);
	}
	EXPECT_EQ(first.c[0].id, a);
	// the created BO is placed between submissions 4 and 5: a is next used at submission 4
	// (0-based), one submission away; c at 7, four away
	EXPECT_EQ(first.d.subs, 4u);
	EXPECT_EQ(first.find(a)->next_use, 4u);
	EXPECT_EQ(first.find(c)->next_use, 7u);
	// one relocation a submission: a's is the trace's first, d's its fourth
	EXPECT_EQ(first.find(a)->last_reloc, 0u);
	EXPECT_EQ(first.find(d)->last_reloc, 3u);
	EXPECT_EQ(second.d.id, c);
	EXPECT_EQ(second.victims(), std::vector<uint32_t>{e});
	EXPECT_EQ(second.find(e)->next_use, Future::kNever);
	EXPECT_EQ(second.find(e)->uses, 0u);
	EXPECT_EQ(second.find(e)->last_reloc, UINT64_MAX);
	// admission: e stays in GTT, nothing evicted, the decision says so
	Recorder admit;
	k.admit_oracle = true;
	k.observer = &admit;
	simulate_kernel(b.t, k);
	ASSERT_EQ(admit.seen.size(), 1u);
	EXPECT_EQ(admit.seen[0].d.outcome, OracleDecision::Bypass);
	EXPECT_TRUE(admit.seen[0].victims().empty());
}

// On a game's trace under pressure: the observer changes nothing in the run, the victims it
// is told are exactly the evictions, one decision per window or no-fit, and the candidates
// come in the walk's order, each BO once.
TEST(OracleLabels, OnATraceTheVictimsAreTheEvictionsAndTheRunIsTheSame)
{
	const KernelTrace t =
	        load_kernel_trace(std::string(VRAMLAB_SOURCE_DIR) + "/../traces/nederland1.bin");
	for (Stock stock : {Stock::V6_12, Stock::V6_14}) {
		KernelConfig k;
		k.vram = 32ull << 20;
		k.stock = stock;
		k.scan = k.window_oracle = true;
		const KernelResult plain = simulate_kernel(t, k);
		Recorder rec;
		k.observer = &rec;
		const KernelResult seen = simulate_kernel(t, k);
		EXPECT_EQ(seen.digest, plain.digest);
		EXPECT_EQ(seen.evictions(), plain.evictions());
		EXPECT_EQ(seen.transfer_us, plain.transfer_us);
		ASSERT_GT(plain.windows, 10u) << "no pressure: the test would show nothing";
		uint64_t placed = 0, nofit = 0, victims = 0;
		for (const Seen &s : rec.seen) {
			placed += s.d.outcome == OracleDecision::Placed;
			nofit += s.d.outcome == OracleDecision::NoFit;
			const size_t v = s.victims().size();
			victims += v;
			if (s.d.outcome == OracleDecision::Placed) {
				EXPECT_GT(v, 0u);
			}
			std::set<uint32_t> ids;
			for (size_t i = 0; i < s.c.size(); i++) {
				EXPECT_TRUE(ids.insert(s.c[i].id).second);
				if (i) {
					EXPECT_LT(s.c[i - 1].lru_rank, s.c[i].lru_rank);
				}
				EXPECT_NE(s.c[i].id, s.d.id);
				// the relocation that last named it names it (Mesa's inputs are found there)
				const OracleCandidate &x = s.c[i];
				if (x.uses) {
					ASSERT_LT(x.last_reloc, t.relocs.size());
					EXPECT_EQ(t.relocs[x.last_reloc].id, x.id);
				}
			}
		}
		EXPECT_EQ(placed, plain.windows);
		EXPECT_EQ(nofit, plain.window_nofit);
		EXPECT_EQ(victims, plain.evictions());
	}
}

} // namespace
} // namespace vramlab
