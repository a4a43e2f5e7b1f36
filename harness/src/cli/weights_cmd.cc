// vramlab weights export | vectors | calibrate
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "cli/commands.h"
#include "mlp/mlp.h"
#include "mlp/score_contract.h"
#include "sim/run.h"
#include "trace/event.h"
#include "trace/stats.h"
#include "util/output_file.h"

namespace vramlab {

namespace {

// -o not given: stdout
void write_out(const std::string &path, const std::string &text)
{
	write_output(path.empty() ? "-" : path, text);
}

// Deterministic inputs that reach every clamp edge and the middle of every range.
std::string vectors(const Mlp &m, const std::string &label)
{
	std::string out = "# weights,size,vram_size,high_prio,since_read,since_write,since_cpu,"
	                  "reads,writes,cpu_ops,score\n";
	std::mt19937_64 rng(20140421); // fixed: the file must not change between runs
	auto pick = [&](uint64_t hi) { return rng() % (hi + 1); };
	char buf[256];
	for (int i = 0; i < 200; i++) {
		BufferStats s;
		const bool edge = i < 20;
		s.size = edge ? (i % 4 == 0 ? 0 : (i % 4 == 1 ? 1ull << 30 : (i % 4 == 2 ? 3ull << 30 : 4096)))
		              : pick(1ull << 28);
		s.vram_size = (i % 3 == 0) ? 256ull << 20 : pick(12ull << 30);
		s.high_prio = i % 5 == 0;
		s.since_read = edge ? i * 300 : pick(3000);
		s.since_write = edge ? 6000 - i * 300 : pick(3000);
		s.since_cpu = pick(3000);
		s.reads = edge ? i * 30 : pick(700);
		s.writes = pick(700);
		s.cpu_ops = pick(700);
		std::snprintf(buf, sizeof buf, "%s,%llu,%llu,%d,%llu,%llu,%llu,%llu,%llu,%llu,%u\n",
		              label.c_str(), (unsigned long long)s.size, (unsigned long long)s.vram_size,
		              s.high_prio ? 1 : 0, (unsigned long long)s.since_read,
		              (unsigned long long)s.since_write, (unsigned long long)s.since_cpu,
		              (unsigned long long)s.reads, (unsigned long long)s.writes,
		              (unsigned long long)s.cpu_ops, m.score(s));
		out += buf;
	}
	return out;
}

struct CalibrateArgs {
	std::string weights, out, refresh = "access", vram = "256";
	double lo = 0.001, hi = 0.999;
	std::vector<std::string> traces;
};

struct Spread {
	uint32_t min, median, max;
};

Spread spread(std::vector<uint32_t> &v)
{
	return {quantile(v, 0.0), quantile(v, 0.5), quantile(v, 1.0)};
}

std::string g9(double v)
{
	char buf[32];
	std::snprintf(buf, sizeof buf, "%.9g", v);
	return buf;
}

// The output layer rescaled so that z over the traces' score computations spans [0, 1]
// (docs/score.md, "Calibration"): a monotone map of z, so the ranking stays as it was.
void calibrate(const CalibrateArgs &a)
{
	// The file's header says how it was made: the command, every option spelled out.
	std::string cmdline = "vramlab weights calibrate --weights " + a.weights + " --lo-quantile " +
	                      g9(a.lo) + " --hi-quantile " + g9(a.hi) + " --refresh " + a.refresh +
	                      " --vram " + a.vram;
	for (auto &t : a.traces)
		cmdline += " " + t;
	cmdline += " -o " + a.out;
	if (!(a.lo >= 0 && a.lo < a.hi && a.hi <= 1))
		throw CLI::ValidationError("--lo-quantile/--hi-quantile", "need 0 <= lo < hi <= 1");
	const Mlp m = Mlp::load(a.weights);
	const Refresh rule = parse_refresh(a.refresh);
	const uint64_t vram = parse_vram_mib(a.vram) << 20;
	const std::vector<std::string> traces = trace_files(a.traces, "TRACES");
	for (auto &t : traces)
		if (t == "-")
			throw CLI::ValidationError("TRACES", "calibrate reads each trace twice: give files, "
			                                     "not - (stdin)");
	std::vector<float> z;
	std::vector<uint32_t> before, after;
	for (auto &t : traces)
		observe_computations(t, rule, vram, [&](const BufferStats &b) {
			z.push_back(m.output_z(b));
			before.push_back(m.score(b));
		});
	if (z.empty())
		throw TraceError("the traces have no score computations (no creates)");
	const size_t n = z.size();
	const float z_min = quantile(z, 0.0), z_max = quantile(z, 1.0);
	const float z_lo = quantile(z, a.lo), z_hi = quantile(z, a.hi), z_med = quantile(z, 0.5);
	if (!(z_hi > z_lo))
		throw TraceError("z does not vary between the quantiles (z_lo = z_hi = " + g9(z_lo) +
		                 "): nothing to calibrate");
	const Mlp c = m.rescaled_output(z_lo, z_hi);
	for (auto &t : traces)
		observe_computations(t, rule, vram, [&](const BufferStats &b) { after.push_back(c.score(b)); });
	const Spread sb = spread(before), sa = spread(after);
	uint64_t at_lo = 0, at_hi = 0; // clamped by the smootherstep: below z_lo, above z_hi
	for (uint32_t u : after) {
		at_lo += u == 0;
		at_hi += u == uint32_t(double(0.999f) * 4294967296.0);
	}

	std::string names; // wrapped at 100 columns
	size_t col = 10;
	for (auto &t : traces) {
		const std::string b = base_name(t);
		if (col + 1 + b.size() > 100) {
			names += "\n#        ";
			col = 9;
		}
		names += " " + b;
		col += 1 + b.size();
	}
	std::string hdr;
	hdr += "# " + base_name(a.weights) + " with its output layer rescaled so that the output's\n";
	hdr += "# pre-activation z spans [0, 1] over the score computations of the traces below\n";
	hdr += "# (docs/score.md, \"Calibration\"): out_w' = out_w / (z_hi - z_lo),\n";
	hdr += "# out_b' = (out_b - z_lo) / (z_hi - z_lo). A monotone map of z: the ranking is unchanged.\n";
	hdr += "# Made by: " + cmdline + "\n";
	hdr += "# Traces:" + names + "\n";
	hdr += "# " + std::to_string(n) + " score computations (creates and refreshes, refresh " +
	       refresh_name(rule) + "); z min " + g9(z_min) + ", median " + g9(z_med) + ", max " +
	       g9(z_max) + "\n";
	hdr += "# z_lo = " + g9(z_lo) + " (quantile " + g9(a.lo) + "), z_hi = " + g9(z_hi) +
	       " (quantile " + g9(a.hi) + ")\n";
	hdr += "# u32 scores over those computations, min / median / max: " + base_name(a.weights) +
	       " " + std::to_string(sb.min) + " / " + std::to_string(sb.median) + " / " +
	       std::to_string(sb.max) + "; calibrated " + std::to_string(sa.min) + " / " +
	       std::to_string(sa.median) + " / " + std::to_string(sa.max) + "\n";
	write_out(a.out, hdr + c.to_text());

	std::printf("%zu traces, %zu score computations (refresh %s)\n", traces.size(), n,
	            refresh_name(rule));
	std::printf("z: min %s, quantile %s = z_lo %s, median %s, quantile %s = z_hi %s, max %s\n",
	            g9(z_min).c_str(), g9(a.lo).c_str(), g9(z_lo).c_str(), g9(z_med).c_str(),
	            g9(a.hi).c_str(), g9(z_hi).c_str(), g9(z_max).c_str());
	std::printf("%-28s %12s %12s %12s\n", "u32 score", "min", "median", "max");
	std::printf("%-28s %12u %12u %12u\n", base_name(a.weights).c_str(), sb.min, sb.median, sb.max);
	std::printf("%-28s %12u %12u %12u\n", "calibrated", sa.min, sa.median, sa.max);
	std::printf("calibrated: %llu computations at 0 (z <= z_lo), %llu at the 0.999 cap (z >= z_hi)\n",
	            (unsigned long long)at_lo, (unsigned long long)at_hi);
	if (a.out != "-")
		std::printf("wrote %s\n", a.out.c_str());
}

} // namespace

void add_weights_commands(CLI::App &app)
{
	auto *w = app.add_subcommand("weights", "MLP weights: export, test vectors");
	w->require_subcommand(1);

	static std::string file, out, label;
	static bool header = false;
	auto *ex = w->add_subcommand("export", "print the weights as a file or a C header");
	ex->add_option("--weights", file, "weights file (default weights/handset.txt)");
	ex->add_flag("--c-header", header, "a C header of exact hexadecimal floats (for Mesa)");
	ex->add_option("-o,--output", out, "output file (default stdout)");
	ex->callback([] {
		const Mlp m = Mlp::load(file.empty() ? default_weights_path() : file);
		write_out(out, header ? m.to_c_header() : m.to_text());
	});

	auto *vec = w->add_subcommand("vectors", "score test vectors shared with Mesa's tests");
	vec->add_option("--weights", file, "weights file (default weights/handset.txt)");
	vec->add_option("--label", label, "the first column (default: the weights file's name)");
	vec->add_option("-o,--output", out, "output file (default stdout)");
	vec->callback([] {
		const std::string path = file.empty() ? default_weights_path() : file;
		const Mlp m = Mlp::load(path);
		std::string l = label;
		if (l.empty())
			l = path.substr(path.find_last_of('/') + 1);
		write_out(out, vectors(m, l));
	});

	static CalibrateArgs ca;
	auto *cal = w->add_subcommand(
	        "calibrate", "rescale the output layer so that scores span [0, 1] over traces");
	cal->add_option("--weights", ca.weights, "the weights to calibrate")->required();
	cal->add_option("--lo-quantile", ca.lo, "z at this quantile maps to 0 (0 = the minimum)")
	    ->capture_default_str();
	cal->add_option("--hi-quantile", ca.hi, "z at this quantile maps to 1 (1 = the maximum)")
	    ->capture_default_str();
	cal->add_option("--refresh", ca.refresh, "refresh rule of the score contract: access or age")
	    ->check(CLI::IsMember({"access", "age"}))
	    ->capture_default_str();
	cal->add_option("--vram", ca.vram, "VRAM size input for traces whose header has no "
	                                   "vram_bytes (MiB, or with K/M/G)")
	    ->capture_default_str();
	cal->add_option("TRACES", ca.traces, "trace files or directories")->required();
	cal->add_option("-o,--output", ca.out, "the weights file to write")->required();
	cal->callback([] { calibrate(ca); });
}

} // namespace vramlab
