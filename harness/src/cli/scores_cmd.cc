// vramlab trace scores: the scores a trace's driver must have sent, recomputed from the trace
// alone by the score contract (harness/docs/score.md), against the scores it recorded and a DRM shim log.
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "mlp/score_contract.h"

namespace vramlab {

namespace {

struct ScoresArgs {
	std::string trace, weights, refresh = "access", shim_log, json, vram;
};

nlohmann::json mismatch_json(const ScoreMismatch &m)
{
	nlohmann::json j = {{"what", m.what}, {"cs", m.cs}, {"expected", m.expected}, {"got", m.got}};
	if (m.line)
		j["line"] = m.line;
	else
		j["time_us"] = m.time_us;
	if (m.reloc >= 0) {
		j["reloc"] = m.reloc;
		j["buffer"] = m.id;
	}
	return j;
}

nlohmann::json part_json(const ScoreCheckPart &p)
{
	nlohmann::json kinds = nlohmann::json::object();
	for (auto &[k, n] : p.by_kind)
		kinds[k] = n;
	nlohmann::json first = nlohmann::json::array();
	for (auto &m : p.first)
		first.push_back(mismatch_json(m));
	return {{"scores_checked", p.scores_checked},
	        {"mismatches", p.mismatches},
	        {"by_kind", kinds},
	        {"first_mismatches", first}};
}

void print_part(std::FILE *out, const ScoreCheckPart &p, const char *against, const char *got)
{
	if (!p.mismatches)
		return;
	std::fprintf(out, "mismatches with %s (%s%llu):\n", against,
	             p.mismatches > p.first.size() ? "the first 10 of " : "all ",
	             (unsigned long long)p.mismatches);
	for (const ScoreMismatch &m : p.first) {
		if (m.line)
			std::fprintf(out, "  line %llu (CS %llu): ", (unsigned long long)m.line,
			             (unsigned long long)m.cs);
		else
			std::fprintf(out, "  CS %llu (at %llu.%03llu ms): ", (unsigned long long)m.cs,
			             (unsigned long long)(m.time_us / 1000),
			             (unsigned long long)(m.time_us % 1000));
		if (m.what == "score")
			std::fprintf(out, "relocation %lld, buffer %u: expected %llu, %s %llu\n",
			             (long long)m.reloc, m.id, (unsigned long long)m.expected, got,
			             (unsigned long long)m.got);
		else if (m.reloc >= 0) // the kernel view's checks
			std::fprintf(out, "relocation %lld, buffer %u: %s: expected %s%llu, %s %llu\n",
			             (long long)m.reloc, m.id, m.what.c_str(),
			             m.what == "score above the cap" ? "at most " : "",
			             (unsigned long long)m.expected, got, (unsigned long long)m.got);
		else if (m.what == "missing line")
			std::fprintf(out, "no line for this CS (%llu relocations)\n",
			             (unsigned long long)m.expected);
		else if (m.what == "extra line")
			std::fprintf(out, "a line after the trace's last CS (%llu relocations)\n",
			             (unsigned long long)m.got);
		else
			std::fprintf(out, "%s: expected %llu, %s %llu\n", m.what.c_str(),
			             (unsigned long long)m.expected, got, (unsigned long long)m.got);
	}
	std::fprintf(out, "  by kind:");
	const char *sep = " ";
	for (auto &[k, n] : p.by_kind) {
		std::fprintf(out, "%s%s %llu", sep, k.c_str(), (unsigned long long)n);
		sep = ", ";
	}
	std::fprintf(out, "\n");
}

void run(const ScoresArgs &a)
{
	check_json_path(a.json);
	const std::string weights = a.weights.empty() ? default_weights_path("handset-calibrated.txt")
	                                              : a.weights;
	const Mlp m = Mlp::load(weights);
	const Refresh rule = parse_refresh(a.refresh);
	const uint64_t vram = a.vram.empty() ? 0 : parse_vram_mib(a.vram) << 20;
	const ScoreCheck c = check_trace_scores(a.trace, m, rule, a.shim_log, vram);

	std::FILE *out = a.json == "-" ? stderr : stdout;
	std::fprintf(out, "%s: %llu CS records (%llu with a score chunk), %llu relocations",
	             a.trace.c_str(), (unsigned long long)c.cs, (unsigned long long)c.cs_with_chunk,
	             (unsigned long long)c.relocations);
	if (!c.kernel_view) // a kernel-view trace's ticks are not the driver's: not counted
		std::fprintf(out, ", %llu ticks", (unsigned long long)c.ticks);
	std::fprintf(out, "%s\n", c.truncated ? " (truncated: read up to its last FRAME)" : "");
	if (c.kernel_view) {
		std::fprintf(out,
		             "a kernel-view trace (source=%s): what the kernel got, not the driver's own "
		             "trace; the score contract cannot recompute its scores (fence buffers are "
		             "creates and relocations here, buffer-cache reclaims, the driver's CPU maps "
		             "and high-priority surfaces are not in it: harness/docs/score.md)\n",
		             c.source.c_str());
		std::fprintf(out, "checked, in the %llu CS records with a score chunk: the fence (the "
		                  "last relocation) neutral (%llu), a repeated buffer with its first "
		                  "relocation's score (%llu), every other score neutral or at most %u, "
		                  "the network's cap (%llu)%s\n",
		             (unsigned long long)c.cs_with_chunk, (unsigned long long)c.fences,
		             (unsigned long long)c.repeats, kScoreCap, (unsigned long long)c.in_range,
		             c.shim ? "; the shim log against the recorded scores" : "");
		std::fprintf(out, "not checked: the value of each score (--weights and --refresh are not "
		                  "used; check the driver's own trace, RADEON_BO_TRACE)\n");
	} else {
		std::fprintf(out, "contract: weights %s, refresh %s, vram_bytes %llu\n",
		             weights.c_str(), refresh_name(rule), (unsigned long long)c.vram_bytes);
	}
	if (!c.cs)
		std::fprintf(out, "no CS records (a v2.0 or thesis trace): nothing to check\n");
	std::fprintf(out, "against the trace: %llu %s checked, %llu mismatches\n",
	             (unsigned long long)c.trace.scores_checked,
	             c.kernel_view ? "relocations" : "scores", (unsigned long long)c.trace.mismatches);
	if (c.shim) {
		std::fprintf(out, "against the shim log %s: %llu lines, %llu scores checked, %llu "
		                  "mismatches",
		             a.shim_log.c_str(), (unsigned long long)c.shim_lines,
		             (unsigned long long)c.log.scores_checked, (unsigned long long)c.log.mismatches);
		if (c.shim_unchecked)
			std::fprintf(out, " (%llu lines after the truncated trace's end not checked)",
			             (unsigned long long)c.shim_unchecked);
		if (c.untracked)
			std::fprintf(out, "; %llu untracked relocations (fences) in the log",
			             (unsigned long long)c.untracked);
		std::fprintf(out, "\n");
	}
	print_part(out, c.trace, "the trace's recorded scores", "recorded");
	print_part(out, c.log, "the shim log", "logged");
	std::fflush(out);

	if (!a.json.empty()) {
		nlohmann::json j = {{"schema", "vramlab-trace-scores"},
		                    {"version", 1},
		                    {"trace", a.trace},
		                    {"weights", weights},
		                    {"refresh", refresh_name(rule)},
		                    {"vram_bytes", c.vram_bytes},
		                    {"truncated", c.truncated},
		                    {"kernel_view", c.kernel_view},
		                    {"kernel_view_checks",
		                     c.kernel_view ? nlohmann::json{{"fences", c.fences},
		                                                    {"repeats", c.repeats},
		                                                    {"in_range", c.in_range},
		                                                    {"score_cap", kScoreCap}}
		                                   : nlohmann::json(nullptr)},
		                    {"cs", c.cs},
		                    {"cs_with_chunk", c.cs_with_chunk},
		                    {"relocations", c.relocations},
		                    {"ticks", c.kernel_view ? nlohmann::json(nullptr) : nlohmann::json(c.ticks)},
		                    {"mismatches", c.mismatches()},
		                    {"against_trace", part_json(c.trace)},
		                    {"against_shim_log", nullptr}};
		if (c.shim) {
			nlohmann::json s = part_json(c.log);
			s["file"] = a.shim_log;
			s["lines"] = c.shim_lines;
			s["unchecked_lines"] = c.shim_unchecked;
			s["untracked_relocations"] = c.untracked;
			j["against_shim_log"] = s;
		}
		write_json(a.json, j);
	}
	if (c.mismatches())
		throw TraceError(a.trace + ": " + std::to_string(c.mismatches()) +
		                 (c.mismatches() == 1 ? " mismatch" : " mismatches") +
		                 (c.kernel_view ? " in the kernel's view" : " with the score contract"));
}

} // namespace

void add_trace_scores_command(CLI::App &trace)
{
	static ScoresArgs a;
	auto *sc = trace.add_subcommand(
	        "scores", "recompute the scores of every CS record by the score contract (harness/docs/score.md) "
	                  "and compare them with the trace's and a DRM shim log's");
	sc->add_option("FILE", a.trace, "a v2.1 or v2.2 trace (CS records)")
	    ->required()
	    ->check(CLI::ExistingFile);
	sc->add_option("--weights", a.weights, "weights file (default weights/handset-calibrated.txt)");
	sc->add_option("--refresh", a.refresh, "refresh rule: access (the thesis's, Mesa's default) or "
	                                       "age (RADEON_BO_SCORE_REFRESH=age)")
	    ->check(CLI::IsMember({"access", "age"}))
	    ->capture_default_str();
	sc->add_option("--shim-log", a.shim_log,
	               "the DRM shim's log: one line per CS, \"<ring> <nrelocs> <nscores> <score>...\"");
	sc->add_option("--vram", a.vram, "VRAM size input for a trace whose header has no vram_bytes "
	                                 "(MiB, or with K/M/G)");
	sc->add_option("--json", a.json, "write the result as JSON to this file (- for stdout)");
	sc->callback([] { run(a); });
}

} // namespace vramlab
