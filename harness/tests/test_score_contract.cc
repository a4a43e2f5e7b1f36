// The score contract (docs/score.md): a hand-built v2.1 trace whose scores are worked out here
// tick by tick, against `trace scores` (ScoreTracker, check_trace_scores) and a DRM shim log;
// calibration of the output layer.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "helpers.h"
#include "mlp/score_contract.h"

using namespace vramlab;

namespace {

const std::string kWeights = std::string(VRAMLAB_SOURCE_DIR) + "/weights/handset-calibrated.txt";
constexpr uint64_t kVram = 256ull << 20;
constexpr uint64_t K = 1024, M = 1024 * 1024;

// The score of a buffer with these statistics at tick `now` (docs/score.md, by hand).
uint32_t S(const Mlp &m, uint64_t size, bool prio, uint32_t now, uint32_t last_read,
           uint32_t last_write, uint32_t last_cpu, uint32_t reads, uint32_t writes,
           uint32_t cpu_ops)
{
	BufferStats b;
	b.size = size;
	b.vram_size = kVram;
	b.high_prio = prio;
	b.since_read = now - last_read;
	b.since_write = now - last_write;
	b.since_cpu = now - last_cpu;
	b.reads = reads;
	b.writes = writes;
	b.cpu_ops = cpu_ops;
	return m.score(b);
}

struct Cs {
	uint8_t ring;
	bool chunk;
	std::vector<CsReloc> relocs; // score = what the trace records
	bool untracked = false;      // CS flag bit 1: the kernel also got fence buffers
};

// The trace, tick by tick (A, C own buffers; B imported):
//   t1 create A (64 KiB)         A scored at 1
//   t2 create B (1 MiB, import)  B NEUTRAL
//   CPU map of A                 not a tick: A cpu_ops 1, last_cpu 2
//   CS0 [A read, B write]        t3, t4: previous accesses 2 ticks back, no refresh
//   t5 create C (4 KiB)          C scored at 5
//   CS1 (no chunk, DMA ring)     C x 597: t6..t602
//   CS2 [A read]                 t603: 600 ticks after A's read at 3: no refresh ("access");
//                                602 after A's score at 1: refresh ("age")
//   CPU map of B                 B cpu_ops 1, last_cpu 603
//   CS3 [C read, B read]         t604, t605: B's previous access (t4) 601 back: refresh (both)
//   CS4 [A write, A read]        t606, t607: A twice; both carry A's score after both
struct Contract {
	std::vector<Cs> cs;
	uint32_t a_create, c_create, a_age603, b_605, a_access_final, a_age_final;
};

Contract expected(const Mlp &m)
{
	Contract c;
	c.a_create = S(m, 64 * K, false, 1, 1, 1, 1, 0, 0, 0);
	c.c_create = S(m, 4 * K, false, 5, 5, 5, 5, 0, 0, 0);
	// A at 603 under "age": reads 2 (t3, t603), no writes (last_write = create), CPU map at 2.
	c.a_age603 = S(m, 64 * K, false, 603, 603, 1, 2, 2, 0, 1);
	// B at 605: write at 4, reads at 605, CPU map at 603.
	c.b_605 = S(m, 1 * M, false, 605, 605, 4, 603, 1, 1, 1);
	c.a_access_final = c.a_create;   // never refreshed under "access"
	c.a_age_final = c.a_age603;      // t606: 3 ticks after its score at 603
	return c;
}

std::vector<Cs> cs_records(const Contract &c, Refresh rule)
{
	const uint8_t V = DomainVram, G = DomainGtt;
	const uint32_t a_final = rule == Refresh::Age ? c.a_age_final : c.a_access_final;
	std::vector<Cs> out;
	out.push_back({RingGfx, true,
	               {{0, V, 0, 1, false, c.a_create}, {1, 0, G, 0, false, kScoreNeutral}}});
	Cs dma{RingDma, false, {}};
	for (int i = 0; i < 597; i++)
		dma.relocs.push_back({2, V, 0, 0, false, kScoreNeutral});
	out.push_back(dma);
	out.push_back({RingGfx, true,
	               {{0, V, 0, 0, false, rule == Refresh::Age ? c.a_age603 : c.a_create}}});
	out.push_back({RingGfx, true, {{2, V, 0, 0, false, c.c_create}, {1, V, 0, 0, false, c.b_605}}});
	out.push_back({RingGfx, true, {{0, 0, V, 0, false, a_final}, {0, V, 0, 15, false, a_final}}});
	return out;
}

void write_trace(const std::string &path, const std::vector<Cs> &cs)
{
	TraceInfo info;
	info.meta["vram_bytes"] = std::to_string(kVram);
	auto w = make_writer(Format::V2, path, info);
	uint64_t us = 0;
	auto ev = [&](EventType t, uint32_t id) {
		Event e;
		e.type = t;
		e.id = id;
		e.time_us = us += 10;
		return e;
	};
	auto create = [&](uint32_t id, uint64_t size, bool imported) {
		Event e = ev(EventType::Create, id);
		e.size = size;
		e.domain = DomainVram;
		e.imported = imported;
		w->write(e);
	};
	auto submit = [&](const Cs &c) {
		Event e = ev(EventType::Cs, 0);
		e.ring = c.ring;
		e.cs_scores = c.chunk;
		e.cs_untracked = c.untracked;
		e.nrelocs = uint32_t(c.relocs.size());
		e.relocs = c.relocs.data();
		w->write(e);
	};
	create(0, 64 * K, false);
	create(1, 1 * M, true);
	w->write(ev(EventType::Cpu, 0));
	submit(cs[0]);
	create(2, 4 * K, false);
	submit(cs[1]);
	submit(cs[2]);
	w->write(ev(EventType::Cpu, 1));
	submit(cs[3]);
	submit(cs[4]);
	w->write(ev(EventType::Frame, 0));
	w->close();
}

// The shim's log of the same submissions.
std::string shim_log(const std::vector<Cs> &cs)
{
	std::string out;
	for (auto &c : cs) {
		out += std::to_string(c.ring) + " " + std::to_string(c.relocs.size()) + " " +
		       std::to_string(c.chunk ? c.relocs.size() : 0);
		if (c.chunk)
			for (auto &r : c.relocs)
				out.append(" ").append(std::to_string(r.score));
		out += "\n";
	}
	return out;
}

} // namespace

