// vramlab trace stats | show | convert | repair
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/export_kunit.h"
#include "mlp/score_contract.h"
#include "sim/run.h"
#include "trace/format.h"
#include "trace/filters.h"
#include "trace/repair.h"
#include "trace/stats.h"
#include "util/output_file.h"

namespace vramlab {

namespace {

Format format_for_output(const std::string &path, const std::string &to, Format fallback)
{
	if (!to.empty())
		return parse_format(to);
	auto ends = [&](const char *ext) {
		const std::string e(ext);
		return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
	};
	if (ends(".bin"))
		return Format::Bostats1;
	if (ends(".vrl") || ends(".zst"))
		return Format::V2;
	if (ends(".txt"))
		return Format::Text;
	return fallback;
}

void cmd_stats(const std::vector<std::string> &files, bool json)
{
	nlohmann::json arr = nlohmann::json::array();
	if (!json)
		std::printf("%-20s %8s %10s %8s %10s %10s %9s %8s %10s %8s %8s %10s %9s\n", "trace",
		            "buffers", "runtime_ms", "creates", "cpu_ops", "reads", "writes",
		            "destroys", "on_destr.", "rep.destr", "unused", "impossible", "max_MiB");
	std::vector<std::string> damaged;
	uint64_t impossible = 0, traces = 0;
	for (auto &f : trace_files(files, "FILE")) {
		auto r = open_trace(f);
		const TraceStats s = compute_stats(*r, f == "-" ? "stdin" : base_name(f));
		if (json) {
			arr.push_back({{"name", s.name},
			               {"buffers", s.buffers},
			               {"runtime_ms", s.runtime_ms},
			               {"creates", s.creates},
			               {"cpu_ops", s.cpu_ops},
			               {"reads", s.reads},
			               {"writes", s.writes},
			               {"destroys", s.destroys},
			               {"events_on_destroyed", s.events_on_destroyed},
			               {"repeated_destroys", s.repeated_destroys},
			               {"never_used", s.never_used},
			               {"impossible_creates", s.impossible},
			               {"impossible_creates_1gib", s.impossible_gib_plus},
			               {"largest_create", s.largest_create},
			               {"frames", s.frames},
			               {"cs", s.cs}});
		} else {
			std::printf("%-20s %8llu %10llu %8llu %10llu %10llu %9llu %8llu %10llu %8llu %8llu "
			            "%10llu %9.1f\n",
			            s.name.c_str(), (unsigned long long)s.buffers,
			            (unsigned long long)s.runtime_ms, (unsigned long long)s.creates,
			            (unsigned long long)s.cpu_ops, (unsigned long long)s.reads,
			            (unsigned long long)s.writes, (unsigned long long)s.destroys,
			            (unsigned long long)s.events_on_destroyed,
			            (unsigned long long)s.repeated_destroys, (unsigned long long)s.never_used,
			            (unsigned long long)s.impossible, s.largest_create / 1048576.0);
		}
		traces++;
		impossible += s.impossible;
		if (s.impossible)
			damaged.push_back(s.name);
	}
	if (json) { // one object with the schema, as every JSON the command writes
		const nlohmann::json j = {{"schema", "vramlab-trace-stats"}, {"version", 1},
		                          {"traces", std::move(arr)}};
		std::printf("%s\n", j.dump(2).c_str());
		return;
	}
	if (!damaged.empty()) { // the corpus defect named, as the dead-id one is counted above
		std::printf("\nimpossible creates (over %llu MiB, a capture defect): %llu in %zu of %llu "
		            "traces:",
		            (unsigned long long)(kImpossibleAbove >> 20), (unsigned long long)impossible,
		            damaged.size(), (unsigned long long)traces);
		for (auto &d : damaged)
			std::printf(" %s", d.c_str());
		std::printf("\n");
	}
}

void cmd_show(const std::string &file, const std::string &color)
{
	const bool tty = color == "always" || (color == "auto" && stdout_is_tty());
	auto r = open_trace(file);
	const bool fine = r->info().format == Format::V2; // microsecond times
	for (auto &[k, v] : r->info().meta)
		std::printf("# %s: %s\n", k.c_str(), v.c_str());
	static const char *const kColor[] = {"\033[32m", "\033[36m", "\033[33m", "\033[31m",
	                                     "\033[35m", "\033[1m",  "\033[34m", "\033[2m",
	                                     "\033[1;36m"};
	Event e;
	char when[48];
	while (r->next(e)) {
		if (fine)
			std::snprintf(when, sizeof when, "%llu.%03llu ms",
			              (unsigned long long)(e.time_us / 1000),
			              (unsigned long long)(e.time_us % 1000));
		else
			std::snprintf(when, sizeof when, "%llu ms", (unsigned long long)(e.time_us / 1000));
		const char *on = tty ? kColor[unsigned(e.type)] : "";
		const char *off = tty ? "\033[0m" : "";
		switch (e.type) {
		case EventType::Create:
			std::printf("%screate buffer %u at %s (%llu bytes%s%s)%s\n", on, e.id, when,
			            (unsigned long long)e.size, e.high_prio ? ", high priority" : "",
			            e.imported ? ", imported" : "", off);
			break;
		case EventType::Frame: std::printf("%send of frame at %s%s\n", on, when, off); break;
		case EventType::Score:
			std::printf("%sscore buffer %u at %s: %u%s\n", on, e.id, when, e.score, off);
			break;
		case EventType::Context:
			std::printf("%scontext %u from %s%s\n", on, e.id, when, off);
			break;
		case EventType::Cs:
			std::printf("%scommand stream on ring %u at %s: %u buffers%s%s\n", on, e.ring, when,
			            e.nrelocs, e.cs_scores ? ", scores" : "", off);
			for (uint32_t i = 0; i < e.nrelocs; i++) {
				const CsReloc &rl = e.relocs[i];
				std::printf("  buffer %u read %u write %u prio %u%s", rl.id, rl.read_domains,
				            rl.write_domain, rl.prio,
				            rl.high_prio_use ? " (high-priority use)" : "");
				if (e.cs_scores)
					std::printf(" score %u", rl.score);
				std::printf("\n");
			}
			break;
		default:
			std::printf("%s%s buffer %u at %s%s\n", on, std::string(event_name(e.type)).c_str(),
			            e.id, when, off);
		}
	}
}

// Counts what a conversion loses, so the user is told.
struct Losses {
	uint64_t on_destroyed = 0, v2_only = 0, domains = 0, clipped = 0, sub_ms = 0, imported = 0;
	uint64_t prio_from_use = 0; // create flags set from a later high-priority use (v2.2)
	bool meta = false;
};

// Per buffer: a relocation of it has the high-priority-use bit (v2.2). bostats1 and the text
// have a create flag only; the models' whole-life rule (trace-v2.md) decides it there too.
std::vector<bool> high_prio_use(const std::string &file)
{
	auto r = open_trace(file);
	std::vector<bool> use;
	Event e;
	while (r->next(e)) {
		if (e.type == EventType::Create && use.size() <= e.id)
			use.resize(size_t(e.id) + 1, false);
		if (e.type != EventType::Cs)
			continue;
		for (uint32_t i = 0; i < e.nrelocs; i++)
			if (e.relocs[i].high_prio_use && e.relocs[i].id < use.size())
				use[e.relocs[i].id] = true;
	}
	return use;
}

uint32_t count_creates(const std::string &file)
{
	auto r = open_trace(file);
	Event e;
	uint32_t n = 0;
	while (r->next(e))
		n += e.type == EventType::Create;
	return n;
}

// --meta key=value: what a v2 header holds, each key once, and vram_bytes as its readers read
// it (sim, trace scores): a file they would refuse is not written.
void check_meta(const std::vector<std::string> &meta, Format target)
{
	if (!meta.empty() && target != Format::V2)
		throw CLI::ValidationError("--meta", "changes nothing: " + std::string(format_name(target)) +
		                                          " has no header (write v2)");
	std::vector<std::string> keys;
	for (const std::string &kv : meta) {
		const auto eq = kv.find('=');
		if (eq == std::string::npos || eq == 0)
			throw CLI::ValidationError("--meta", "wants key=value, got \"" + kv + "\"");
		const std::string key = kv.substr(0, eq);
		if (kv.find('\n') != std::string::npos)
			throw CLI::ValidationError("--meta", "\"" + key + "\": a header entry is one line");
		if (std::find(keys.begin(), keys.end(), key) != keys.end())
			throw CLI::ValidationError("--meta", "\"" + key + "\" is given twice");
		keys.push_back(key);
		if (key == "vram_bytes") {
			try {
				parse_vram_bytes(kv.substr(eq + 1));
			} catch (const std::invalid_argument &e) {
				throw CLI::ValidationError("--meta", e.what());
			}
		}
	}
}

void cmd_convert(const std::string &in, const std::string &out, const std::string &to,
                 const std::vector<std::string> &meta)
{
	const Format target = format_for_output(out, to, Format::V2);
	check_meta(meta, target); // before the input is read
	auto raw = open_trace(in);
	// v2 forbids events on a destroyed id (trace-v2.md): they are dropped and counted. Formats
	// without CS records get each buffer of a CS as a read or write.
	std::unique_ptr<SkipDestroyed> skip;
	std::unique_ptr<CsExpander> expanded;
	TraceReader *r = raw.get();
	if (target == Format::V2) {
		skip = std::make_unique<SkipDestroyed>(*r);
		r = skip.get();
	} else {
		expanded = std::make_unique<CsExpander>(*r);
		r = expanded.get();
	}
	TraceInfo info = r->info();
	info.format = target;
	if (target == Format::Bostats1 && !info.declared_buffers)
		info.declared_buffers = count_creates(in);
	if (!info.meta.count("source"))
		info.meta["source"] = "converted from " + std::string(format_name(r->info().format)) +
		                      " " + base_name(in);
	for (auto &kv : meta) // check_meta() has read them
		info.meta[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
	// Only a 2.2 file has high-priority uses; a v2 output keeps them where they are.
	std::vector<bool> use;
	if (target != Format::V2 && info.v2_minor >= 2)
		use = high_prio_use(in);
	auto w = make_writer(target, out, info);
	Losses loss;
	loss.meta = target != Format::V2 && !info.meta.empty();
	Event e;
	uint64_t last_ms = 0, written = 0;
	// an input that fails midway leaves the old output (or none): the writer replaces it only
	// at close()
	while (r->next(e)) {
		if (target != Format::V2) {
			if (e.type > EventType::Cpu) {
				loss.v2_only++;
				continue;
			}
			if (e.type == EventType::Create && !e.high_prio && e.id < use.size() && use[e.id]) {
				e.high_prio = true;
				loss.prio_from_use++;
			}
			loss.domains += e.domain != 0;
			loss.imported += e.type == EventType::Create && e.imported;
			loss.sub_ms += e.time_us % 1000 != 0;
			const uint64_t ms = e.time_us / 1000;
			if (target == Format::Bostats1 && ms > last_ms + 31)
				loss.clipped++;
			last_ms = ms;
		}
		w->write(e);
		written++;
	}
	w->close();
	if (skip)
		loss.on_destroyed = skip->skipped();
	std::fprintf(stderr, "%s -> %s (%s): %llu events written\n", in.c_str(), out.c_str(),
	             std::string(format_name(target)).c_str(), (unsigned long long)written);
	if (loss.on_destroyed)
		std::fprintf(stderr, "  dropped %llu events on destroyed buffers (v2 cannot hold them; "
		                     "run `vramlab trace repair` first to keep them)\n",
		             (unsigned long long)loss.on_destroyed);
	if (loss.v2_only)
		std::fprintf(stderr, "  dropped %llu frame/score/context records\n",
		             (unsigned long long)loss.v2_only);
	if (loss.domains)
		std::fprintf(stderr, "  dropped the requested domain of %llu events\n",
		             (unsigned long long)loss.domains);
	if (loss.sub_ms)
		std::fprintf(stderr, "  rounded %llu sub-millisecond times down to ms\n",
		             (unsigned long long)loss.sub_ms);
	if (loss.clipped)
		std::fprintf(stderr, "  clipped %llu gaps longer than 31 ms (bostats1 limit)\n",
		             (unsigned long long)loss.clipped);
	if (loss.imported)
		std::fprintf(stderr, "  dropped the imported flag of %llu buffers (%s cannot hold it)\n",
		             (unsigned long long)loss.imported, std::string(format_name(target)).c_str());
	if (loss.prio_from_use)
		std::fprintf(stderr, "  set the high-priority flag of %llu buffers at their create from a "
		                     "later high-priority use (%s has only the create flag)\n",
		             (unsigned long long)loss.prio_from_use,
		             std::string(format_name(target)).c_str());
	if (loss.meta)
		std::fprintf(stderr, "  dropped the metadata header\n");
}

void cmd_repair(const std::string &in, const std::string &out, const std::string &to,
                bool skip_impossible)
{
	// The output is read back to check its totals: a device, a FIFO or stdout cannot be
	if (written_in_place(out))
		throw CLI::ValidationError("OUT", out + " is not a regular file (the repair reads its "
		                                        "output back to check the totals)");
	check_output_path(out);
	// Pass 1: the totals to keep, and which buffers never get an entry of their own.
	auto r1 = open_trace(in);
	const Format target = format_for_output(out, to, r1->info().format);
	std::vector<bool> never_used;
	const TraceStats before = compute_stats(*r1, base_name(in), &never_used);
	// Pass 2: rewrite.
	auto r2 = open_trace(in);
	RepairIds rep(*r2, std::move(never_used));
	// impossible creates after the repair, which needs every create to find owners
	SkipImpossible imp(rep, base_name(in));
	TraceReader &fixed = skip_impossible ? static_cast<TraceReader &>(imp) : rep;
	SkipDestroyed skip(fixed); // what stays on a destroyed id: only v2 cannot hold it
	TraceReader &src = target == Format::V2 ? static_cast<TraceReader &>(skip) : fixed;
	TraceInfo info = r2->info();
	if (skip_impossible && info.declared_buffers) // bostats1 needs the count up front
		info.declared_buffers -= uint32_t(before.impossible);
	auto w = make_writer(target, out, info);
	Event e;
	while (src.next(e))
		w->write(e);
	w->close();
	const uint64_t dropped = skip.skipped();
	auto r3 = open_trace(out);
	const TraceStats after = compute_stats(*r3, base_name(out));
	const RepairReport &rp = rep.report();
	std::printf("%s -> %s\n", in.c_str(), out.c_str());
	std::printf("  events on destroyed ids: %llu before, %llu after\n",
	            (unsigned long long)before.events_on_destroyed,
	            (unsigned long long)after.events_on_destroyed);
	std::printf("  moved %llu events to %llu buffers that had no entries of their own\n",
	            (unsigned long long)rp.moved, (unsigned long long)rp.claimed);
	std::printf("  ambiguous: %llu claims had several candidates; the earliest created after the "
	            "destroy was taken\n",
	            (unsigned long long)rp.ambiguous);
	std::printf("  unresolved: %llu events had no candidate and stay where they were%s\n",
	            (unsigned long long)rp.unresolved,
	            dropped ? " (dropped: v2 cannot hold them)" : "");
	std::printf("  never used: %llu before, %llu after\n", (unsigned long long)before.never_used,
	            (unsigned long long)after.never_used);
	if (skip_impossible) {
		std::printf("  impossible creates (over %llu MiB): %llu dropped with %llu later events "
		            "on them\n",
		            (unsigned long long)(kImpossibleAbove >> 20),
		            (unsigned long long)imp.creates(), (unsigned long long)imp.events());
		// what is left must be the source minus exactly what was dropped
		const uint64_t ev_before = before.cpu_ops + before.reads + before.writes + before.destroys;
		const uint64_t ev_after = after.cpu_ops + after.reads + after.writes + after.destroys;
		if (after.creates + imp.creates() != before.creates || after.impossible ||
		    (!dropped && ev_after + imp.events() != ev_before))
			throw TraceError(out + ": dropping impossible creates lost other events (a bug)");
		return;
	}
	const bool same = before.buffers == after.buffers && before.runtime_ms == after.runtime_ms &&
	                  before.creates == after.creates && before.cpu_ops == after.cpu_ops &&
	                  before.reads == after.reads && before.writes == after.writes &&
	                  before.destroys == after.destroys;
	if (!same && !dropped)
		throw TraceError(out + ": repair changed the Appendix A totals (a bug)");
	std::printf("  Appendix A totals (buffers, runtime, creates, cpu ops, reads, writes, "
	            "destroys): %s\n",
	            same ? "unchanged" : "changed by the dropped events");
}

} // namespace

void add_trace_commands(CLI::App &app)
{
	auto *trace = app.add_subcommand("trace", "read, show, convert and repair buffer traces");
	trace->require_subcommand(1);

	auto *stats = trace->add_subcommand("stats", "per-trace counts (Appendix A) and corpus defects");
	static std::vector<std::string> stats_files;
	static bool stats_json = false;
	stats->add_option("FILE", stats_files, "trace files, directories of them, or - (stdin)")
	    ->required();
	stats->add_flag("--json", stats_json, "print JSON: {schema, version, traces: [one object each]}");
	stats->callback([] { cmd_stats(stats_files, stats_json); });

	auto *show = trace->add_subcommand("show", "print one event a line");
	static std::string show_file, show_color = "auto";
	show->add_option("FILE", show_file)->required()->check(CLI::ExistingFile);
	show->add_option("--color", show_color, "auto, always or never")
	    ->check(CLI::IsMember({"auto", "always", "never"}));
	show->callback([] { cmd_show(show_file, show_color); });

	auto *convert = trace->add_subcommand("convert", "convert between text, bostats1 and v2");
	static std::string conv_in, conv_out, conv_to;
	static std::vector<std::string> conv_meta;
	convert->add_option("IN", conv_in)->required()->check(CLI::ExistingFile);
	convert->add_option("OUT", conv_out)->required();
	convert->add_option("--to", conv_to, "text, bostats1 or v2 (default: from OUT's extension "
	                                     ".txt/.bin/.vrl, else v2)")
	    ->check(CLI::IsMember({"text", "bostats1", "v2"}));
	convert->add_option("--meta", conv_meta, "key=value for the v2 header (repeatable)");
	convert->callback([] { cmd_convert(conv_in, conv_out, conv_to, conv_meta); });

	auto *repair = trace->add_subcommand("repair", "re-attribute events on destroyed buffer ids");
	static std::string rep_in, rep_out, rep_to;
	repair->add_option("IN", rep_in)->required()->check(CLI::ExistingFile);
	repair->add_option("OUT", rep_out)->required();
	repair->add_option("--to", rep_to, "output format (default: as the input)")
	    ->check(CLI::IsMember({"text", "bostats1", "v2"}));
	static std::string rep_imp = "keep";
	repair->add_option("--on-impossible", rep_imp,
	                   "creates over 128 MiB (a corpus defect): keep, or skip (drop them and "
	                   "every event on them)")
	    ->check(CLI::IsMember({"keep", "skip"}))
	    ->capture_default_str();
	repair->callback([] { cmd_repair(rep_in, rep_out, rep_to, rep_imp == "skip"); });

	add_trace_scores_command(*trace);

	auto *exp = trace->add_subcommand(
	        "export", "cut traces for the kernel's KUnit replay (radeon_replay_traces.h)");
	static std::vector<std::string> exp_in;
	static std::string exp_out;
	static uint32_t exp_cs = 300;
	static bool exp_kunit = false;
	exp->add_option("TRACE", exp_in)->required()->check(CLI::ExistingFile);
	exp->add_flag("--kunit", exp_kunit, "write the C header of the KUnit suite radeon_replay")
	    ->required();
	exp->add_option("-o,--output", exp_out, "the header to write")->required();
	exp->add_option("--max-cs", exp_cs, "command submissions kept from the start of each trace")
	    ->check(CLI::Range(1u, 1000000u)) // 0 wrote cases of no submission
	    ->capture_default_str();
	static std::string exp_kernel = "6.12";
	exp->add_option("--kernel", exp_kernel,
	                "the lab series the header is for: 6.12 (every mechanism, 6.14's path "
	                "emulated) or 7.2 (stock 7.2, 7.2 with the radeon fixes, with the series)")
	    ->check(CLI::IsMember({"6.12", "7.2"}))
	    ->capture_default_str();
	exp->callback([] { cmd_export_kunit(trace_files(exp_in), exp_out, exp_cs, exp_kernel); });
}

} // namespace vramlab
