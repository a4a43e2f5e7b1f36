// The shared thesis corpus: Appendix A exactness, repair keeps the totals, invariants on replay.
#include <cstdlib>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "helpers.h"
#include "trace/filters.h"
#include "sim/run.h"
#include "sim/sim.h"
#include "trace/repair.h"
#include "trace/stats.h"

using namespace vramlab;

namespace {

struct Row {
	std::string name;
	uint64_t v[7];
};

std::vector<Row> appendix()
{
	std::ifstream f(std::string(VRAMLAB_SHARED_TRACES) + "/appendix-a.csv");
	std::vector<Row> rows;
	std::string line;
	std::getline(f, line); // header
	while (std::getline(f, line)) {
		std::istringstream in(line);
		Row r;
		std::getline(in, r.name, ',');
		std::string field;
		for (auto &x : r.v) {
			std::getline(in, field, ',');
			x = std::stoull(field);
		}
		rows.push_back(r);
	}
	return rows;
}

} // namespace

TEST(Corpus, StatsEqualAppendixA)
{
	if (!test::shared_corpus()) {
		// A user without ../shared may skip; CI (VRAMLAB_REQUIRE_CORPUS=1) may not.
		if (const char *req = std::getenv("VRAMLAB_REQUIRE_CORPUS"); req && *req == '1')
			FAIL() << VRAMLAB_SHARED_TRACES << " is missing and VRAMLAB_REQUIRE_CORPUS=1";
		GTEST_SKIP() << "../shared/traces/thesis not present";
	}
	const auto rows = appendix();
	ASSERT_EQ(rows.size(), 27u);
	for (auto &row : rows) {
		auto r = open_trace(std::string(VRAMLAB_SHARED_TRACES) + "/" + row.name);
		const TraceStats s = compute_stats(*r, row.name);
		EXPECT_EQ(s.buffers, row.v[0]) << row.name;
		EXPECT_EQ(s.runtime_ms, row.v[1]) << row.name;
		EXPECT_EQ(s.creates, row.v[2]) << row.name;
		EXPECT_EQ(s.cpu_ops, row.v[3]) << row.name;
		EXPECT_EQ(s.reads, row.v[4]) << row.name;
		EXPECT_EQ(s.writes, row.v[5]) << row.name;
		EXPECT_EQ(s.destroys, row.v[6]) << row.name;
	}
}

TEST(Corpus, DefectCountsOfOpenArena)
{
	if (!test::shared_corpus()) {
		// A user without ../shared may skip; CI (VRAMLAB_REQUIRE_CORPUS=1) may not.
		if (const char *req = std::getenv("VRAMLAB_REQUIRE_CORPUS"); req && *req == '1')
			FAIL() << VRAMLAB_SHARED_TRACES << " is missing and VRAMLAB_REQUIRE_CORPUS=1";
		GTEST_SKIP() << "../shared/traces/thesis not present";
	}
	auto r = open_trace(std::string(VRAMLAB_SHARED_TRACES) + "/openarena1.bin");
	const TraceStats s = compute_stats(*r, "openarena1.bin");
	EXPECT_EQ(s.never_used, 26096u); // trace-format.md
	// 3.29 M events (not counting repeated destroys) fall on an already-destroyed index.
	EXPECT_EQ((s.events_on_destroyed - s.repeated_destroys) / 10000, 329u);
}

TEST(Corpus, RepairKeepsTotalsAndMovesEvents)
{
	const std::string src = test::repo_trace("nexuiz1.bin"), out = test::temp_path("rep.bin");
	std::vector<bool> never_used;
	auto a = open_trace(src);
	const TraceStats before = compute_stats(*a, "a", &never_used);
	auto r = open_trace(src);
	RepairIds rep(*r, never_used);
	auto w = make_writer(Format::Bostats1, out, r->info());
	Event e;
	while (rep.next(e))
		w->write(e);
	w->close();
	auto b = open_trace(out);
	const TraceStats after = compute_stats(*b, "b");
	EXPECT_EQ(before.buffers, after.buffers);
	EXPECT_EQ(before.runtime_ms, after.runtime_ms);
	EXPECT_EQ(before.creates, after.creates);
	EXPECT_EQ(before.cpu_ops, after.cpu_ops);
	EXPECT_EQ(before.reads, after.reads);
	EXPECT_EQ(before.writes, after.writes);
	EXPECT_EQ(before.destroys, after.destroys);
	EXPECT_GT(rep.report().moved, 0u);
	EXPECT_LT(after.events_on_destroyed, before.events_on_destroyed / 10);
	EXPECT_LT(after.never_used, before.never_used);
	EXPECT_EQ(after.events_on_destroyed, rep.report().unresolved);
}

TEST(Corpus, ReplayKeepsInvariants)
{
	const CompactTrace t = load_compact(test::repo_trace("nederland1.bin"), OnDestroyed::Repair);
	const Mlp m = Mlp::load(std::string(VRAMLAB_SOURCE_DIR) + "/weights/handset.txt");
	for (auto &p : policies()) {
		SimConfig c;
		c.vram = 64ull << 20;
		c.mlp = &m;
		c.check_every = 97;
		SimResult r;
		ASSERT_NO_THROW(r = p.run(t, c)) << p.name;
		EXPECT_EQ(r.entries, t.ops.size()) << p.name;
		EXPECT_FALSE(r.cut) << p.name;
	}
}

TEST(Corpus, ResultsDoNotDependOnThreadCount)
{
	RunSpec spec;
	spec.traces = {test::repo_trace("nederland1.bin"), test::repo_trace("supertuxkart2.bin")};
	spec.policies = {"lru", "minmax", "gdsf"};
	spec.vram_mib = {64, 128};
	spec.threads = 1;
	const RunOutput one = run_all(spec);
	spec.threads = 2;
	const RunOutput two = run_all(spec);
	ASSERT_EQ(one.rows.size(), 12u);
	ASSERT_EQ(two.rows.size(), 12u);
	for (size_t i = 0; i < one.rows.size(); i++) {
		EXPECT_EQ(one.rows[i].trace, two.rows[i].trace);
		EXPECT_EQ(one.rows[i].policy, two.rows[i].policy);
		EXPECT_EQ(one.rows[i].r.cost, two.rows[i].r.cost) << i;
		EXPECT_EQ(one.rows[i].r.evictions, two.rows[i].r.evictions) << i;
	}
	EXPECT_EQ(one.rows[0].trace, "nederland1.bin");
	EXPECT_EQ(one.rows[0].policy, "lru");
	EXPECT_EQ(one.rows[0].vram_mib, 64u);
	EXPECT_GT(one.rows[0].skipped, 0u);
}