TEST(ScoreContract, TheTrackerFollowsTheContractTickByTick)
{
	const Mlp m = Mlp::load(kWeights);
	const Contract c = expected(m);
	// The cases must differ, or the test would not tell the rules apart.
	EXPECT_NE(c.a_create, c.a_age603);
	EXPECT_NE(c.b_605, kScoreNeutral);
	for (Refresh rule : {Refresh::Access, Refresh::Age}) {
		ScoreTracker t(m, kVram, rule);
		t.create(0, 64 * K, false, false);
		EXPECT_EQ(t.score(0), c.a_create);
		t.create(1, 1 * M, false, true);
		EXPECT_EQ(t.score(1), kScoreNeutral); // an import has no score of its own
		t.cpu(0);
		t.cpu(0); // mapped again with no tick between: the same CPU use (cpu_ops stays 1)
		EXPECT_EQ(t.ticks(), 2u); // a CPU map is not a tick
		EXPECT_FALSE(t.access(0, false));
		EXPECT_FALSE(t.access(1, true));
		EXPECT_EQ(t.score(1), kScoreNeutral);
		t.create(2, 4 * K, false, false);
		for (int i = 0; i < 597; i++)
			EXPECT_FALSE(t.access(2, false));
		EXPECT_EQ(t.ticks(), 602u);
		// 600 ticks after A's previous access: no refresh; 602 after its score: "age" refreshes.
		EXPECT_EQ(t.access(0, false), rule == Refresh::Age);
		EXPECT_EQ(t.score(0), rule == Refresh::Age ? c.a_age603 : c.a_create);
		t.cpu(1);
		t.cpu(1);
		t.cpu(1);
		EXPECT_FALSE(t.access(2, false));
		EXPECT_TRUE(t.access(1, false)); // 601 ticks: refreshed, from stats including this read
		EXPECT_EQ(t.score(1), c.b_605);
		EXPECT_EQ(t.score(2), c.c_create);
		t.access(0, true);
		t.access(0, false);
		EXPECT_EQ(t.score(0), rule == Refresh::Age ? c.a_age_final : c.a_access_final);
		EXPECT_EQ(t.ticks(), 607u);
	}
}

