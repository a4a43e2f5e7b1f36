// vramlab train | train eval (docs/training.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <nlohmann/json.hpp>
#ifdef VRAMLAB_HAVE_MPI
#include <mpi.h>
#endif

#include "cli/commands.h"
#include "train/supervised.h"
#include "train/trainer.h"
#include "trace/format.h"
#include "util/output_file.h"

namespace vramlab {

namespace {

struct SplitArgs {
	std::string split;                 // a split file: "train NAME" / "validate NAME" lines
	std::string set = "train";
	std::vector<std::string> dirs{"../shared/traces/thesis", "traces/live"};
	std::vector<std::string> traces;   // or explicit trace files
	std::vector<std::string> vram{"64", "128", "256"};
	uint32_t window = 256, topdown = 512;
	double tolerance = 0.005;
	unsigned threads = 0;
	std::string cost; // --cost: a cost file (harness/docs/cost-file.md)
};

// The traces of one set of a split file, found in the search directories. Errors name the
// file and line.
std::vector<std::string> split_traces(const SplitArgs &a)
{
	if (a.split.empty())
		return trace_files(a.traces, "TRACES"); // each once: a repeat would weigh it twice
	std::ifstream f(a.split);
	if (!f)
		throw TraceError(a.split + ": cannot read");
	std::vector<std::string> out;
	std::vector<unsigned> lines; // of each of out
	std::string line;
	for (unsigned n = 1; std::getline(f, line); n++) {
		const auto hash = line.find('#');
		if (hash != std::string::npos)
			line.resize(hash);
		std::istringstream in(line);
		std::string set, name, extra;
		if (!(in >> set))
			continue;
		if (!(in >> name) || (in >> extra) || (set != "train" && set != "validate"))
			throw TraceError(a.split + ":" + std::to_string(n) +
			                 ": expected \"train NAME\" or \"validate NAME\"");
		if (set != a.set)
			continue;
		std::string found;
		for (auto &d : a.dirs)
			if (std::filesystem::exists(std::filesystem::path(d) / name)) {
				found = (std::filesystem::path(d) / name).string();
				break;
			}
		if (found.empty())
			throw TraceError(a.split + ":" + std::to_string(n) + ": " + name +
			                 " is in none of the trace directories (--traces-dir)");
		for (size_t i = 0; i < out.size(); i++) { // by any path: a repeat would weigh it twice
			std::error_code ec;
			if (std::filesystem::equivalent(out[i], found, ec))
				throw TraceError(a.split + ":" + std::to_string(n) + ": \"" + found +
				                 "\" and line " + std::to_string(lines[i]) + "'s \"" + out[i] +
				                 "\" are one file, given twice");
		}
		out.push_back(found);
		lines.push_back(n);
	}
	if (out.empty())
		throw TraceError(a.split + ": no \"" + a.set + "\" traces");
	return out;
}

// A floating option in lo..hi; NaN and infinities are no number of it (CLI11 takes them, and
// its Range passes NaN).
void check_range(double v, double lo, double hi, const char *option)
{
	if (!std::isfinite(v) || v < lo || v > hi) {
		char m[96];
		std::snprintf(m, sizeof m, "%g is out of range %g..%g", v, lo, hi);
		throw CLI::ValidationError(option, m);
	}
}

Objective make_objective(const SplitArgs &a, bool progress)
{
	ObjectiveConfig oc;
	// one rule with sim and decide: a size once (a repeat would weigh it twice), no empty item
	std::string sizes;
	for (size_t i = 0; i < a.vram.size(); i++)
		sizes += (i ? "," : "") + a.vram[i];
	oc.vram_mib = vram_list(sizes, "--vram");
	oc.window = a.window;
	oc.topdown_kib = a.topdown;
	oc.tolerance = a.tolerance;
	oc.threads = a.threads;
	oc.costs = a.cost.empty() ? builtin_costs() : load_cost_file(a.cost);
	std::vector<TrainTrace> tt;
	const auto files = split_traces(a);
	uint64_t comps = 0, uniq = 0;
	for (size_t i = 0; i < files.size(); i++) {
		if (progress)
			std::fprintf(stderr, "\r[%zu/%zu] preparing %s\033[K", i + 1, files.size(),
			             files[i].c_str());
		tt.push_back(prepare_train_trace(files[i], 256ull << 20));
		comps += tt.back().computations;
		uniq += tt.back().inputs.size();
	}
	if (progress)
		std::fprintf(stderr, "\r\033[K%zu traces: %llu score computations, %llu distinct inputs; "
		             "LRU baseline at %zu sizes...\n", files.size(), (unsigned long long)comps,
		             (unsigned long long)uniq, oc.vram_mib.size());
	return Objective(std::move(tt), oc);
}

void add_problem_options(CLI::App *c, SplitArgs &a)
{
	c->add_option("--split", a.split, "split file (train/validate lines of trace names)");
	c->add_option("--traces-dir", a.dirs, "directories the split file's names are found in")
	    ->capture_default_str();
	// split by vram_list(), which refuses an empty item (CLI11's delimiter skips it)
	c->add_option("--vram", a.vram, "VRAM sizes in MiB (under pressure), comma-separated")
	    ->capture_default_str();
	c->add_option("--window", a.window, "radeon.bo_score_window")
	    ->check(CLI::Range(1, 4096))
	    ->capture_default_str();
	c->add_option("--topdown-threshold", a.topdown, "radeon.topdown_threshold in KiB, at most "
	                                                "1 GiB")
	    ->check(CLI::Range(0u, 1048576u))
	    ->capture_default_str();
	c->add_option("--tolerance", a.tolerance,
	              "per trace and size, transfer time allowed over LRU before a penalty, a "
	              "fraction 0..1")
	    ->capture_default_str();
	c->add_option("-j,--threads", a.threads, "threads, 1..256 (default: all cores)")
	    ->check(CLI::Range(1u, 256u));
	c->add_option("--cost", a.cost, "a cost file (harness/docs/cost-file.md) instead of the built-in "
	                                "transfer costs (costs/default.json)")
	    ->check(CLI::ExistingFile);
	c->add_option("TRACES", a.traces, "trace files (instead of --split)");
}

struct TrainArgs {
	SplitArgs p;
	TrainConfig c;
	std::string out, json;
	bool quiet = false;
};


void run_train(TrainArgs &a)
{
	// usage, before any trace is read (the trainer checks the same, later)
	check_range(a.c.minutes, 0, 100000, "--minutes"); // NaN or less than 0 was no budget
	check_range(a.p.tolerance, 0, 1, "--tolerance"); // NaN took every penalty away
	if (!a.c.generations && !(a.c.minutes > 0))
		throw CLI::ValidationError("--minutes", "give a budget: --generations or --minutes "
		                                           "(a number of generations or of minutes)");
	check_json_path(a.out); // the outputs can be written: known before an hour of training
	check_json_path(a.json);
	if (!a.c.checkpoint.empty()) {
		// rewritten every generation and read back by --resume: a device or FIFO cannot be one
		if (written_in_place(a.c.checkpoint))
			throw CLI::ValidationError("--checkpoint", a.c.checkpoint + " is not a regular file "
			                                           "(a checkpoint is read back by --resume)");
		check_json_path(a.c.checkpoint);
	}
	if (a.c.ga.population < 4 || a.c.ga.population % 2 || a.c.ga.population > 100000)
		throw CLI::ValidationError("--population", std::to_string(a.c.ga.population) +
		                                               " is not an even number in 4..100000");
	if (!(a.c.ga.mutation >= 0 && a.c.ga.mutation <= 1))
		throw CLI::ValidationError("--mutation", "must be a probability, 0..1");
	int rank = 0, size = 1;
#ifdef VRAMLAB_HAVE_MPI
	if (a.c.mpi) {
		MPI_Init(nullptr, nullptr);
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		MPI_Comm_size(MPI_COMM_WORLD, &size);
	}
#else
	if (a.c.mpi)
		throw TraceError("this vramlab was built without MPI (install libopenmpi-dev, rebuild)");
#endif
	if (a.c.mpi && a.c.method.rfind("nlopt-", 0) == 0)
		throw TraceError("--mpi spreads GA and Monte-Carlo batches; NLopt runs in one process");
	a.c.progress = !a.quiet && rank == 0; // a line per generation, to logs too
	const Objective o = make_objective(a.p, a.c.progress && isatty(STDERR_FILENO));
	uint64_t stopped = 0;
	BatchEval eval = local_batch_eval(o, &stopped);
#ifdef VRAMLAB_HAVE_MPI
	if (a.c.mpi)
		eval = [&o, rank, size](const std::vector<Mlp> &nets, double cutoff) {
			// Three numbers per network, +inf where another process evaluates it.
			std::vector<double> f(3 * nets.size(), HUGE_VAL), all(f.size());
			for (size_t i = size_t(rank); i < nets.size(); i += size_t(size)) {
				const Evaluation e = o.evaluate(nets[i], cutoff);
				f[3 * i] = e.fitness;
				f[3 * i + 1] = e.bytes_ratio;
				f[3 * i + 2] = e.time_ratio;
			}
			MPI_Allreduce(f.data(), all.data(), int(f.size()), MPI_DOUBLE, MPI_MIN,
			              MPI_COMM_WORLD);
			std::vector<Fit> out(nets.size());
			for (size_t i = 0; i < nets.size(); i++)
				out[i] = {all[3 * i], all[3 * i + 1], all[3 * i + 2]};
			return out;
		};
#endif
	const TrainResult r = train(o, a.c, eval, rank == 0);
	if (rank == 0) {
		std::string text = "# vramlab train: method " + a.c.method + ", seed " +
		                   std::to_string(a.c.seed) + ", training fitness " +
		                   std::to_string(r.best_fitness) + " (LRU = 1)\n" + r.best.to_text();
		if (!a.out.empty())
			write_output(a.out, text);
		else
			std::fputs(text.c_str(), stdout);
		if (!a.json.empty()) {
			nlohmann::json j;
			j["schema"] = "vramlab-train";
			j["version"] = 1;
			j["method"] = a.c.method;
			j["seed"] = a.c.seed;
			j["processes"] = size;
			j["vram_mib"] = o.config().vram_mib;
			j["window"] = o.config().window;
			j["costs"] = o.config().costs.json();
			j["traces"] = nlohmann::json::array();
			for (auto &t : o.traces())
				j["traces"].push_back(t.kt.name);
			j["best_fitness"] = r.best_fitness;
			auto &g = j["generations"] = nlohmann::json::array();
			for (auto &l : r.log)
				g.push_back({{"generation", l.generation}, {"best", l.best},
				             {"best_bytes", l.best_bytes}, {"best_time", l.best_time},
				             {"mean", std::isfinite(l.mean) ? nlohmann::json(l.mean) : nlohmann::json()},
				             {"evaluations", l.evaluations}, {"stopped_early", l.stopped_early},
				             {"seconds", l.seconds}, {"cpu_seconds", l.cpu_seconds},
				             {"phase", l.phase}});
			write_output(a.json, j.dump(1) + "\n");
		}
		if (a.c.progress && !r.log.empty())
			std::fprintf(stderr, "best training fitness %.4f (LRU = 1; bytes %+.1f%%, time %+.1f%% "
			             "vs LRU); replayed %.1f G operations\n", r.best_fitness,
			             (r.log.back().best_bytes - 1) * 100, (r.log.back().best_time - 1) * 100,
			             o.replayed_ops() / 1e9);
	}
#ifdef VRAMLAB_HAVE_MPI
	if (a.c.mpi)
		MPI_Finalize();
#endif
}

struct EvalArgs {
	SplitArgs p;
	std::vector<std::string> weights;
	std::string json;
};

// Per size: every policy's totals over the set, and per trace the worst transfer-time ratio
// of each trained network against LRU.
void run_eval(EvalArgs &a)
{
	check_range(a.p.tolerance, 0, 1, "--tolerance");
	for (size_t i = 0; i < a.weights.size(); i++) // a row each: a repeat is a slip
		for (size_t j = 0; j < i; j++) {
			std::error_code ec;
			if (std::filesystem::equivalent(a.weights[j], a.weights[i], ec))
				throw CLI::ValidationError("--weights", "\"" + a.weights[j] + "\" and \"" +
				                                            a.weights[i] +
				                                            "\" are one file, given twice");
		}
	const bool progress = isatty(STDERR_FILENO);
	const Objective o = make_objective(a.p, progress);
	const size_t ns = o.config().vram_mib.size(), nt = o.traces().size();
	struct Row {
		std::string name;
		std::vector<PairFigures> f;
	};
	std::vector<Row> rows;
	rows.push_back({"lru", o.lru()});
	for (const char *p : {"minmax", "minmax+key"})
		rows.push_back({p, o.baseline(p)});
	rows.push_back({"minmax+key oracle (belady)", o.oracle()});
	for (auto &w : a.weights) {
		const Evaluation e = o.evaluate(Mlp::load(w));
		rows.push_back({"minmax+key " + std::filesystem::path(w).filename().string(), e.pairs});
	}
	std::printf("kernel model, %zu traces, topdown_threshold %u KiB, bo_score_window %u\n\n", nt,
	            o.config().topdown_kib, o.config().window);
	if (!o.config().costs.builtin())
		std::printf("%s\n\n", o.config().costs.describe().c_str());
	std::printf("%6s  %-32s %10s %8s %12s %8s %12s %8s %9s\n", "VRAM", "policy", "evictions", "vs LRU",
	            "MiB moved", "vs LRU", "transfer ms", "vs LRU", "worst tr");
	nlohmann::json j;
	j["schema"] = "vramlab-train-eval";
	j["version"] = 1;
	j["costs"] = o.config().costs.json();
	j["traces"] = nlohmann::json::array();
	for (auto &t : o.traces())
		j["traces"].push_back(t.kt.name);
	auto &res = j["results"] = nlohmann::json::array();
	for (size_t s = 0; s < ns; s++) {
		PairFigures lru{};
		for (size_t t = 0; t < nt; t++) {
			lru.evictions += rows[0].f[t * ns + s].evictions;
			lru.bytes += rows[0].f[t * ns + s].bytes;
			lru.transfer_us += rows[0].f[t * ns + s].transfer_us;
		}
		for (auto &r : rows) {
			PairFigures sum{};
			double worst = 0;
			std::string worst_trace;
			for (size_t t = 0; t < nt; t++) {
				const PairFigures &f = r.f[t * ns + s], &l = rows[0].f[t * ns + s];
				sum.evictions += f.evictions;
				sum.bytes += f.bytes;
				sum.transfer_us += f.transfer_us;
				const double ratio = l.transfer_us > 0 ? f.transfer_us / l.transfer_us - 1
				                     : f.transfer_us > 0 ? HUGE_VAL : 0;
				if (ratio > worst || worst_trace.empty()) {
					worst = ratio;
					worst_trace = o.traces()[t].kt.name;
				}
				nlohmann::json pr = {{"trace", o.traces()[t].kt.name}, {"vram_mib", o.config().vram_mib[s]},
				                     {"policy", r.name}, {"evictions", f.evictions},
				                     {"bytes_moved", f.bytes}, {"transfer_us", f.transfer_us}};
				res.push_back(pr);
			}
			auto pct = [](double a, double b) { return b > 0 ? (a / b - 1) * 100 : 0.0; };
			std::printf("%5lluM  %-32s %10llu %+7.1f%% %12.1f %+7.1f%% %12.1f %+7.1f%% %+8.2f%%\n",
			            (unsigned long long)o.config().vram_mib[s], r.name.c_str(),
			            (unsigned long long)sum.evictions, pct(double(sum.evictions), double(lru.evictions)),
			            sum.bytes / 1048576.0, pct(double(sum.bytes), double(lru.bytes)),
			            sum.transfer_us / 1000.0, pct(sum.transfer_us, lru.transfer_us), worst * 100);
		}
	}
	std::printf("\nworst tr: the largest transfer-time excess over LRU of any single trace\n");
	if (!a.json.empty())
		write_output(a.json, j.dump(1) + "\n");
}

struct FitArgs {
	SplitArgs p;
	FitConfig c;
	std::string out;
	bool quiet = false;
};

// vramlab train fit: the network fitted to a clairvoyant Mesa's scores (train/supervised.h)
void run_fit(FitArgs &a)
{
	check_json_path(a.out);
	const bool progress = !a.quiet && isatty(STDERR_FILENO);
	if (a.p.split.empty() && a.p.traces.empty())
		throw CLI::ValidationError("TRACES", "no traces: give trace files or --split");
	const auto files = split_traces(a.p);
	FitSet set;
	for (size_t i = 0; i < files.size(); i++) {
		if (progress)
			std::fprintf(stderr, "\r[%zu/%zu] preparing %s\033[K", i + 1, files.size(),
			             files[i].c_str());
		add_fit_samples(set, prepare_train_trace(files[i], 256ull << 20), a.c);
	}
	if (!a.quiet) {
		double wy = 0;
		for (size_t i = 0; i < set.x.size(); i++)
			wy += set.w[i] * set.y[i];
		const double mean = set.w_sum > 0 ? wy / set.w_sum : 0.0;
		std::fprintf(stderr, "%s%zu traces: %llu relocations, %zu distinct inputs; target "
		             "mean %.4f, variance %.6f (the loss of the best constant score)\n",
		             progress ? "\r\033[K" : "", files.size(),
		             (unsigned long long)set.relocations, set.x.size(), mean,
		             set.w_sum > 0 ? set.wyy / set.w_sum - mean * mean : 0.0);
	}
	const FitResult r = fit_scores(set, a.c, [&](unsigned n, double loss) {
		if (progress)
			std::fprintf(stderr, "\r[%u/%u] loss %.6f\033[K", n, a.c.iterations, loss);
	});
	if (!a.quiet)
		std::fprintf(stderr, "%sfit: loss %.6f -> %.6f after %u evaluations (the mean "
		             "squared error of score / 2^32, by bytes)\n",
		             progress ? "\r\033[K" : "", r.loss_start, r.loss, r.evaluations);
	char head[256];
	std::snprintf(head, sizeof head,
	              "# vramlab train fit: %zu traces, window %u, input 1 at %llu MiB, seed %llu, "
	              "loss %.6f -> %.6f\n",
	              files.size(), a.c.window, (unsigned long long)a.c.vram_mib,
	              (unsigned long long)a.c.seed, r.loss_start, r.loss);
	const std::string text = head + r.mlp.to_text();
	if (!a.out.empty())
		write_output(a.out, text);
	else
		std::fputs(text.c_str(), stdout);
}

} // namespace

void add_train_command(CLI::App &app)
{
	static TrainArgs a;
	auto *t = app.add_subcommand("train", "train the scoring network in the kernel model");
	add_problem_options(t, a.p);
	t->add_option("--method", a.c.method, "ga (thesis GA, then Monte-Carlo with --mc-after), "
	              "mc, nlopt-esch, nlopt-crs2, nlopt-sbplx")
	    ->check(CLI::IsMember({"ga", "mc", "nlopt-esch", "nlopt-crs2", "nlopt-sbplx"}))
	    ->capture_default_str();
	t->add_option("--population", a.c.ga.population, "population (even)")->capture_default_str();
	t->add_option("--mutation", a.c.ga.mutation, "mutation probability per gene")
	    ->capture_default_str();
	t->add_option("--generations", a.c.generations, "generations (0: until --minutes)");
	t->add_option("--minutes", a.c.minutes, "wall-clock budget");
	t->add_option("--mc-after", a.c.mc_after, "switch to Monte-Carlo after this generation");
	// at most every gene (more never ended), a step at most a gene's range (0 was taken as 1)
	t->add_option("--mc-genes", a.c.mc_genes, "genes a Monte-Carlo step changes (at most), 1.." +
	                                                  std::to_string(kMlpParams))
	    ->check(CLI::Range(1u, unsigned(kMlpParams)))
	    ->capture_default_str();
	t->add_option("--mc-step", a.c.mc_step, "largest change of a gene (1/255ths of 2), 1..255")
	    ->check(CLI::Range(1u, 255u))
	    ->capture_default_str();
	t->add_option("--seed", a.c.seed, "random seed")->capture_default_str();
	t->add_option("--checkpoint", a.c.checkpoint, "checkpoint file, written every generation");
	t->add_flag("--resume", a.c.resume, "continue from --checkpoint if it exists");
	t->add_option("--init", a.c.init, "weights file to put into the first population");
	t->add_flag("--mpi", a.c.mpi, "spread evaluations over MPI processes (mpirun -np N)");
	t->add_option("-o,--output", a.out, "the best network's weights file (default stdout)");
	t->add_option("--json", a.json, "training log as JSON (per generation)");
	t->add_flag("-q,--quiet", a.quiet, "no line per generation");
	static EvalArgs e;
	static CLI::App *ev = nullptr;
	static FitArgs f;
	static CLI::App *fit = nullptr;
	fit = t->add_subcommand("fit", "fit the network to the scores a clairvoyant Mesa would send "
	                               "(supervised, L-BFGS)");
	fit->add_option("--split", f.p.split, "split file (train/validate lines of trace names)");
	fit->add_option("--set", f.p.set, "which set of the split file: train or validate")
	    ->check(CLI::IsMember({"train", "validate"}))
	    ->capture_default_str();
	fit->add_option("--traces-dir", f.p.dirs, "directories the split file's names are found in")
	    ->capture_default_str();
	fit->add_option("--window", f.c.window, "radeon.bo_score_window: the oracle's horizon")
	    ->check(CLI::Range(1u, 4096u))
	    ->capture_default_str();
	fit->add_option("--vram", f.c.vram_mib, "the VRAM size input 1 gives, in MiB")
	    ->check(CLI::Range(1u, 65536u))
	    ->capture_default_str();
	fit->add_option("--iterations", f.c.iterations, "L-BFGS evaluations at most")
	    ->check(CLI::Range(1u, 100000u))
	    ->capture_default_str();
	fit->add_option("--seed", f.c.seed, "random seed of the starting weights")
	    ->capture_default_str();
	fit->add_option("-o,--output", f.out, "the weights file (default stdout)");
	fit->add_flag("-q,--quiet", f.quiet, "no progress or summary on stderr");
	fit->add_option("TRACES", f.p.traces, "trace files (instead of --split)");
	fit->callback([] { run_fit(f); });
	t->callback([t] {
		if (!t->got_subcommand(ev) && !t->got_subcommand(fit))
			run_train(a);
	});
	ev = t->add_subcommand("eval", "evaluate weights against LRU, min-max and min-max + key");
	add_problem_options(ev, e.p);
	ev->add_option("--weights", e.weights, "weights files to evaluate");
	ev->add_option("--set", e.p.set, "which set of the split file: train or validate")
	    ->check(CLI::IsMember({"train", "validate"}))
	    ->capture_default_str();
	ev->add_option("--json", e.json, "results as JSON");
	ev->callback([] { run_eval(e); });
}

} // namespace vramlab
