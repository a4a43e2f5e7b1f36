// vramlab train: see trainer.h and docs/training.md.
#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <nlopt.h>
#include <numeric>
#include <sstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "trace/format.h"
#include "util/output_file.h"

namespace vramlab {

Genome random_genome(std::mt19937_64 &rng)
{
	std::uniform_int_distribution<int> byte(0, 255);
	Genome g;
	for (auto &x : g)
		x = uint8_t(byte(rng));
	return g;
}

std::vector<Genome> ga_children(const std::vector<Genome> &sorted, const GaConfig &c,
                                std::mt19937_64 &rng)
{
	const size_t half = sorted.size() / 2;
	std::vector<double> w(half);
	for (size_t i = 0; i < half; i++)
		w[i] = double(half - i); // linear rank: the best mates most
	std::discrete_distribution<size_t> pick(w.begin(), w.end());
	std::uniform_int_distribution<int> coin(0, 1), byte(0, 255);
	std::uniform_real_distribution<double> u(0.0, 1.0);
	std::vector<Genome> kids(sorted.size() - half);
	for (auto &k : kids) {
		const size_t a = pick(rng);
		size_t b = pick(rng);
		if (half > 1)
			while (b == a)
				b = pick(rng);
		for (size_t i = 0; i < k.size(); i++) {
			k[i] = coin(rng) ? sorted[a][i] : sorted[b][i];
			if (u(rng) < c.mutation)
				k[i] = uint8_t(byte(rng));
		}
	}
	return kids;
}

Genome mc_mutant(const Genome &g, unsigned max_genes, unsigned max_step, std::mt19937_64 &rng)
{
	std::uniform_int_distribution<unsigned> genes(1, std::max(1u, max_genes));
	std::uniform_int_distribution<size_t> which(0, g.size() - 1);
	std::uniform_int_distribution<int> step(1, int(std::max(1u, max_step))), coin(0, 1);
	Genome m = g;
	std::vector<bool> moved(g.size(), false);
	for (unsigned n = genes(rng); n > 0; n--) {
		size_t i = which(rng);
		while (moved[i]) // distinct genes: each moves at most max_step
			i = which(rng);
		moved[i] = true;
		const int d = step(rng) * (coin(rng) ? 1 : -1);
		m[i] = uint8_t(std::clamp(int(m[i]) + d, 0, 255));
	}
	return m;
}

BatchEval local_batch_eval(const Objective &o, uint64_t *stopped)
{
	return [&o, stopped](const std::vector<Mlp> &nets, double cutoff) {
		std::vector<Fit> f(nets.size());
		for (size_t i = 0; i < nets.size(); i++) {
			const Evaluation e = o.evaluate(nets[i], cutoff);
			f[i] = {e.fitness, e.bytes_ratio, e.time_ratio};
			if (!e.complete && stopped)
				++*stopped;
		}
		return f;
	};
}

namespace {

using json = nlohmann::json;

double cpu_seconds()
{
	timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return double(ts.tv_sec) + ts.tv_nsec / 1e9;
}

std::string hex(const Genome &g)
{
	static const char *d = "0123456789abcdef";
	std::string s;
	for (uint8_t x : g) {
		s += d[x >> 4];
		s += d[x & 15];
	}
	return s;
}

Genome unhex(const std::string &s, const std::string &where)
{
	Genome g;
	if (s.size() != 2 * g.size())
		throw TraceError(where + ": a genome is " + std::to_string(2 * g.size()) +
		                 " hexadecimal digits, got " + std::to_string(s.size()));
	for (size_t i = 0; i < g.size(); i++) {
		unsigned v = 0;
		if (std::sscanf(s.c_str() + 2 * i, "%2x", &v) != 1)
			throw TraceError(where + ": not hexadecimal at digit " + std::to_string(2 * i));
		g[i] = uint8_t(v);
	}
	return g;
}

Genome genome_of(const Mlp &m)
{
	Genome g;
	for (size_t i = 0; i < g.size(); i++)
		g[i] = uint8_t(std::lround(std::clamp((double(m.p[i]) + 1) / 2 * 255, 0.0, 255.0)));
	return g;
}

json fit_json(double f) { return std::isfinite(f) ? json(f) : json(nullptr); }
double fit_of(const json &j) { return j.is_null() ? HUGE_VAL : j.get<double>(); }
json fit_json(const Fit &f)
{
	return std::isfinite(f.fitness) ? json::array({f.fitness, f.bytes, f.time}) : json(nullptr);
}
Fit fit_of3(const json &j)
{
	return j.is_null() ? Fit{} : Fit{j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>()};
}

// What must match for --resume: the problem and the settings that shape the search.
json signature(const Objective &o, const TrainConfig &c)
{
	json t = json::array();
	for (auto &tr : o.traces())
		t.push_back(tr.kt.name);
	json sig = {{"method", c.method},       {"population", c.ga.population},
	            {"mutation", c.ga.mutation}, {"seed", c.seed},
	            {"mc_after", c.mc_after},   {"mc_genes", c.mc_genes},
	            {"mc_step", c.mc_step},     {"init", c.init},
	            {"traces", t},              {"vram_mib", o.config().vram_mib},
	            {"window", o.config().window}, {"topdown_kib", o.config().topdown_kib},
	            {"tolerance", o.config().tolerance}};
	// costs only when a cost file set them: checkpoints of the built-in costs stay valid
	const CostFile &k = o.config().costs;
	if (!k.builtin())
		sig["costs"] = {k.pcie_gbps, k.vram_gbps, k.move_latency_us, k.gtt_reads_per_use};
	return sig;
}

struct State {
	unsigned generation = 0;
	std::string phase = "ga";
	std::vector<Genome> pop;   // sorted best first
	std::vector<Fit> fit;
	std::vector<GenerationLog> log;
	uint64_t evaluations = 0, stopped = 0, replayed = 0; // replayed: not met before
	double seconds = 0, cpu = 0; // before this run
};

json state_json(const State &s, const std::mt19937_64 &rng, const json &sig)
{
	std::ostringstream r;
	r << rng;
	json pop = json::array(), fit = json::array(), log = json::array();
	for (size_t i = 0; i < s.pop.size(); i++) {
		pop.push_back(hex(s.pop[i]));
		fit.push_back(fit_json(s.fit[i]));
	}
	for (auto &l : s.log)
		log.push_back({{"generation", l.generation}, {"best", fit_json(l.best)},
		               {"best_bytes", fit_json(l.best_bytes)}, {"best_time", fit_json(l.best_time)},
		               {"mean", fit_json(l.mean)}, {"evaluations", l.evaluations},
		               {"stopped_early", l.stopped_early}, {"seconds", l.seconds},
		               {"cpu_seconds", l.cpu_seconds}, {"phase", l.phase}});
	return {{"schema", "vramlab-train-checkpoint"}, {"version", 1}, {"signature", sig},
	        {"generation", s.generation}, {"phase", s.phase}, {"rng", r.str()},
	        {"population", pop}, {"fitness", fit}, {"log", log},
	        {"evaluations", s.evaluations}, {"stopped_early", s.stopped},
	        {"seconds", s.seconds}, {"cpu_seconds", s.cpu}};
}

State load_state(const std::string &path, std::mt19937_64 &rng, const json &sig)
{
	std::ifstream f(path);
	if (!f)
		throw TraceError(path + ": cannot read the checkpoint");
	json j;
	try {
		j = json::parse(f);
	} catch (const json::exception &e) {
		throw TraceError(path + ": not a checkpoint: " + e.what());
	}
	if (j.value("schema", "") != "vramlab-train-checkpoint")
		throw TraceError(path + ": not a vramlab-train-checkpoint");
	if (j["signature"] != sig)
		throw TraceError(path + ": made for another problem or settings (its signature: " +
		                 j["signature"].dump() + ")");
	State s;
	try {
		s.generation = j["generation"];
		s.phase = j["phase"];
		std::istringstream r(j["rng"].get<std::string>());
		r >> rng;
		for (size_t i = 0; i < j["population"].size(); i++) {
			s.pop.push_back(unhex(j["population"][i], path + ": population " + std::to_string(i)));
			s.fit.push_back(fit_of3(j["fitness"][i]));
		}
		for (auto &l : j["log"])
			s.log.push_back({l["generation"], fit_of(l["best"]), fit_of(l["mean"]),
			                 fit_of(l["best_bytes"]), fit_of(l["best_time"]), l["evaluations"], l["stopped_early"], l["seconds"],
			                 l["cpu_seconds"], l["phase"]});
		s.evaluations = j["evaluations"];
		s.stopped = j["stopped_early"];
		s.seconds = j["seconds"];
		s.cpu = j["cpu_seconds"];
	} catch (const json::exception &e) {
		throw TraceError(path + ": damaged checkpoint: " + e.what());
	}
	if (s.pop.size() != sig["population"].get<unsigned>())
		throw TraceError(path + ": damaged checkpoint: population size");
	return s;
}

void sort_population(State &s)
{
	std::vector<size_t> idx(s.pop.size());
	std::iota(idx.begin(), idx.end(), 0);
	std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return s.fit[a].fitness < s.fit[b].fitness; });
	std::vector<Genome> p;
	std::vector<Fit> f;
	for (size_t i : idx) {
		p.push_back(s.pop[i]);
		f.push_back(s.fit[i]);
	}
	s.pop = std::move(p);
	s.fit = std::move(f);
}