TEST(ScoreContract, RefreshIsStrictlyMoreThan600Ticks)
{
	const Mlp m = Mlp::load(kWeights);
	for (uint32_t gap : {599u, 600u, 601u, 602u}) {
		ScoreTracker t(m, kVram, Refresh::Access);
		t.create(0, 4096, false, false);
		t.create(1, 4096, false, false);
		for (uint32_t i = 2; i < gap; i++) // 0 created at tick 1, 1 at 2: 0's access at 1 + gap
			t.access(1, false);
		EXPECT_EQ(t.access(0, true), gap > 600) << gap;
		EXPECT_EQ(t.ticks(), 1 + gap);
	}
}

TEST(ScoreContract, ATraceThatKeepsTheContractChecksClean)
{
	const Mlp m = Mlp::load(kWeights);
	const Contract c = expected(m);
	for (Refresh rule : {Refresh::Access, Refresh::Age}) {
		const auto cs = cs_records(c, rule);
		const std::string trace = test::temp_path("contract.vrl"), log = test::temp_path("shim.log");
		write_trace(trace, cs);
		test::write_bytes(log, shim_log(cs));
		const ScoreCheck r = check_trace_scores(trace, m, rule, log);
		EXPECT_EQ(r.vram_bytes, kVram);
		EXPECT_EQ(r.cs, 5u);
		EXPECT_EQ(r.cs_with_chunk, 4u);
		EXPECT_EQ(r.relocations, 604u);
		EXPECT_EQ(r.ticks, 607u);
		EXPECT_EQ(r.trace.scores_checked, 7u);
		EXPECT_EQ(r.trace.mismatches, 0u) << (r.trace.first.empty() ? "" : r.trace.first[0].what);
		EXPECT_EQ(r.shim_lines, 5u);
		EXPECT_EQ(r.log.scores_checked, 7u);
		EXPECT_EQ(r.log.mismatches, 0u) << (r.log.first.empty() ? "" : r.log.first[0].what);
		// The other rule gives other scores for A.
		const ScoreCheck other = check_trace_scores(
		        trace, m, rule == Refresh::Age ? Refresh::Access : Refresh::Age, log);
		EXPECT_EQ(other.trace.mismatches, 3u); // CS2's A and CS4's two A relocations
		EXPECT_EQ(other.log.mismatches, 3u);
	}
}

TEST(ScoreContract, MismatchesWithTheTraceAreReportedInDetail)
{
	const Mlp m = Mlp::load(kWeights);
	auto cs = cs_records(expected(m), Refresh::Access);
	const uint32_t right = cs[3].relocs[1].score;
	cs[3].relocs[1].score = 12345; // B in CS3
	const std::string trace = test::temp_path("bad-contract.vrl");
	write_trace(trace, cs);
	const ScoreCheck r = check_trace_scores(trace, m, Refresh::Access);
	ASSERT_EQ(r.trace.mismatches, 1u);
	const ScoreMismatch &mm = r.trace.first[0];
	EXPECT_EQ(mm.what, "score");
	EXPECT_EQ(mm.cs, 3u);
	EXPECT_EQ(mm.reloc, 1);
	EXPECT_EQ(mm.id, 1u);
	EXPECT_EQ(mm.expected, right);
	EXPECT_EQ(mm.got, 12345u);
	EXPECT_EQ(mm.line, 0u);
}

