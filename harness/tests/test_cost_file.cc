// Cost files (kmodel/cost_file.h, docs/cost-file.md): the default file is the built-in costs,
// a measured file changes the transfer time term by term, and every bad value is refused with
// one line naming the file and the field.
#include <gtest/gtest.h>
#include <map>

#include "helpers.h"
#include "kmodel/cost_file.h"
#include "kmodel/ensemble.h"
#include "kmodel/kernel_model.h"
#include "kmodel/kernel_trace.h"
#include "train/objective.h"
#include "trace/event.h"

using namespace vramlab;

namespace {

std::string default_file() { return std::string(VRAMLAB_SOURCE_DIR) + "/costs/default.json"; }

// A valid file with one line replaced (or added when `field` is new).
std::string costs_text(const std::string &field = "", const std::string &value = "")
{
	std::vector<std::pair<std::string, std::string>> f{
	        {"format", "\"vramlab-cost\""}, {"version", "1"},        {"source", "\"measured\""},
	        {"card", "\"Radeon HD 6870\""}, {"pcie_gbps", "6.1"},     {"vram_gbps", "120"},
	        {"move_latency_us", "35"},      {"gtt_reads_per_use", "1.5"}};
	bool found = false;
	for (auto &[k, v] : f)
		if (k == field) {
			v = value;
			found = true;
		}
	if (!found && !field.empty())
		f.push_back({field, value});
	std::string s = "{";
	for (auto &[k, v] : f)
		if (!v.empty())
			s += (s.size() > 1 ? ",\n \"" : "\n \"") + k + "\": " + v;
	return s + "\n}\n";
}

// The message of the TraceError parse_cost_file throws (empty: none thrown).
std::string error_of(const std::string &text)
{
	try {
		parse_cost_file(text, "card.json");
	} catch (const TraceError &e) {
		return e.what();
	}
	return "";
}

} // namespace

TEST(CostFile, DefaultFileIsTheBuiltInCosts)
{
	const CostFile f = load_cost_file(default_file());
	const KernelConfig k;
	EXPECT_EQ(f.source, "assumed");
	EXPECT_TRUE(f.card.empty());
	// exactly equal: the default results do not move by a bit
	EXPECT_EQ(f.pcie_gbps, k.pcie_gbps);
	EXPECT_EQ(f.vram_gbps, k.vram_gbps);
	EXPECT_EQ(f.move_latency_us, k.move_latency_us);
	EXPECT_EQ(f.gtt_reads_per_use, k.gtt_reads_per_use);
	const CostFile b = builtin_costs();
	EXPECT_TRUE(b.builtin());
	EXPECT_EQ(b.source, "assumed");
	EXPECT_EQ(f.pcie_gbps, b.pcie_gbps);
	EXPECT_EQ(f.vram_gbps, b.vram_gbps);
	EXPECT_EQ(f.move_latency_us, b.move_latency_us);
	EXPECT_EQ(f.gtt_reads_per_use, b.gtt_reads_per_use);
	// the other places a default cost lives
	EXPECT_EQ(CostBand{}.pcie_gbps, f.pcie_gbps);
	EXPECT_EQ(CostBand{}.gtt_factor, 1.0);
	EXPECT_TRUE(ObjectiveConfig{}.costs.builtin());
	EXPECT_EQ(ObjectiveConfig{}.costs.pcie_gbps, f.pcie_gbps);
	// and the file's costs applied give the built-in configuration's
	KernelConfig applied;
	applied.pcie_gbps = applied.vram_gbps = applied.move_latency_us = applied.gtt_reads_per_use = 0;
	f.apply(applied);
	EXPECT_EQ(applied.pcie_gbps, k.pcie_gbps);
	EXPECT_EQ(applied.vram_gbps, k.vram_gbps);
	EXPECT_EQ(applied.move_latency_us, k.move_latency_us);
	EXPECT_EQ(applied.gtt_reads_per_use, k.gtt_reads_per_use);
	// the default file is within its own bounds
	for (const CostBounds &bd : {kPcieBounds, kVramBounds, kMoveLatencyBounds, kGttReadsBounds}) {
		const double v = bd.field == std::string("pcie_gbps")   ? f.pcie_gbps
		                 : bd.field == std::string("vram_gbps") ? f.vram_gbps
		                 : bd.field == std::string("move_latency_us") ? f.move_latency_us
		                                                              : f.gtt_reads_per_use;
		EXPECT_GE(v, bd.min) << bd.field;
		EXPECT_LE(v, bd.max) << bd.field;
	}
}