std::vector<Mlp> nets(const std::vector<Genome> &g)
{
	std::vector<Mlp> n;
	for (auto &x : g)
		n.push_back(Mlp::from_genome(x));
	return n;
}

std::string eta(double left)
{
	char b[32];
	if (left < 0 || !std::isfinite(left))
		return "?";
	std::snprintf(b, sizeof b, "%dm%02ds", int(left / 60), int(left) % 60);
	return b;
}

TrainResult train_nlopt(const TrainConfig &c, const BatchEval &eval)
{
	const nlopt_algorithm alg = c.method == "nlopt-esch" ? NLOPT_GN_ESCH
	                            : c.method == "nlopt-crs2" ? NLOPT_GN_CRS2_LM
	                                                       : NLOPT_LN_SBPLX;
	nlopt_srand(c.seed);
	nlopt_opt opt = nlopt_create(alg, kMlpParams);
	std::vector<double> lo(kMlpParams, -1.0), hi(kMlpParams, 1.0), x(kMlpParams);
	nlopt_set_lower_bounds(opt, lo.data());
	nlopt_set_upper_bounds(opt, hi.data());
	std::mt19937_64 rng(c.seed);
	std::uniform_real_distribution<double> u(-1.0, 1.0);
	for (auto &v : x)
		v = u(rng);
	if (!c.init.empty()) {
		const Mlp m = Mlp::load(c.init);
		for (size_t i = 0; i < x.size(); i++)
			x[i] = std::clamp(double(m.p[i]), -1.0, 1.0);
	}
	const unsigned per_gen = std::max(1u, c.ga.population / 2);
	if (c.generations)
		nlopt_set_maxeval(opt, int(c.generations * per_gen));
	if (c.minutes > 0)
		nlopt_set_maxtime(opt, c.minutes * 60);
	struct Ctx {
		const TrainConfig &c;
		const BatchEval &eval;
		TrainResult r;
		double best = HUGE_VAL, sum = 0, best_bytes = HUGE_VAL, best_time = HUGE_VAL;
		uint64_t n = 0, in_gen = 0;
		unsigned per_gen;
		std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
		double cpu0 = cpu_seconds();
	} ctx{c, eval, {}, HUGE_VAL, 0, HUGE_VAL, HUGE_VAL, 0, 0, per_gen};
	auto f = [](unsigned n, const double *x, double *, void *data) -> double {
		auto &k = *static_cast<Ctx *>(data);
		Mlp m;
		for (unsigned i = 0; i < n; i++)
			m.p[i] = float(x[i]);
		// Candidates far worse than the best so far stop early; NLopt gets a finite bad value.
		const double cut = std::isfinite(k.best) ? 4 * k.best : HUGE_VAL;
		const Fit fit = k.eval({m}, cut)[0];
		double v = fit.fitness;
		if (!std::isfinite(v))
			v = cut;
		else if (v < k.best) {
			k.best_bytes = fit.bytes;
			k.best_time = fit.time;
		}
		k.n++;
		if (v < k.best) {
			k.best = v;
			k.r.best = m;
		}
		k.sum += v;
		if (++k.in_gen == k.per_gen) {
			GenerationLog l;
			l.generation = unsigned(k.r.log.size());
			l.best = k.best;
			l.mean = k.sum / double(k.in_gen);
			l.best_bytes = k.best_bytes;
			l.best_time = k.best_time;
			l.evaluations = k.n;
			l.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - k.t0).count();
			l.cpu_seconds = cpu_seconds() - k.cpu0;
			l.phase = "nlopt";
			k.r.log.push_back(l);
			if (k.c.progress)
				std::fprintf(stderr, "%s %4u  best %.4f (bytes %+.1f%%, time %+.1f%% vs LRU)  mean %.4f  "
				             "evals %llu  %.0f s\n", k.c.method.c_str(), l.generation, l.best,
				             (l.best_bytes - 1) * 100, (l.best_time - 1) * 100, l.mean,
				             (unsigned long long)l.evaluations, l.seconds);
			k.in_gen = 0;
			k.sum = 0;
		}
		return v;
	};
	nlopt_set_min_objective(opt, f, &ctx);
	double fmin = 0;
	nlopt_optimize(opt, x.data(), &fmin); // stops at maxeval/maxtime: a normal end
	nlopt_destroy(opt);
	ctx.r.best_fitness = ctx.best;
	return ctx.r;
}

} // namespace