TEST(ScoreContract, MismatchesWithTheShimLog)
{
	const Mlp m = Mlp::load(kWeights);
	const auto cs = cs_records(expected(m), Refresh::Access);
	const std::string trace = test::temp_path("contract2.vrl"), log = test::temp_path("shim2.log");
	write_trace(trace, cs);
	const std::string good = shim_log(cs);
	std::vector<std::string> lines;
	for (size_t p = 0, e; (e = good.find('\n', p)) != std::string::npos; p = e + 1)
		lines.push_back(good.substr(p, e - p));
	auto check = [&](std::vector<std::string> l) {
		std::string text;
		for (auto &x : l)
			text += x + "\n";
		test::write_bytes(log, text);
		return check_trace_scores(trace, m, Refresh::Access, log);
	};
	// A wrong ring, a wrong relocation count, a chunk where the trace has none, a wrong score.
	auto l = lines;
	l[0][0] = '3';
	ScoreCheck r = check(l);
	ASSERT_EQ(r.log.mismatches, 1u);
	EXPECT_EQ(r.log.first[0].what, "ring");
	EXPECT_EQ(r.log.first[0].line, 1u);
	l = lines;
	l[2] = "0 2 2 1 1";
	r = check(l);
	ASSERT_EQ(r.log.mismatches, 1u);
	EXPECT_EQ(r.log.first[0].what, "relocation count");
	EXPECT_EQ(r.log.first[0].expected, 1u);
	EXPECT_EQ(r.log.first[0].got, 2u);
	l = lines;
	l[1] = "2 597 597" + std::string(597 * 2, ' ');
	for (int i = 0; i < 597; i++)
		l[1] += " 7";
	r = check(l);
	ASSERT_EQ(r.log.mismatches, 1u);
	EXPECT_EQ(r.log.first[0].what, "score chunk");
	l = lines;
	l[3] = "0 2 2 " + std::to_string(cs[3].relocs[0].score) + " 99";
	r = check(l);
	ASSERT_EQ(r.log.mismatches, 1u);
	EXPECT_EQ(r.log.first[0].what, "score");
	EXPECT_EQ(r.log.first[0].cs, 3u);
	EXPECT_EQ(r.log.first[0].reloc, 1);
	EXPECT_EQ(r.log.first[0].got, 99u);
	EXPECT_EQ(r.trace.mismatches, 0u);
	// A line missing, a line too many.
	l = lines;
	l.pop_back();
	r = check(l);
	ASSERT_EQ(r.log.mismatches, 1u);
	EXPECT_EQ(r.log.first[0].what, "missing line");
	l = lines;
	l.push_back("0 0 0");
	r = check(l);
	ASSERT_EQ(r.log.mismatches, 1u);
	EXPECT_EQ(r.log.first[0].what, "extra line");
	EXPECT_EQ(r.log.first[0].line, 6u);
	// Malformed lines are errors naming the file and the line.
	for (const char *bad : {"0 2", "0 2 2 1", "0 2 0 5", "0 x 0", "0 1 1 4294967296", "-1 1 0", ""}) {
		l = lines;
		l[2] = bad;
		try {
			check(l);
			ADD_FAILURE() << "accepted \"" << bad << "\"";
		} catch (const TraceError &e) {
			EXPECT_NE(std::string(e.what()).find(log + ": line 3: "), std::string::npos) << e.what();
		}
	}
}

