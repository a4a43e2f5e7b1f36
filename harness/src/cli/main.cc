// vramlab: trace tools and the VRAM simulator (README.md has the tour).
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <cstring>
#include <vector>
#include <filesystem>
#include <functional>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli/commands.h"
#include "sim/policy_name.h"
#include "trace/event.h"
#include "util/output_file.h"

namespace vramlab {

uint64_t parse_size(const std::string &s)
{
	try {
		return parse_size_text(s);
	} catch (const std::invalid_argument &e) {
		throw CLI::ValidationError("size", e.what());
	}
}

uint64_t parse_vram_mib(const std::string &s, const char *option)
{
	const bool plain = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
	uint64_t n;
	try {
		n = parse_size_text(s);
	} catch (const std::invalid_argument &) {
		throw CLI::ValidationError(option, "\"" + s + "\" is not a size (write 64, 64M or 1G)");
	}
	if (plain && n > (1ull << 20)) // before the shift, which would wrap
		throw CLI::ValidationError(option, "\"" + s + "\" is more than 1 TiB");
	const uint64_t bytes = plain ? n << 20 : n;
	if (bytes == 0 || bytes % (1 << 20))
		throw CLI::ValidationError(option, "\"" + s + "\" is not a whole number of MiB "
		                                     "(write 64, 64M or 1G)");
	if (bytes > (1ull << 40))
		throw CLI::ValidationError(option, "\"" + s + "\" is more than 1 TiB");
	return bytes >> 20;
}

std::string default_weights_path(const std::string &name)
{
	std::error_code ec;
	auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
	for (auto dir = exe.parent_path(); !ec && !dir.empty() && dir != dir.root_path();
	     dir = dir.parent_path()) {
		auto candidate = dir / "weights" / name;
		if (std::filesystem::exists(candidate))
			return candidate.string();
	}
	return "weights/" + name;
}

bool stdout_is_tty() { return isatty(STDOUT_FILENO); }

void check_json_path(const std::string &path)
{
	if (!path.empty()) // not given; an empty name given is refused when parsing
		check_output_path(path);
}

void write_json(const std::string &path, const nlohmann::json &j)
{
	write_output(path, j.dump(1) + "\n");
}

OnImpossible parse_on_impossible(const std::string &s)
{
	return s == "skip" ? OnImpossible::Skip : s == "exclude" ? OnImpossible::Exclude
	                                                          : OnImpossible::Keep;
}

const char *on_impossible_name(OnImpossible m)
{
	return m == OnImpossible::Skip ? "skip" : m == OnImpossible::Exclude ? "exclude" : "keep";
}

void print_impossible(std::FILE *f, const std::vector<TraceLoad> &loads, OnImpossible m)
{
	uint64_t n = 0, events = 0;
	std::string names;
	for (auto &l : loads)
		if (l.impossible) {
			n += l.impossible;
			events += l.impossible_events;
			names += " " + l.trace;
		}
	if (!n)
		return;
	std::fprintf(f, "impossible creates (over %llu MiB): %llu in%s; %s",
	             (unsigned long long)(kImpossibleAbove >> 20), (unsigned long long)n,
	             names.c_str(),
	             m == OnImpossible::Keep      ? "kept (--on-impossible keep)\n"
	             : m == OnImpossible::Exclude ? "those traces excluded\n"
	                                          : "skipped");
	if (m == OnImpossible::Skip)
		std::fprintf(f, " with %llu later events on them\n", (unsigned long long)events);
}

void check_cost_option(double v, const CostBounds &b, const char *option)
{
	if (!std::isfinite(v) || v < b.min || v > b.max) {
		char range[96];
		std::snprintf(range, sizeof range, "%g is out of range %g..%g %s", v, b.min, b.max, b.unit);
		throw CLI::ValidationError(option, range);
	}
}

CostFile resolve_costs(const std::string &file, const std::vector<const CLI::Option *> &cost_options,
                       double pcie_gbps, double vram_gbps, double move_latency_us)
{
	if (file.empty()) {
		// the bounds a cost file has (cost_file.h), so the options cannot give negative times
		for (auto [v, b, opt] : {std::tuple{pcie_gbps, kPcieBounds, "--pcie-gbps"},
		                         std::tuple{vram_gbps, kVramBounds, "--vram-gbps"},
		                         std::tuple{move_latency_us, kMoveLatencyBounds,
		                                    "--move-latency-us"}})
			check_cost_option(v, b, opt);
		if (vram_gbps < pcie_gbps)
			throw CLI::ValidationError("--vram-gbps", "is below --pcie-gbps (a GTT read is "
			                                          "charged the difference: VRAM slower than "
			                                          "the bus is not modelled)");
		CostFile c = builtin_costs();
		c.pcie_gbps = pcie_gbps;
		c.vram_gbps = vram_gbps;
		c.move_latency_us = move_latency_us;
		return c;
	}
	for (const CLI::Option *o : cost_options)
		if (o && o->count())
			throw CLI::ValidationError("--cost", "cannot be combined with " + o->get_name() +
			                                     ": a cost file sets every cost (edit a copy "
			                                     "of it, harness/docs/cost-file.md)");
	return load_cost_file(file);
}

} // namespace vramlab