TrainResult train(const Objective &o, const TrainConfig &c, const BatchEval &eval, bool write_files)
{
	if (!c.generations && c.minutes <= 0)
		throw std::invalid_argument("give a budget: --generations or --minutes");
	if (c.method.rfind("nlopt-", 0) == 0) {
		if (c.method != "nlopt-esch" && c.method != "nlopt-crs2" && c.method != "nlopt-sbplx")
			throw std::invalid_argument("unknown method " + c.method);
		return train_nlopt(c, eval);
	}
	if (c.method != "ga" && c.method != "mc")
		throw std::invalid_argument("unknown method " + c.method +
		                            " (ga, mc, nlopt-esch, nlopt-crs2, nlopt-sbplx)");
	if (c.ga.population < 4 || c.ga.population % 2)
		throw std::invalid_argument("the population must be even and at least 4");
	const json sig = signature(o, c);
	std::mt19937_64 rng(c.seed);
	State s;
	TrainResult out;
	const auto t0 = std::chrono::steady_clock::now();
	const double cpu0 = cpu_seconds();
	auto now_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
	auto log_generation = [&](double gen_seconds) {
		GenerationLog l;
		l.generation = s.generation;
		l.best = s.fit[0].fitness;
		l.best_bytes = s.fit[0].bytes;
		l.best_time = s.fit[0].time;
		double sum = 0;
		size_t n = 0;
		for (size_t i = 0; i < s.pop.size() / 2; i++)
			if (std::isfinite(s.fit[i].fitness))
				sum += s.fit[i].fitness, n++;
		l.mean = n ? sum / double(n) : HUGE_VAL;
		l.evaluations = s.evaluations;
		l.stopped_early = s.stopped;
		l.seconds = s.seconds + now_s();
		l.cpu_seconds = s.cpu + cpu_seconds() - cpu0;
		l.phase = s.phase;
		s.log.push_back(l);
		if (c.progress) {
			std::string left = "?";
			if (c.generations)
				left = eta(gen_seconds * double(c.generations - s.generation));
			else if (c.minutes > 0)
				left = eta(c.minutes * 60 - now_s());
			std::fprintf(stderr, "%s gen %4u  best %.4f (bytes %+.1f%%, time %+.1f%% vs LRU)  "
			             "mean %.4f  evals %llu (%llu replayed, %llu stopped early)  %.1f s/gen  "
			             "ETA %s\n",
			             s.phase.c_str(), s.generation, l.best, (l.best_bytes - 1) * 100,
			             (l.best_time - 1) * 100, l.mean, (unsigned long long)s.evaluations,
			             (unsigned long long)s.replayed, (unsigned long long)s.stopped,
			             gen_seconds, left.c_str());
		}
		if (write_files && !c.checkpoint.empty()) {
			json j = state_json(s, rng, sig);
			j["seconds"] = l.seconds;
			j["cpu_seconds"] = l.cpu_seconds;
			write_output(c.checkpoint, j.dump(1) + "\n");
		}
	};
	// Genomes met before are not replayed again (a converged population breeds copies of
	// itself). Reuse gives what a replay would: cutoffs never rise during a run, so a genome
	// stopped before would stop again, and a known fitness over the cutoff reads as stopped.
	std::map<Genome, Fit> memo;
	auto evaluate = [&](const std::vector<Genome> &g, double cutoff) {
		std::vector<Genome> fresh;
		for (auto &x : g)
			if (!memo.count(x) && std::find(fresh.begin(), fresh.end(), x) == fresh.end())
				fresh.push_back(x);
		if (!fresh.empty()) {
			const std::vector<Fit> f = eval(nets(fresh), cutoff);
			for (size_t i = 0; i < fresh.size(); i++)
				memo[fresh[i]] = f[i];
		}
		std::vector<Fit> f;
		for (auto &x : g) {
			const Fit &m = memo[x];
			f.push_back(m.fitness <= cutoff ? m : Fit{});
		}
		s.evaluations += g.size();
		s.replayed += fresh.size();
		for (const Fit &v : f)
			s.stopped += !std::isfinite(v.fitness);
		return f;
	};

	if (c.resume && !c.checkpoint.empty() && access(c.checkpoint.c_str(), F_OK) == 0) {
		s = load_state(c.checkpoint, rng, sig);
		out.resumed = true;
		if (c.progress)
			std::fprintf(stderr, "resumed %s at generation %u (%s)\n", c.checkpoint.c_str(),
			             s.generation, s.phase.c_str());
	} else {
		s.phase = c.method;
		for (unsigned i = 0; i < c.ga.population; i++)
			s.pop.push_back(random_genome(rng));
		if (!c.init.empty())
			s.pop[0] = genome_of(Mlp::load(c.init));
		s.fit = evaluate(s.pop, HUGE_VAL);
		sort_population(s);
		log_generation(now_s());
	}
	// Generation 0 is the evaluated first population; each later one replaces the worse half.
	while (!c.generations || s.generation < c.generations) {
		if (c.minutes > 0 && s.seconds + now_s() >= c.minutes * 60)
			break;
		const double g0 = now_s();
		if (s.phase == "ga" && c.mc_after && s.generation >= c.mc_after)
			s.phase = "mc";
		const size_t half = s.pop.size() / 2;
		if (s.phase == "ga") {
			std::vector<Genome> kids = ga_children(s.pop, c.ga, rng);
			// A child that does not beat the worst survivor never survives: stop it there.
			std::vector<Fit> f = evaluate(kids, s.fit[half - 1].fitness);
			for (size_t i = 0; i < kids.size(); i++) {
				s.pop[half + i] = kids[i];
				s.fit[half + i] = f[i];
			}
		} else {
			// Monte-Carlo: half a population of small random changes to the best; the best
			// of them replaces it if it improves (then the worst individual goes).
			std::vector<Genome> m(half);
			for (auto &g : m)
				g = mc_mutant(s.pop[0], c.mc_genes, c.mc_step, rng);
			std::vector<Fit> f = evaluate(m, s.fit[0].fitness);
			size_t b = 0;
			for (size_t i = 1; i < f.size(); i++)
				if (f[i].fitness < f[b].fitness)
					b = i;
			if (f[b].fitness < s.fit[0].fitness) {
				s.pop.back() = m[b];
				s.fit.back() = f[b];
			}
		}
		sort_population(s);
		s.generation++;
		log_generation(now_s() - g0);
	}
	out.best = Mlp::from_genome(s.pop[0]);
	out.best_fitness = s.fit[0].fitness;
	out.log = s.log;
	return out;
}

} // namespace vramlab