// Fence buffers: the kernel gets relocations the trace leaves out (CS flag bit 1), with the
// neutral score; the log is matched to the record in order around them.
TEST(ScoreContract, UntrackedRelocationsInTheShimLog)
{
	const Mlp m = Mlp::load(kWeights);
	auto cs = cs_records(expected(m), Refresh::Access);
	const std::string trace = test::temp_path("contract3.vrl"), log = test::temp_path("shim3.log");
	// CS3 [C, B] with a fence in the middle, CS4 [A, A] with one at the end.
	cs[3].untracked = true;
	cs[4].untracked = true;
	write_trace(trace, cs);
	const std::string n = std::to_string(kScoreNeutral);
	std::string good = shim_log(cs);
	std::vector<std::string> lines;
	for (size_t p = 0, e; (e = good.find('\n', p)) != std::string::npos; p = e + 1)
		lines.push_back(good.substr(p, e - p));
	auto check = [&](std::vector<std::string> l) {
		std::string text;
		for (auto &x : l)
			text += x + "\n";
		test::write_bytes(log, text);
		return check_trace_scores(trace, m, Refresh::Access, log);
	};
	auto l = lines;
	l[3] = "0 3 3 " + std::to_string(cs[3].relocs[0].score) + " " + n + " " +
	       std::to_string(cs[3].relocs[1].score);
	l[4] = "0 3 3 " + std::to_string(cs[4].relocs[0].score) + " " +
	       std::to_string(cs[4].relocs[1].score) + " " + n;
	ScoreCheck r = check(l);
	EXPECT_EQ(r.log.mismatches, 0u);
	EXPECT_EQ(r.untracked, 2u);
	// An extra relocation whose score is not neutral is a mismatch.
	l[3] = "0 3 3 " + std::to_string(cs[3].relocs[0].score) + " 5 " +
	       std::to_string(cs[3].relocs[1].score);
	r = check(l);
	ASSERT_EQ(r.log.mismatches, 1u);
	EXPECT_EQ(r.log.first[0].what, "score");
	// Without untracked relocations the counts must match: bit 1 never set, extra is an error.
	cs[3].untracked = cs[4].untracked = false;
	write_trace(trace, cs);
	l[3] = "0 3 3 " + std::to_string(cs[3].relocs[0].score) + " " + n + " " +
	       std::to_string(cs[3].relocs[1].score);
	r = check(l);
	ASSERT_GE(r.log.mismatches, 1u);
	EXPECT_EQ(r.log.first[0].what, "relocation count");
}