TEST(CostFile, ParsesAMeasuredFile)
{
	const CostFile c = parse_cost_file(costs_text("pcie_link", "\"5.0 GT/s PCIe x16\""), "m.json");
	EXPECT_EQ(c.path, "m.json");
	EXPECT_FALSE(c.builtin());
	EXPECT_EQ(c.source, "measured");
	EXPECT_EQ(c.card, "Radeon HD 6870");
	EXPECT_EQ(c.pcie_link, "5.0 GT/s PCIe x16");
	EXPECT_EQ(c.pcie_gbps, 6.1);
	EXPECT_EQ(c.vram_gbps, 120);
	EXPECT_EQ(c.move_latency_us, 35);
	EXPECT_EQ(c.gtt_reads_per_use, 1.5);
	const nlohmann::json j = c.json();
	EXPECT_EQ(j["file"], "m.json");
	EXPECT_EQ(j["source"], "measured");
	EXPECT_EQ(j["card"], "Radeon HD 6870");
	EXPECT_FALSE(j.contains("kernel"));
	EXPECT_EQ(j["gtt_reads_per_use"], 1.5);
	EXPECT_TRUE(builtin_costs().json()["file"].is_null());
	// unknown fields are ignored (a calibration may keep its raw measurements beside them)
	EXPECT_EQ(parse_cost_file(costs_text("measurements", "{\"vertex\": [1, 2]}"), "m.json").pcie_gbps,
	          6.1);
	// the bounds are inclusive; integers are numbers too
	EXPECT_EQ(parse_cost_file(costs_text("pcie_gbps", "64"), "m.json").pcie_gbps, 64);
	EXPECT_EQ(parse_cost_file(costs_text("move_latency_us", "0.1"), "m.json").move_latency_us, 0.1);
	EXPECT_NE(c.describe().find("m.json (measured, Radeon HD 6870): PCIe 6.1 GB/s"),
	          std::string::npos)
	        << c.describe();
}

TEST(CostFile, MeasuredCostsChangeTheTransferTimeTermByTerm)
{
	const KernelTrace t = load_kernel_trace(test::repo_trace("nexuiz1.bin"));
	KernelConfig base;
	base.vram = 64ull << 20;
	const KernelResult r = simulate_kernel(t, base);
	const double moved = double(r.bytes_to_vram() + r.bytes_from_vram()), moves = double(r.moves()),
	             gtt = double(r.gtt_access_bytes);
	ASSERT_GT(moved, 0);
	ASSERT_GT(gtt, 0);
	const double bytes_term = moved / 8e3, move_term = moves * 20,
	             gtt_term = gtt * (1 / 8e3 - 1 / 232e3);
	EXPECT_NEAR(r.transfer_us, bytes_term + move_term + gtt_term, r.transfer_us * 1e-12);

	auto with = [&](const std::string &field, const std::string &value) {
		std::string s = "{\"format\": \"vramlab-cost\", \"version\": 1, \"source\": \"measured\"";
		std::map<std::string, std::string> v{{"pcie_gbps", "8"},
		                                     {"vram_gbps", "232"},
		                                     {"move_latency_us", "20"},
		                                     {"gtt_reads_per_use", "1"}};
		v[field] = value;
		for (auto &[k, x] : v)
			s += ", \"" + k + "\": " + x;
		KernelConfig c = base;
		parse_cost_file(s + "}", "m.json").apply(c);
		const KernelResult m = simulate_kernel(t, c);
		// the costs change no decision of the model: the same counters
		EXPECT_EQ(m.mem[MemVram], r.mem[MemVram]);
		EXPECT_EQ(m.gtt_access_bytes, r.gtt_access_bytes);
		EXPECT_EQ(m.digest, r.digest);
		return m.transfer_us;
	};
	// the file's defaults give the built-in figure to the bit
	EXPECT_EQ(with("pcie_gbps", "8"), r.transfer_us);
	// doubling PCIe halves the byte term (and the GTT term's PCIe part)
	EXPECT_NEAR(with("pcie_gbps", "16"), bytes_term / 2 + move_term + gtt * (1 / 16e3 - 1 / 232e3),
	            r.transfer_us * 1e-12);
	// doubling the latency doubles the move term
	EXPECT_NEAR(with("move_latency_us", "40"), bytes_term + 2 * move_term + gtt_term,
	            r.transfer_us * 1e-12);
	// two reads per GPU use in GTT double the GTT term
	EXPECT_NEAR(with("gtt_reads_per_use", "2"), bytes_term + move_term + 2 * gtt_term,
	            r.transfer_us * 1e-12);
	// a faster VRAM makes the GTT penalty larger
	EXPECT_NEAR(with("vram_gbps", "464"), bytes_term + move_term + gtt * (1 / 8e3 - 1 / 464e3),
	            r.transfer_us * 1e-12);
	// a band scales the file's GTT charge, it does not replace it
	KernelConfig c = base;
	c.gtt_reads_per_use = 2;
	EXPECT_NEAR(band_transfer_us(r, c, {3, 8}), bytes_term + move_term + 6 * gtt_term,
	            r.transfer_us * 1e-12);
}