namespace {

// `vramlab report ...` is harness/report/vramlab-report (Python, Debian's matplotlib), found
// beside the build like the weights; it gets this binary to read traces with.
int run_report(int argc, char **argv)
{
	std::error_code ec;
	const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
	std::string script;
	for (auto dir = exe.parent_path(); !ec && !dir.empty() && dir != dir.root_path();
	     dir = dir.parent_path())
		if (std::filesystem::exists(dir / "report" / "vramlab-report")) {
			script = (dir / "report" / "vramlab-report").string();
			break;
		}
	if (script.empty()) {
		std::fprintf(stderr, "vramlab: report: harness/report/vramlab-report not found beside "
		             "this binary\n");
		return 1;
	}
	for (int i = 2; i < argc; i++)
		if (!std::strcmp(argv[i], "--version")) { // as every subcommand answers it
			std::printf("vramlab %s\n", VRAMLAB_VERSION);
			return 0;
		}
	std::vector<std::string> args{"/usr/bin/python3", script};
	for (int i = 2; i < argc; i++)
		args.emplace_back(argv[i]);
	args.emplace_back("--vramlab");
	args.emplace_back(exe.string());
	std::vector<char *> av;
	for (auto &a : args)
		av.push_back(a.data());
	av.push_back(nullptr);
	execv(av[0], av.data());
	std::fprintf(stderr, "vramlab: report: cannot run /usr/bin/python3: %s\n", std::strerror(errno));
	return 1;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc > 1 && std::string(argv[1]) == "report")
		return run_report(argc, argv);
	CLI::App app{"vramlab: buffer traces and a VRAM placement simulator\n"
	             "Exit status: 0 success, 1 bad data (a trace, weights, a file), 2 bad usage."};
	app.require_subcommand(1);
	app.set_version_flag("--version", std::string("vramlab ") + VRAMLAB_VERSION);
	vramlab::add_trace_commands(app);
	vramlab::add_sim_command(app);
	vramlab::add_decide_command(app);
	vramlab::add_weights_commands(app);
	vramlab::add_train_command(app);
	vramlab::add_labels_command(app);
	// Listed for --help; `vramlab report ...` is handled before parsing (run_report()).
	app.add_subcommand("report", "HTML report of PTS A/B runs, live runs, simulator and "
	                   "training results (vramlab report --help)");
	// --version on every command and subcommand, not only on vramlab itself
	std::function<void(CLI::App *)> versions = [&](CLI::App *a) {
		for (CLI::App *s : a->get_subcommands({})) {
			s->set_version_flag("--version", std::string("vramlab ") + VRAMLAB_VERSION);
			versions(s);
		}
	};
	versions(&app);
	// An output named "" would be written nowhere and the run would still say it was done
	std::function<void(CLI::App *)> outputs = [&](CLI::App *a) {
		for (CLI::App *s : a->get_subcommands({})) {
			for (CLI::Option *o : s->get_options())
				for (const char *name : {"--json", "--output", "--checkpoint", "--run-times", "OUT"})
					if (o->get_name() == name)
						o->check(CLI::Validator(
						    [](std::string &v) {
							    return v.empty() ? std::string("an empty file name")
							                     : std::string();
						    },
						    "FILE"));
			outputs(s);
		}
	};
	outputs(&app);
	// A seed is a u64: CLI11 took -1 and numbers past 2^64 as some other seed without a word
	std::function<void(CLI::App *)> seeds = [&](CLI::App *a) {
		for (CLI::App *s : a->get_subcommands({})) {
			for (CLI::Option *o : s->get_options())
				if (o->get_name() == "--seed")
					o->check(CLI::Validator(
					    [](std::string &v) {
						    uint64_t n;
						    const char *end = v.data() + v.size();
						    const auto r = std::from_chars(v.data(), end, n);
						    return !v.empty() && r.ec == std::errc() && r.ptr == end
						                   ? std::string()
						                   : v + " is not a whole number in 0.." +
						                             std::to_string(UINT64_MAX);
					    },
					    "UINT64"));
			seeds(s);
		}
	};
	seeds(&app);
	// interrupted: the temporary files of outputs removed, one line, 130 or 143
	vramlab::install_interrupt_cleanup("vramlab");
	try {
		app.parse(argc, argv);
	} catch (const CLI::ParseError &e) {
		if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
			return app.exit(e); // --help, --version
		// one line, as every error (the subcommand's --help has the usage)
		std::fprintf(stderr, "vramlab: %s (see --help)\n", e.what());
		return 2;
	} catch (const vramlab::TraceError &e) {
		std::fprintf(stderr, "vramlab: %s\n", e.what());
		return 1;
	} catch (const std::exception &e) {
		std::fprintf(stderr, "vramlab: error: %s\n", e.what());
		return 1;
	}
	return 0;
}