// v2.2: a buffer learns it is high priority from its relocations. The flag is sticky and set
// before the access is counted and before the refresh it triggers (score.md, rule 4).
TEST(ScoreContract, AHighPriorityUseIsSeenByTheRefreshItTriggers)
{
	// trained-kernel.txt (the network Mesa compiles in): high_prio moves its scores.
	const Mlp m = Mlp::load(std::string(VRAMLAB_SOURCE_DIR) + "/weights/trained-kernel.txt");
	const uint64_t size = 8 * M;
	// Buffer 0 created without the flag at t1; buffer 1 at t2 and 599 reads of it (t3..t601);
	// then 0's first relocation, a depth/stencil write with bit 4, at t602: 601 ticks after
	// its create, a refresh, from reads 0, writes 1, last_write 602.
	const uint32_t at_create = S(m, size, false, 1, 1, 1, 1, 0, 0, 0);
	const uint32_t want = S(m, size, true, 602, 1, 602, 1, 0, 1, 0);
	// Were the flag set after the access (the refresh computed first), the score would be:
	const uint32_t flag_after = S(m, size, false, 602, 1, 602, 1, 0, 1, 0);
	ASSERT_NE(want, flag_after) << "high_prio must change the score, or this test tells nothing";
	ASSERT_NE(want, at_create);
	// Later: 0 read again 601 ticks on without the bit: still high priority (sticky).
	const uint32_t sticky = S(m, size, true, 1204, 1204, 602, 1, 1, 1, 0);
	ASSERT_NE(sticky, S(m, size, false, 1204, 1204, 602, 1, 1, 1, 0));
	// Buffer 1: created without the flag, its use with bit 4 at t603 refreshes nothing under
	// "access" (its previous access is 2 ticks back): it keeps the score computed before. Under
	// "age" (601 ticks after its create score) it refreshes, with the flag.
	const uint32_t b_create = S(m, 4 * K, false, 2, 2, 2, 2, 0, 0, 0);
	const uint32_t b_age = S(m, 4 * K, true, 603, 603, 2, 2, 600, 0, 0);
	ASSERT_NE(b_create, b_age);
	for (Refresh rule : {Refresh::Access, Refresh::Age}) {
		ScoreTracker t(m, kVram, rule);
		t.create(0, size, false, false);
		EXPECT_EQ(t.score(0), at_create); // the CREATE flag only
		t.create(1, 4 * K, false, false);
		for (int i = 0; i < 599; i++)
			t.access(1, false);
		EXPECT_EQ(t.ticks(), 601u);
		EXPECT_TRUE(t.access(0, true, true));
		EXPECT_EQ(t.score(0), want);
		EXPECT_EQ(t.access(1, false, true), rule == Refresh::Age);
		EXPECT_EQ(t.score(1), rule == Refresh::Age ? b_age : b_create); // "access": not rescored
		for (int i = 0; i < 600; i++) // t604..t1203
			t.access(1, false);
		EXPECT_TRUE(t.access(0, false)); // t1204: 602 ticks after its access and its score
		EXPECT_EQ(t.score(0), sticky);
	}
	// The same through a v2.2 trace: `trace scores` replays it and the recorded scores match;
	// a trace that recorded the flag-after score is a mismatch at that relocation.
	for (uint32_t recorded : {want, flag_after}) {
		const std::string path = test::temp_path("hp-contract.vrl");
		{
			TraceInfo info;
			info.meta["vram_bytes"] = std::to_string(kVram);
			info.v2_minor = 2;
			auto w = make_writer(Format::V2, path, info);
			Event e;
			e.type = EventType::Create;
			e.size = size;
			w->write(e);
			e.id = 1;
			e.size = 4 * K;
			w->write(e);
			std::vector<CsReloc> dma(599, CsReloc{1, DomainVram, 0, 0, false, kScoreNeutral});
			Event cs;
			cs.type = EventType::Cs;
			cs.ring = RingDma;
			cs.nrelocs = uint32_t(dma.size());
			cs.relocs = dma.data();
			w->write(cs);
			const CsReloc depth[] = {{0, 0, DomainVram, 0, true, recorded},
			                         {1, DomainVram, 0, 0, true, b_create}};
			cs.ring = RingGfx;
			cs.cs_scores = true;
			cs.nrelocs = 2;
			cs.relocs = depth;
			w->write(cs);
			w->close();
		}
		const ScoreCheck r = check_trace_scores(path, m, Refresh::Access);
		EXPECT_EQ(r.ticks, 603u);
		EXPECT_EQ(r.trace.scores_checked, 2u);
		if (recorded == want) {
			EXPECT_EQ(r.trace.mismatches, 0u);
		} else {
			ASSERT_EQ(r.trace.mismatches, 1u);
			EXPECT_EQ(r.trace.first[0].reloc, 0);
			EXPECT_EQ(r.trace.first[0].expected, want);
			EXPECT_EQ(r.trace.first[0].got, flag_after);
		}
	}
}