TEST(CostFile, RefusesBadFilesWithOneLineNamingTheField)
{
	struct Case {
		const char *what;
		std::string text, expect;
	};
	const std::vector<Case> cases{
	        {"malformed", "{\"format\": \"vramlab-cost\", \"version\": 1,,}",
	         "card.json: malformed JSON at byte 41: "}, // the second comma
	        {"empty", "", "card.json: malformed JSON at byte 1: "},
	        {"not an object", "[1, 2]", "card.json: not a cost file: the JSON is an array"},
	        {"format missing", costs_text("format", ""), "card.json: format: missing"},
	        {"other format", costs_text("format", "\"vramlab-sim\""),
	         "card.json: format: \"vramlab-sim\" is not \"vramlab-cost\""},
	        {"version missing", costs_text("version", ""), "card.json: version: missing"},
	        {"version 2", costs_text("version", "2"),
	         "card.json: version: 2 is not supported (this vramlab reads version 1)"},
	        {"version string", costs_text("version", "\"1\""),
	         "card.json: version: \"1\" is not supported"},
	        {"version 1.0", costs_text("version", "1.5"), "card.json: version: 1.5 is not supported"},
	        {"source", costs_text("source", "\"guessed\""),
	         "card.json: source: \"guessed\" is not \"assumed\" or \"measured\""},
	        {"source missing", costs_text("source", ""), "card.json: source: missing"},
	        {"card a number", costs_text("card", "6870"), "card.json: card: must be a string, not a number"},
	        {"pcie missing", costs_text("pcie_gbps", ""), "card.json: pcie_gbps: missing (PCIe"},
	        {"vram missing", costs_text("vram_gbps", ""), "card.json: vram_gbps: missing"},
	        {"latency missing", costs_text("move_latency_us", ""), "card.json: move_latency_us: missing"},
	        {"gtt missing", costs_text("gtt_reads_per_use", ""), "card.json: gtt_reads_per_use: missing"},
	        {"negative", costs_text("pcie_gbps", "-8"),
	         "card.json: pcie_gbps: -8 is not positive (0.1..64 GB/s)"},
	        {"zero", costs_text("move_latency_us", "0"),
	         "card.json: move_latency_us: 0 is not positive (0.1..10000 us)"},
	        {"zero gtt", costs_text("gtt_reads_per_use", "0.0"),
	         "card.json: gtt_reads_per_use: 0 is not positive"},
	        {"too fast", costs_text("pcie_gbps", "100"),
	         "card.json: pcie_gbps: 100 is out of range 0.1..64 GB/s"},
	        {"too slow", costs_text("vram_gbps", "0.5"),
	         "card.json: vram_gbps: 0.5 is out of range 1..2000 GB/s"},
	        {"latency too long", costs_text("move_latency_us", "20000"),
	         "card.json: move_latency_us: 20000 is out of range 0.1..10000 us"},
	        {"latency too short", costs_text("move_latency_us", "0.01"),
	         "card.json: move_latency_us: 0.01 is out of range"},
	        {"gtt too large", costs_text("gtt_reads_per_use", "1000"),
	         "card.json: gtt_reads_per_use: 1000 is out of range 0.01..100 reads"},
	        {"NaN string", costs_text("vram_gbps", "\"NaN\""),
	         "card.json: vram_gbps: \"NaN\" is a string, not a number"},
	        {"inf string", costs_text("pcie_gbps", "\"inf\""),
	         "card.json: pcie_gbps: \"inf\" is a string, not a number"},
	        {"overflow", costs_text("move_latency_us", "1e999"),
	         "card.json: move_latency_us: number overflow"},
	        {"null", costs_text("pcie_gbps", "null"), "card.json: pcie_gbps: must be a number, not null"},
	        {"boolean", costs_text("pcie_gbps", "true"),
	         "card.json: pcie_gbps: must be a number, not a boolean"},
	        {"vram below pcie", costs_text("vram_gbps", "4"),
	         "card.json: vram_gbps: 4 is below pcie_gbps 6.1"},
	};
	for (const Case &c : cases) {
		const std::string e = error_of(c.text);
		EXPECT_EQ(e.rfind(c.expect, 0), 0u) << c.what << ": " << e;
		EXPECT_EQ(e.find('\n'), std::string::npos) << c.what << ": " << e;
	}
	// NaN is not JSON: a bare NaN is malformed, with its offset
	const std::string nan = costs_text("pcie_gbps", "NaN");
	const std::string e = error_of(nan);
	EXPECT_EQ(e.rfind("card.json: malformed JSON at byte " +
	                          std::to_string(nan.find("NaN") + 1) + ": ",
	                  0),
	          0u)
	        << e;
}

TEST(CostFile, UnreadableFile)
{
	try {
		load_cost_file(test::temp_path("no-such-costs.json"));
		FAIL() << "no error";
	} catch (const TraceError &e) {
		EXPECT_NE(std::string(e.what()).find("no-such-costs.json: cannot read the cost file"),
		          std::string::npos);
	}
	EXPECT_THROW(load_cost_file(std::string(VRAMLAB_SOURCE_DIR) + "/costs"), TraceError);
}
