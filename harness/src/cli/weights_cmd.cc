// vramlab weights export | vectors
#include <cstdio>
#include <fstream>
#include <random>

#include "cli/commands.h"
#include "mlp/mlp.h"
#include "trace/event.h"

namespace vramlab {

namespace {

void write_out(const std::string &path, const std::string &text)
{
	if (path.empty() || path == "-") {
		std::fputs(text.c_str(), stdout);
		return;
	}
	std::ofstream f(path);
	f << text;
	if (!f)
		throw TraceError(path + ": cannot write");
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
}

} // namespace vramlab