// A kernel-view trace (the DRM shim's, header source=vradeon): one CREATE per GEM object, the
// winsys's fence last in every CS with a neutral score. The contract cannot recompute its
// scores (the fences would be ticks, reclaims and the driver's high-priority surfaces are not
// in it): the checker checks the fences, repeated buffers, the score range and a shim log.
TEST(ScoreContract, AKernelViewTraceIsCheckedForWhatTheKernelSaw)
{
	const Mlp m = Mlp::load(kWeights);
	EXPECT_EQ(kScoreCap, 4290672384u); // u32(0.999f), the cap of handset-calibrated's scores
	TraceInfo kv;
	EXPECT_FALSE(is_kernel_view(kv));
	kv.meta["source"] = "mesa-r600 RADEON_BO_TRACE";
	EXPECT_FALSE(is_kernel_view(kv));
	kv.meta["source"] = "vradeon (the kernel's view)";
	EXPECT_TRUE(is_kernel_view(kv));

	// buffer 0 (own), 1 (a fence, then reclaimed by the winsys as buffer of its own: the kernel
	// sees no create), CS0 [0, 1 fence], CS1 [1, 0, 0, fence 2]
	struct Case {
		const char *what;    // the mismatch expected ("" none)
		uint32_t s0, s0_again, s1_cs1, fence;
		bool kernel_view = true;
	};
	const uint32_t N = kScoreNeutral;
	const Case cases[] = {
	        {"", 12345, 12345, kScoreCap, N},              // scores no contract gives: not checked
	        {"fence score", 12345, 12345, 7, 7},           // a fence must be neutral
	        {"repeated buffer score", 12345, 12346, 7, N}, // one score per buffer and CS
	        {"score above the cap", 12345, 12345, kScoreCap + 1, N},
	        {"score", 12345, 12345, 7, N, false},          // not a kernel view: the contract
	};
	for (const Case &c : cases) {
		SCOPED_TRACE(c.what);
		const std::string path = test::temp_path("kernel-view.vrl");
		TraceInfo info;
		info.meta["vram_bytes"] = std::to_string(kVram);
		if (c.kernel_view)
			info.meta["source"] = "vradeon (the kernel's view)";
		auto w = make_writer(Format::V2, path, info);
		Event e;
		e.type = EventType::Create;
		e.size = 64 * K;
		w->write(e);
		e.id = 1;
		e.size = 4 * K;
		w->write(e);
		e.id = 2;
		w->write(e);
		const CsReloc cs0[] = {{0, DomainVram, 0, 0, false, c.s0},
		                       {1, DomainGtt, DomainGtt, 0, false, N}};
		const CsReloc cs1[] = {{1, DomainVram, 0, 0, false, c.s1_cs1},
		                       {0, DomainVram, 0, 0, false, c.s0},
		                       {0, 0, DomainVram, 0, false, c.s0_again},
		                       {2, DomainGtt, DomainGtt, 0, false, c.fence}};
		Event cs;
		cs.type = EventType::Cs;
		cs.cs_scores = true;
		cs.nrelocs = 2;
		cs.relocs = cs0;
		w->write(cs);
		cs.nrelocs = 4;
		cs.relocs = cs1;
		w->write(cs);
		w->close();
		const ScoreCheck r = check_trace_scores(path, m, Refresh::Access);
		EXPECT_EQ(r.kernel_view, c.kernel_view);
		if (!c.kernel_view) {
			EXPECT_GT(r.trace.mismatches, 0u);
			EXPECT_EQ(r.trace.first.at(0).what, "score");
			continue;
		}
		EXPECT_EQ(r.fences, 2u);
		EXPECT_EQ(r.repeats, 1u);
		EXPECT_EQ(r.in_range, 3u);
		EXPECT_EQ(r.trace.scores_checked, 6u);
		if (!*c.what) {
			EXPECT_EQ(r.trace.mismatches, 0u);
			// a shim log is compared with what the trace recorded
			const std::string log = test::temp_path("kernel-view.log");
			const auto line = [](const CsReloc *rl, size_t n) {
				std::string s = "0";
				s.append(" ").append(std::to_string(n)).append(" ").append(std::to_string(n));
				for (size_t i = 0; i < n; i++)
					s.append(" ").append(std::to_string(rl[i].score));
				return s.append("\n");
			};
			test::write_bytes(log, line(cs0, 2) + line(cs1, 4));
			ScoreCheck l = check_trace_scores(path, m, Refresh::Access, log);
			EXPECT_EQ(l.log.scores_checked, 6u);
			EXPECT_EQ(l.mismatches(), 0u);
			test::write_bytes(log, line(cs0, 2) + "0 4 4 7 12345 12345 4294967295\n");
			l = check_trace_scores(path, m, Refresh::Access, log);
			ASSERT_EQ(l.log.mismatches, 1u);
			EXPECT_EQ(l.log.first[0].reloc, 0);
			EXPECT_EQ(l.log.first[0].expected, uint64_t(kScoreCap));
			EXPECT_EQ(l.log.first[0].got, 7u);
			continue;
		}
		ASSERT_EQ(r.trace.mismatches, 1u);
		EXPECT_EQ(r.trace.first[0].what, c.what);
		EXPECT_EQ(r.trace.first[0].cs, 1u);
	}
}

TEST(ScoreContract, TheVramInputComesFromTheHeader)
{
	TraceInfo info;
	EXPECT_THROW(trace_vram_bytes(info, "t.vrl", 0), TraceError);
	EXPECT_EQ(trace_vram_bytes(info, "t.vrl", 123), 123u);
	info.meta["vram_bytes"] = "1073741824";
	EXPECT_EQ(trace_vram_bytes(info, "t.vrl", 123), 1073741824u);
	info.meta["vram_bytes"] = "1G";
	EXPECT_THROW(trace_vram_bytes(info, "t.vrl", 0), TraceError);
	// no VRAM, or not a card's (whole MiB): trace convert --meta refuses them too
	for (const char *v : {"0", "6291457", "2199023255552"}) {
		info.meta["vram_bytes"] = v;
		EXPECT_THROW(trace_vram_bytes(info, "t.vrl", 123), TraceError) << v;
	}
	EXPECT_EQ(parse_vram_bytes("6291456"), 6291456u);
}

TEST(Calibration, TheOutputLayerIsRescaledAndTheRankingKept)
{
	const Mlp h = Mlp::load(std::string(VRAMLAB_SOURCE_DIR) + "/weights/handset.txt");
	// z and the score agree: score = u32(min(s(z), 0.999)).
	BufferStats b;
	b.size = 1 << 20;
	b.reads = 100;
	const float z = h.output_z(b);
	EXPECT_GT(z, 0.0f);
	EXPECT_LE(z, 0.150001f);
	Mlp bias_only;
	bias_only.p[117] = z;
	EXPECT_EQ(bias_only.score(BufferStats{}), h.score(b));
	// z_lo..z_hi onto 0..1.
	const Mlp c = h.rescaled_output(0.05, 0.15);
	EXPECT_NEAR(c.output_z(b), (z - 0.05) / 0.1, 1e-6);
	EXPECT_FLOAT_EQ(c.p[108], 1.5f);
	EXPECT_FLOAT_EQ(c.p[117], -0.5f);
	// The committed calibration ranks buffers as handset.txt does, over a wide range.
	const Mlp cal = Mlp::load(kWeights);
	std::mt19937_64 rng(1);
	for (int i = 0; i < 2000; i++) {
		BufferStats x, y;
		for (BufferStats *s : {&x, &y}) {
			s->size = rng() % (64 << 20);
			s->vram_size = kVram;
			s->high_prio = rng() & 1;
			s->since_read = rng() % 3000;
			s->since_write = rng() % 3000;
			s->since_cpu = rng() % 3000;
			s->reads = rng() % 600;
			s->writes = rng() % 600;
			s->cpu_ops = rng() % 600;
		}
		if (h.score(x) < h.score(y)) {
			EXPECT_LE(cal.score(x), cal.score(y));
		}
	}
	EXPECT_GT(cal.score(BufferStats{}), 1u << 31); // a fresh small buffer: no longer "old"
}

TEST(Calibration, QuantilesAndTheComputationsOfATrace)
{
	std::vector<float> v = {5, 1, 4, 2, 3};
	EXPECT_EQ(quantile(v, 0.0), 1.0f);
	EXPECT_EQ(quantile(v, 0.5), 3.0f);
	EXPECT_EQ(quantile(v, 1.0), 5.0f);
	EXPECT_EQ(quantile(v, 0.7), 4.0f); // index round(0.7 * 4) = 3
	// The hand-built trace: 3 creates (the import is not scored) + B's refresh ("access").
	const Mlp m = Mlp::load(kWeights);
	const std::string trace = test::temp_path("contract3.vrl");
	write_trace(trace, cs_records(expected(m), Refresh::Access));
	uint64_t n = 0;
	observe_computations(trace, Refresh::Access, 0, [&](const BufferStats &) { n++; });
	EXPECT_EQ(n, 3u);
	n = 0;
	observe_computations(trace, Refresh::Age, 0, [&](const BufferStats &) { n++; });
	EXPECT_EQ(n, 4u); // and A's at 603
}
