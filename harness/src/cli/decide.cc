// vramlab decide and vramlab sim --model kernel --ensemble N (decide.h).
#include "cli/decide.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <bit>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>
#ifdef VRAMLAB_HAVE_MPI
#include <mpi.h>
#endif

#include "cli/commands.h"
#include "kmodel/kernel_json.h"
#include "kmodel/oracle.h"
#include "sim/run.h"
#include "mlp/mlp.h"
#include "sim/parallel.h"
#include "sim/trace_cache.h"
#include "trace/stats.h"
#include "util/output_file.h"
#include "train/objective.h"

namespace vramlab {

namespace {

uint64_t thread_cpu_ns() // this thread's CPU time (--run-times)
{
	timespec ts{};
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

std::string csv_field(const std::string &v) // RFC 4180: quoted when it must be
{
	if (v.find_first_of(",\"\r\n") == std::string::npos)
		return v;
	std::string q = "\"";
	for (char ch : v)
		q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
	return q + "\"";
}

struct TraceMeta {
	std::string name;
	bool live = false;        // from --live: real programs on the virtual radeon
	bool synthesized = false; // no CS records: submissions made one per period
	bool scores = false;      // some submission sent a score chunk
	uint64_t impossible = 0;
	std::vector<double> frame_cpu_us; // recorded time of each frame (live traces)
};

struct Frame3 {
	uint64_t bytes, moves, gtt_bytes;
};

struct Fig { // one (trace, VRAM size, policy, variation) run
	uint64_t moved = 0, moves = 0, gtt_bytes = 0, evictions = 0;
	uint64_t evict_allocs = 0, evict_allocs_too_big = 0; // KernelResult's: whether its
	                                                      // eviction twins are this run
	uint64_t guard_observed = 0; // and its guard and charge twins (the charges giving this run)
	uint64_t admit_same_from = 1, admit_same_to = UINT32_MAX;
	std::vector<Frame3> frames; // live traces only
};

struct Spread {
	double median = 0, q1 = 0, q3 = 0, min = 0, max = 0;
};

double quantile(std::vector<double> v, double q) // linear interpolation, v not empty
{
	std::sort(v.begin(), v.end());
	const double pos = q * double(v.size() - 1);
	const size_t i = size_t(pos);
	const double f = pos - double(i);
	return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

Spread spread(const std::vector<double> &v)
{
	return {quantile(v, 0.5), quantile(v, 0.25), quantile(v, 0.75),
	        *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
}

// Whether some submission names a buffer twice (only then did the LRU fix alone and 6.12 differ;
// with the duplicate fix too they differ only in a failed submission's tail moves, which an
// unbounded GTT never has: kept as the conservative test).
bool has_duplicate_relocs(const KernelTrace &t)
{
	std::vector<uint32_t> seen; // the last submission each id was named in, + 1
	for (size_t c = 0; c < t.cs.size(); c++)
		for (uint32_t i = 0; i < t.cs[c].n; i++) {
			const uint32_t id = t.relocs[t.cs[c].first + i].id;
			if (id >= seen.size())
				seen.resize(size_t(id) + 1, 0);
			if (seen[id] == c + 1)
				return true;
			seen[id] = uint32_t(c + 1);
		}
	return false;
}

double ratio(double x, double base) { return base > 0 ? x / base : x > 0 ? 2.0 : 1.0; }

// Two choices that differ at most in the order scores give (without scores, key order and
// priority order are LRU order); every other rule the same (comparing fewer flags took
// window+key, on a trace without scores, for whichever window rule came last in the list:
// window-predict in decide-all's tables before 2026-11-30)
bool same_but_key(const KernelChoice &a, const KernelChoice &b)
{
	KernelPolicy x = *a.policy, y = *b.policy;
	x.key = y.key = x.prio = y.prio = false;
	return a.topdown_kib == b.topdown_kib && x.rules() == y.rules();
}

nlohmann::json pct_json(const Spread &s) // ratios as % change, positive = more than stock
{
	auto p = [](double r) { return std::round((r - 1) * 1e6) / 1e4; };
	return {{"median", p(s.median)}, {"q1", p(s.q1)}, {"q3", p(s.q3)},
	        {"best", p(s.min)},      {"worst", p(s.max)}};
}

// A band in the JSON; its move latency only when it has its own (the keys of before else)
nlohmann::json band_json(const CostBand &b)
{
	nlohmann::json j{{"gtt_factor", b.gtt_factor}, {"pcie_gbps", b.pcie_gbps}, {"label", b.label()}};
	if (b.move_latency_us >= 0)
		j["move_latency_us"] = b.move_latency_us;
	return j;
}

// Frame times: each frame's recorded time plus its modelled transfer time
std::vector<double> frame_list(const TraceMeta &t, const Fig &f, const KernelConfig &c,
                               const CostBand &b)
{
	std::vector<double> ft;
	const size_t n = std::min(t.frame_cpu_us.size(), f.frames.size());
	for (size_t i = 0; i < n; i++)
		ft.push_back(t.frame_cpu_us[i] + band_transfer_us(f.frames[i].bytes, f.frames[i].moves,
		                                                  f.frames[i].gtt_bytes, c, b));
	return ft;
}

// their p99 and stutter (kernel_json.h; none without frames)
FrameTimes frame_stats(const TraceMeta &t, const Fig &f, const KernelConfig &c, const CostBand &b)
{
	return frame_times(frame_list(t, f, c, b));
}


// "What to boot": per stock kernel that is a baseline, the verdicts over the table's groups and
// sizes (every cost band each) of what one can boot on it. A mechanism (window eviction, ...)
// is a default only when it is a robust win or neutral at every size, at least one win. A
// kernel's "+fix" is judged as a fix: it is recommended when it gives stock 6.12's figures
// (neutral against 6.12 at every size) and the kernel without it loses somewhere; a mechanism
// on the fixed kernel is then judged against the fix, i.e. as the same mechanism on 6.12 (the
// fix is 6.12's order, decide reuses 6.12's runs for it), so that the fix's own gain is not
// counted as the mechanism's. Computed from the verdicts alone: the text cannot say more than
// the table. Returns it as JSON.
struct BootCount {
	int sizes = 0, win = 0, neutral = 0, mixed = 0, loss = 0;
	double lo = 1e300, hi = -1e300;
	bool all(int n) const { return sizes && n == sizes; }
	std::string text() const
	{
		std::string c;
		for (auto [n, k] : {std::pair{win, "robust win"}, std::pair{neutral, "neutral"},
		                    std::pair{mixed, "mixed"}, std::pair{loss, "loss"}})
			if (n) {
				if (!c.empty())
					c += ", ";
				c += std::to_string(n);
				c += " ";
				c += k;
			}
		return c;
	}
};

// A rule only the model has (issue 36's experiments and offline references): no kernel of the
// series boots it, so it is never a default, whatever its verdicts.
const char *model_only(const std::string &pol)
{
	ScoreSource src;
	KernelChoice k;
	try {
		k = decide_choice(pol, 0, src); // the table's own parse of its policy names
	} catch (const std::invalid_argument &) {
		return nullptr;
	}
	if (src == ScoreSource::Oracle)
		return "offline reference (clairvoyant scores)";
	if (k.policy->oracle)
		return "offline reference (clairvoyant)";
	if (k.policy->weigh || k.policy->ends || k.policy->idle || k.policy->guard)
		return "model only (not in the series yet)";
	return nullptr;
}

// Options of this run that radeon does not have (--nofit-walk, the folds' other constants):
// the predicted window's rows are then the model's own, whatever the policy's name says
const char *model_only_options(const KernelConfig &c)
{
	const KernelConfig k; // radeon's constants
	if (c.predict_nofit_walk)
		return "model only (--nofit-walk is not in the series)";
	if (c.predict_size_exp2 != k.predict_size_exp2 || c.admit_reads != k.admit_reads ||
	    c.predict_gap_ratio != k.predict_gap_ratio || c.predict_gap_trust != k.predict_gap_trust ||
	    c.predict_overdue_gap != k.predict_overdue_gap || c.predict_trusted != k.predict_trusted ||
	    c.predict_regime != k.predict_regime || c.predict_escalate != k.predict_escalate ||
	    c.predict_move_pages != k.predict_move_pages)
		return "model only (constants other than radeon's)";
	return nullptr;
}

nlohmann::json print_boot(FILE *out, const nlohmann::json &verdicts,
                          const std::vector<std::string> &bases, const char *options_only)
{
	bool has_clean = false;
	for (const auto &v : verdicts)
		has_clean |= v["group"] == "clean";
	const char *skip_group = has_clean ? "corpus" : "clean"; // clean is a part of corpus
	// cls: the verdicts of one card class (CostBand::card_class()) instead of every band's
	auto count = [&](const std::string &pol, const std::string &base, const char *cls = nullptr) {
		BootCount c;
		for (const auto &v : verdicts) {
			if (v["baseline"] != base || v["policy"] != pol || v["group"] == skip_group)
				continue;
			if (cls && !(v.contains("by_class") && v["by_class"].contains(cls)))
				continue;
			const std::string w = cls ? v["by_class"][cls] : v["verdict"];
			c.sizes++;
			c.win += w == "robust win";
			c.neutral += w == "neutral";
			c.mixed += w == "mixed";
			c.loss += w == "loss";
			const double m = v["worst_band_median_change_pct"].get<double>();
			c.lo = std::min(c.lo, m);
			c.hi = std::max(c.hi, m);
		}
		return c;
	};
	auto is_base = [&](const std::string &p) {
		return std::find(bases.begin(), bases.end(), p) != bases.end();
	};
	nlohmann::json boot = nlohmann::json::array();
	std::fprintf(out, "\nWhat to boot, from this table (per size, every cost band; a mechanism "
	                  "is a default only if a robust win or neutral at every size; the range is "
	                  "of the median change of transfer time in the worst band, + = worse):\n");
	for (const std::string &base : bases) {
		std::string bk;
		std::vector<std::string> order; // what one can boot on this kernel, in table order
		for (const auto &v : verdicts) {
			if (v["baseline"] != base || v["policy"] == base)
				continue;
			bk = v["baseline_kernel"].get<std::string>();
			const std::string k = v["kernel"], pol = v["policy"];
			if ((k == bk || k == bk + "+fix" || is_base(pol)) &&
			    std::find(order.begin(), order.end(), pol) == order.end())
				order.push_back(pol);
		}
		if (order.empty())
			continue;
		const bool stock = base == "lru" || base.ends_with(":lru");
		std::fprintf(out, "  on %s%s (against %s):\n", stock ? "stock " : "", bk.c_str(), base.c_str());
		const std::string fix = bk + "+fix:lru";
		// the fix restores 6.12 when it is neutral against stock 6.12 at every size
		const BootCount fix_vs_612 = count(fix, "lru");
		const bool fix_restores = is_base("lru") && fix_vs_612.all(fix_vs_612.neutral);
		const BootCount unfixed = count(base, "lru"); // this kernel against 6.12
		std::vector<std::string> defaults;
		bool fix_recommended = false;
		for (const std::string &pol : order) {
			BootCount c = count(pol, base);
			std::string judged = base, cls;
			if (is_base(pol)) {
				cls = c.all(c.loss) ? "the other stock kernel: worse at every size"
				                    : "the other stock kernel";
			} else if (pol == fix) {
				fix_recommended = fix_restores && bk != "6.12" && unfixed.loss > 0;
				cls = fix_recommended ? "the fix: stock 6.12's figures again (neutral against "
				                        "6.12 at every size); apply it"
				      : fix_restores ? "the fix: stock 6.12's figures again"
				                     : "the fix (not 6.12's figures here)";
			} else {
				const size_t colon = pol.find(':');
				if (fix_restores && pol.starts_with(bk + "+fix:") && colon != std::string::npos) {
					// on the fixed kernel: against the fix, i.e. as the mechanism on 6.12
					judged = "lru";
					c = count(pol.substr(colon + 1), "lru");
				}
				const char *only = model_only(pol);
				if (!only && pol.find("window-predict") != std::string::npos)
					only = options_only;
				const bool dflt = c.all(c.win + c.neutral) && c.win;
				cls = c.all(c.neutral) ? "the same as stock"
				      : dflt && only   ? "robust at every size"
				      : dflt           ? "a default"
				      : c.all(c.loss)  ? "worse at every size"
				      : only           ? "not robust"
				                       : "opt-in only";
				// not robust in every band: robust in every band of one card class?
				for (const char *cn : dflt ? std::span<const char *const>()
				                           : std::span(CostBand::kClassNames)) {
					const BootCount cc = count(judged == base ? pol : pol.substr(colon + 1),
					                           judged, cn);
					if (cc.all(cc.win + cc.neutral) && cc.win)
						cls += std::string("; robust for ") + cn + " boards";
				}
				if (only)
					cls += std::string("; ") + only;
				if (judged != base)
					cls += " (judged against the fix)";
				if (dflt && !only)
					defaults.push_back(pol);
			}
			std::fprintf(out, "    %-18s %+.1f%% to %+.1f%% over %d sizes (%s): %s\n", pol.c_str(),
			             c.lo, c.hi, c.sizes, c.text().c_str(), cls.c_str());
			boot.push_back({{"kernel", bk}, {"baseline", base}, {"policy", pol},
			                {"judged_against", judged}, {"sizes", c.sizes},
			                {"robust_win", c.win}, {"neutral", c.neutral}, {"mixed", c.mixed},
			                {"loss", c.loss}, {"worst_band_median_min_pct", c.lo},
			                {"worst_band_median_max_pct", c.hi}, {"class", cls}});
		}
		if (!stock)
			continue;
		std::string d = fix_recommended ? "apply the fix (" + fix + ")" : "";
		for (const std::string &p : defaults) {
			d += d.empty() ? "boot " : ", then boot ";
			d += p;
		}
		std::fprintf(out, "    => on %s: %s\n", bk.c_str(),
		             d.empty() ? "stock; no mechanism here is a robust win at every size"
		                       : (d + (defaults.empty() ? "; no mechanism here is a robust "
		                                                   "win at every size on top of it"
		                                                 : "")).c_str());
	}
	return boot;
}

#ifdef VRAMLAB_HAVE_MPI
// decide --mpi: one process's traces (their metadata and every run's figures) as 64-bit words,
// sent to rank 0. An error is sent as kFailed and its message.
constexpr uint64_t kFailed = UINT64_MAX;
void put_bytes(std::vector<uint64_t> &w, const std::string &s)
{
	w.push_back(s.size());
	for (size_t i = 0; i < s.size(); i += 8) {
		uint64_t x = 0;
		std::memcpy(&x, s.data() + i, std::min<size_t>(8, s.size() - i));
		w.push_back(x);
	}
}
std::string get_bytes(const std::vector<uint64_t> &w, size_t &i)
{
	const size_t n = w.at(i++);
	std::string s(n, '\0');
	for (size_t k = 0; k < n; k += 8)
		std::memcpy(s.data() + k, &w.at(i++), std::min<size_t>(8, n - k));
	return s;
}
void put_trace(std::vector<uint64_t> &w, size_t ti, const TraceMeta &m, const Fig *figs, size_t n)
{
	w.insert(w.end(), {ti, m.live, m.synthesized, m.scores, m.impossible});
	put_bytes(w, m.name);
	w.push_back(m.frame_cpu_us.size());
	for (double x : m.frame_cpu_us)
		w.push_back(std::bit_cast<uint64_t>(x));
	for (size_t k = 0; k < n; k++) {
		const Fig &f = figs[k];
		w.insert(w.end(), {f.moved, f.moves, f.gtt_bytes, f.evictions, f.frames.size()});
		for (const Frame3 &x : f.frames)
			w.insert(w.end(), {x.bytes, x.moves, x.gtt_bytes});
	}
}
// returns the trace's index; its figures go to figs[0..n)
size_t get_trace(const std::vector<uint64_t> &w, size_t &i, std::vector<TraceMeta> &meta,
                 std::vector<Fig> &all, size_t per_trace, size_t n)
{
	const size_t ti = w.at(i++);
	TraceMeta &m = meta.at(ti);
	m.live = w.at(i++);
	m.synthesized = w.at(i++);
	m.scores = w.at(i++);
	m.impossible = w.at(i++);
	m.name = get_bytes(w, i);
	m.frame_cpu_us.resize(w.at(i++));
	for (double &x : m.frame_cpu_us)
		x = std::bit_cast<double>(w.at(i++));
	for (size_t k = 0; k < n; k++) {
		Fig &f = all.at(ti * per_trace + k);
		f.moved = w.at(i++);
		f.moves = w.at(i++);
		f.gtt_bytes = w.at(i++);
		f.evictions = w.at(i++);
		f.frames.resize(w.at(i++));
		for (Frame3 &x : f.frames) {
			x.bytes = w.at(i++);
			x.moves = w.at(i++);
			x.gtt_bytes = w.at(i++);
		}
	}
	return ti;
}
#endif // VRAMLAB_HAVE_MPI

} // namespace

KernelChoice decide_choice(const std::string &name, uint32_t default_kib, ScoreSource &scores)
{
	std::string base = name;
	scores = ScoreSource::Trace;
	for (auto [suffix, src] : {std::pair{std::string_view(":oracle"), ScoreSource::Oracle},
	                           std::pair{std::string_view(":net"), ScoreSource::Net}})
		if (name.size() > suffix.size() && name.ends_with(suffix)) {
			base = name.substr(0, name.size() - suffix.size());
			scores = src;
		}
	const KernelChoice k = kernel_choice(base, default_kib);
	if (scores != ScoreSource::Trace && !k.policy->scored())
		throw std::invalid_argument("policy \"" + name + "\": " +
		                            (scores == ScoreSource::Oracle ? "an oracle" : "a network") +
		                            " sends scores, so the policy must evict by key or priority "
		                            "(key, minmax+key, window+key, window+budget+key, prio, "
		                            "minmax+prio)");
	return k;
}

void run_decide(const DecideArgs &a)
{
	std::FILE *tab = a.json == "-" ? stderr : stdout;
	check_json_path(a.json); // before the table, not after it
	check_json_path(a.run_times);
	if (a.mpi && !a.run_times.empty()) // each rank times only its own traces' runs
		throw CLI::ValidationError("--run-times", "one process only: not with --mpi");
	if (a.ensemble < 1 || a.ensemble > kMaxEnsemble)
		throw CLI::ValidationError("--ensemble", std::to_string(a.ensemble) + " is out of range 1.." +
		                                            std::to_string(kMaxEnsemble) +
		                                            " (the defined variations)");
	std::vector<std::pair<std::string, bool>> inputs; // path, live
	// each trace once, in both sets together (sim --ensemble's are its TRACE arguments)
	const auto lists = trace_files({{a.decide ? "--corpus" : "TRACE", a.corpus}, {"--live", a.live}});
	for (auto &p : lists[0])
		inputs.push_back({p, false});
	for (auto &p : lists[1])
		inputs.push_back({p, true});
	if (inputs.empty())
		throw CLI::ValidationError("TRACE", "no traces given");
	std::vector<KernelChoice> choices;
	std::vector<std::string> names = a.policies;
	std::vector<ScoreSource> source; // per policy
	for (auto &p : a.policies) {
		ScoreSource s;
		try {
			choices.push_back(decide_choice(p, a.config.topdown_kib, s));
		} catch (const std::invalid_argument &e) {
			throw CLI::ValidationError("--policies", e.what());
		}
		if (s == ScoreSource::Net && a.weights.empty())
			throw CLI::ValidationError("--policies", "policy \"" + p + "\" needs --weights "
			                                         "(the network whose scores it evicts by)");
		source.push_back(s);
	}
	const bool any_oracle =
	        std::find(source.begin(), source.end(), ScoreSource::Oracle) != source.end();
	Mlp mlp;
	const bool net = !a.weights.empty();
	if (net) { // the last policy: min-max + key with the network's scores
		mlp = Mlp::load(a.weights);
		names.push_back("minmax+key:" + base_name(a.weights).substr(0, base_name(a.weights).rfind('.')));
		choices.push_back(kernel_choice("minmax+key", a.config.topdown_kib));
		source.push_back(ScoreSource::Net);
	}
	// one run under two names (lru and 6.12:lru, minmax and minmax@512K): rows and a verdict twice
	auto same = [&](const KernelChoice &x, ScoreSource sx, size_t q) {
		return x.policy == choices[q].policy && x.topdown_kib == choices[q].topdown_kib &&
		       x.stock == choices[q].stock && sx == source[q];
	};
	for (size_t p = 1; p < choices.size(); p++)
		for (size_t q = 0; q < p; q++)
			if (same(choices[p], source[p], q))
				throw CLI::ValidationError("--policies", "\"" + names[p] + "\" is \"" + names[q] +
				                                         "\" again (one run)");
	if (choices.empty() || choices[0].policy != &find_kernel_policy("lru") || choices[0].topdown_kib)
		throw CLI::ValidationError("--policies", "the first policy must be lru (stock, on any "
		                                         "kernel), the baseline every other is paired with");
	// The baselines: the first policy, then --baselines (each stock lru on a kernel); one
	// missing from the policies is run too
	std::vector<size_t> base_of{0};
	for (const std::string &b : a.baselines) {
		KernelChoice k;
		try {
			k = kernel_choice(b, a.config.topdown_kib);
		} catch (const std::invalid_argument &e) {
			throw CLI::ValidationError("--baselines", e.what());
		}
		if (k.policy != &find_kernel_policy("lru") || k.topdown_kib)
			throw CLI::ValidationError("--baselines", "\"" + b + "\" is not stock: a baseline "
			                                          "is lru on a kernel (lru, 6.14:lru)");
		size_t at = 0; // the policy it is, by value (6.12:lru is lru)
		while (at < names.size() && !same(k, ScoreSource::Trace, at))
			at++;
		if (at == names.size()) {
			names.push_back(b);
			choices.push_back(k);
			source.push_back(ScoreSource::Trace);
		}
		if (std::find(base_of.begin(), base_of.end(), at) != base_of.end())
			throw CLI::ValidationError("--baselines", "\"" + b + "\" is the baseline \"" +
			                                          names[at] + "\" again");
		base_of.push_back(at);
	}
	if (choices.size() == 1) // no row: every row pairs a policy with a baseline
		throw CLI::ValidationError("--policies", "\"" + names[0] + "\" alone compares "
		                                         "nothing: name policies to pair with it "
		                                         "(lru,window)");
	std::vector<CostBand> bands;
	std::vector<size_t> band_charge;  // per band: its index in a.gtt_factors
	std::vector<size_t> band_latency; // and in latencies
	const std::vector<double> latencies =
	        a.move_latency_us.empty() ? std::vector<double>{-1} : a.move_latency_us;
	for (size_t gi = 0; gi < a.gtt_factors.size(); gi++)
		for (double p : a.pcie_gbps)
			for (size_t li = 0; li < latencies.size(); li++) {
				bands.push_back({a.gtt_factors[gi], p, latencies[li]});
				band_charge.push_back(gi);
				band_latency.push_back(li);
			}
	// A policy that reads the card's GTT cost (window-predict+admit) runs once per GTT charge of
	// the bands, as on cards that differ in it: its first charge under its own name, each other
	// as a hidden policy, and each band takes its charge's run. `shown` policies have rows.
	const size_t shown = choices.size();
	std::vector<uint32_t> gtt_permille(shown, 0);
	std::vector<std::vector<size_t>> by_charge(shown); // per a.gtt_factors index
	for (size_t p = 0; p < shown; p++) {
		if (!choices[p].policy->reads_gtt_cost())
			continue;
		for (size_t gi = 0; gi < a.gtt_factors.size(); gi++) {
			size_t q = p;
			if (gi > 0) {
				char n[40];
				std::snprintf(n, sizeof n, "@gtt-x%g", a.gtt_factors[gi]);
				q = choices.size();
				names.push_back(names[p] + n);
				choices.push_back(choices[p]);
				source.push_back(source[p]);
				gtt_permille.push_back(0);
			}
			gtt_permille[q] = gtt_read_permille(a.config, a.gtt_factors[gi]);
			by_charge[p].push_back(q);
		}
	}
	// the run of policy p (shown) that band b (an element of bands) reads
	auto in_band = [&](size_t p, const CostBand &b) {
		return by_charge[p].empty() ? p : by_charge[p][band_charge[size_t(&b - bands.data())]];
	};
	const auto &vars = variations();
	// the live corpus has its own sizes (its programs need far less VRAM than the games)
	const std::vector<uint64_t> &live_sizes = a.live_vram_mib.empty() ? a.vram_mib : a.live_vram_mib;
	auto sizes_of = [&](bool live) -> const std::vector<uint64_t> & {
		return live ? live_sizes : a.vram_mib;
	};
	const size_t T = inputs.size(), S = std::max(a.vram_mib.size(), live_sizes.size()),
	             P = choices.size(), V = a.ensemble;
	const std::vector<std::string> &pol_names = names;
	auto at = [&](size_t t, size_t s, size_t p, size_t v) { return ((t * S + s) * P + p) * V + v; };
	std::vector<Fig> figs(T * S * P * V);
	// --run-times: each replay's thread CPU time, ns (0: not replayed, its figures copied)
	std::vector<uint64_t> run_ns(a.run_times.empty() ? 0 : figs.size());
	std::vector<TraceMeta> meta(T);
	// no more threads than a trace's runs (the work that runs at once), nor in the summary
	size_t most_runs = 1; // of one trace
	for (const auto &in : inputs)
		most_runs = std::max(most_runs, sizes_of(in.second).size() * P * V);
	const unsigned threads = unsigned(std::min<size_t>(
	        a.threads ? a.threads : std::max(1u, std::thread::hardware_concurrency()),
	        most_runs));
	int rank = 0, ranks = 1;
#ifdef VRAMLAB_HAVE_MPI
	if (a.mpi) {
		MPI_Init(nullptr, nullptr);
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	}
#else
	if (a.mpi)
		throw TraceError("this vramlab was built without MPI (install libopenmpi-dev, rebuild)");
#endif
	const bool progress = !a.quiet && isatty(STDERR_FILENO) && rank == 0;
	const auto t0 = std::chrono::steady_clock::now();
	uint64_t replays = 0;
	std::string failed; // --mpi: this process's error, sent to rank 0
	for (size_t ti = size_t(rank); ti < T && failed.empty(); ti += size_t(ranks)) try {
		const std::string &path = inputs[ti].first;
		if (progress)
			std::fprintf(stderr, "\r[%zu/%zu] %s: decoding...\033[K", ti + 1, T,
			             base_name(path).c_str());
		const ReplayOptions ro{a.on_destroyed, OnImpossible::Keep}; // the whole corpus as recorded
		const KernelTrace kt =
		        cached_kernel(path, ro, [&] { return load_kernel_trace(path, ro); });
		TraceMeta &m = meta[ti];
		m.name = kt.name;
		m.live = inputs[ti].second;
		const std::vector<uint64_t> &tsz = sizes_of(m.live);
		m.synthesized = kt.synthesized;
		m.impossible = kt.impossible;
		m.scores = std::any_of(kt.cs.begin(), kt.cs.end(), [](const KernelCs &c) { return c.scores; });
		if (!kt.synthesized)
			for (size_t i = 0; i < kt.frame_us.size(); i++)
				m.frame_cpu_us.push_back(double(kt.frame_us[i] - (i ? kt.frame_us[i - 1] : 0)));
		// Without scores, key order is LRU order (every key is its submission stamp): a key
		// policy's runs are its placement's without key, which are run once.
		std::vector<size_t> run_as(P);
		for (size_t p = 0; p < P; p++) {
			run_as[p] = p;
			if (!m.scores && choices[p].policy->scored() && source[p] == ScoreSource::Trace)
				for (size_t q = 0; q < P; q++)
					if (!choices[q].policy->scored() && same_but_key(choices[q], choices[p]) &&
					    source[q] == ScoreSource::Trace && choices[q].stock == choices[p].stock)
						run_as[p] = q;
		}
		// 6.14 + fixes is 6.12 on a trace that never names a BO twice in one submission (the
		// lists are the same, and so are the tail moves: KernelModel.SixFourteenWithTheFix*):
		// its runs are the 6.12 twin's, where the table has one
		const bool dups = has_duplicate_relocs(kt);
		for (size_t p = 0; p < P && !dups; p++)
			if (choices[p].stock == Stock::V6_14_Fixed && run_as[p] == p)
				for (size_t q = 0; q < P; q++)
					if (choices[q].stock == Stock::V6_12 && choices[q].policy == choices[p].policy &&
					    choices[q].topdown_kib == choices[p].topdown_kib &&
					    source[q] == source[p] && run_as[q] == q)
						run_as[p] = q;
		for (size_t p = 0; p < P; p++) // a key policy's placement may itself be a twin's
			while (run_as[run_as[p]] != run_as[p])
				run_as[p] = run_as[run_as[p]];
		// Every eviction rule acts in ttm_bo_evict_alloc() and nowhere else (fit, window
		// eviction and its variants, key and priority order, the thrash guard, the oracles),
		// and the fit rule only for a BO larger than VRAM: where the run of the same kernel,
		// placement and threshold with stock eviction never got there, a rule's run is that
		// run. The representative runs first; its twins are replayed only on the boards and
		// sizes where it did (--every-board replays them all).
		std::vector<size_t> rep(P);
		for (size_t p = 0; p < P; p++) {
			rep[p] = p;
			if (run_as[p] != p || !choices[p].policy->eviction_rule() || a.every_board)
				continue;
			for (size_t q = 0; q < P && rep[p] == p; q++)
				if (run_as[q] == q && !choices[q].policy->eviction_rule() &&
				    choices[q].stock == choices[p].stock &&
				    choices[q].topdown_kib == choices[p].topdown_kib &&
				    choices[q].policy->topdown == choices[p].policy->topdown &&
				    choices[q].policy->budget == choices[p].policy->budget)
					rep[p] = q;
		}
		auto twin_replays = [&](size_t p, const Fig &r) {
			return choices[p].policy->fit_only() ? r.evict_allocs_too_big != 0
			                                     : r.evict_allocs != 0;
		};
		// Second twins, for an eviction rule its stock twin does not settle:
		// - the thrash guard's runs are the unguarded rule's as long as the guard would not
		//   have kept a BO yet (guard_observe: the same bookkeeping, not consulted; a cap
		//   refusal changes nothing), so where it never would, they are that run. The
		//   observation goes on the unguarded rule's run and on its stock twin's, whose run
		//   the rule's may be a copy of;
		// - predicted admission at another GTT charge is its first charge's run where every
		//   cost test that run asked (the one place the charge enters) gives the same answer
		//   at the other charge (KernelResult::admit_same_from/to; none asked: any charge).
		std::vector<size_t> rep2(P);
		std::vector<char> observe(P, 0);
		for (size_t p = 0; p < P; p++) {
			rep2[p] = p;
			if (run_as[p] != p || rep[p] == p || a.every_board)
				continue;
			const KernelPolicy &pp = *choices[p].policy;
			for (size_t q = 0; q < P && rep2[p] == p; q++) {
				if (q == p || run_as[q] != q || rep[q] == q ||
				    choices[q].stock != choices[p].stock ||
				    choices[q].topdown_kib != choices[p].topdown_kib || source[q] != source[p])
					continue;
				const KernelPolicy &qp = *choices[q].policy;
				if (pp.guard) {
					KernelPolicy without = pp;
					without.guard = false;
					if (without.rules() == qp.rules() && gtt_permille[q] == gtt_permille[p])
						rep2[p] = q;
				} else if (pp.reads_gtt_cost() && &qp == &pp && q < p &&
				           gtt_permille[q] != gtt_permille[p]) {
					rep2[p] = q; // the first charge comes first
				}
			}
			if (rep2[p] != p && pp.guard)
				observe[rep2[p]] = observe[rep[rep2[p]]] = 1;
		}
		auto second_replays = [&](size_t p, const Fig &r) {
			return choices[p].policy->guard
			               ? r.guard_observed != 0
			               : gtt_permille[p] < r.admit_same_from || gtt_permille[p] > r.admit_same_to;
		};
		std::vector<uint32_t> periods;
		for (size_t v = 0; v < V; v++) {
			const uint32_t per = kt.synthesized ? vars[v].period_ms : 1;
			if (std::find(periods.begin(), periods.end(), per) == periods.end())
				periods.push_back(per);
		}
		// Two boards that pin the same BOs at a size (pinned_for() caps them at a quarter of
		// VRAM) with the same period are one run: the model is deterministic, so the second
		// board's figures are a copy of the first's, not a replay
		struct Task {
			size_t s, p, v;
		};
		struct Copy {
			size_t s, p, v, from_v;
		};
		struct Plan {
			std::vector<Task> tasks;
			std::vector<Copy> copies;
		};
		std::vector<Plan> plans(periods.size());
		size_t done = 0, total = 0;
		for (size_t pi = 0; pi < periods.size(); pi++) {
			for (size_t s = 0; s < tsz.size(); s++) {
				std::vector<std::pair<std::vector<uint64_t>, size_t>> boards;
				for (size_t v = 0; v < V; v++) {
					if ((kt.synthesized ? vars[v].period_ms : 1) != periods[pi])
						continue;
					std::vector<uint64_t> pin = pinned_for(vars[v], tsz[s] << 20);
					auto same = a.every_board ? boards.end()
					                          : std::find_if(boards.begin(), boards.end(),
					                                         [&](const auto &b) { return b.first == pin; });
					for (size_t p = 0; p < P; p++)
						if (run_as[p] != p)
							continue;
						else if (same != boards.end())
							plans[pi].copies.push_back({s, p, v, same->second});
						else
							plans[pi].tasks.push_back({s, p, v});
					if (same == boards.end())
						boards.emplace_back(std::move(pin), v);
				}
			}
			total += plans[pi].tasks.size();
		}
		for (size_t pi = 0; pi < periods.size(); pi++) {
			const uint32_t per = periods[pi];
			// regrouped only where the period changes anything (a copy of a trace is not free)
			KernelTrace regrouped;
			if (kt.synthesized && per > 1)
				regrouped = with_period(kt, per);
			const KernelTrace &kp = kt.synthesized && per > 1 ? regrouped : kt;
			// the network's inputs for this grouping
			const TrainTrace tt = net ? train_inputs(kp, 256ull << 20) : TrainTrace{};
			// Once for every run of this grouping, side by side: radeon's lists, the
			// oracle's scores, the network's per size (input 1 is the VRAM size)
			Submissions subs;
			std::vector<uint32_t> oracle;
			std::vector<std::vector<uint32_t>> scored(net ? tsz.size() : 0);
			{
				std::mutex mu;
				std::string err;
				parallel_for_each(2 + scored.size(), threads, [&](size_t j) {
					try {
						if (j == 0)
							subs = prepare_submissions(kp);
						else if (j == 1 && any_oracle)
							oracle = oracle_scores(kp, a.config.window);
						else if (j >= 2)
							scored[j - 2] = net_scores(tt, mlp, tsz[j - 2]);
					} catch (const std::exception &e) {
						std::lock_guard g(mu);
						err = e.what();
					}
				});
				if (!err.empty())
					throw TraceError(m.name + ": " + err);
			}
			// the representatives (and what has none) first, then what their runs leave, then
			// the second twins
			std::vector<Task> first, twins, twins2;
			for (const Task &k : plans[pi].tasks)
				(rep[k.p] == k.p ? first : rep2[k.p] == k.p ? twins : twins2).push_back(k);
			std::vector<Task> tasks = std::move(first);
			std::mutex mu;
			std::string err;
			auto run = [&](size_t i) {
				const Task &k = tasks[i];
				KernelConfig c = a.config;
				c.vram = tsz[k.s] << 20;
				apply_choice(choices[k.p], c);
				if (gtt_permille[k.p])
					c.admit_gtt_permille = gtt_permille[k.p];
				c.pinned = pinned_for(vars[k.v], c.vram);
				c.guard_observe = observe[k.p];
				c.per_frame = !m.frame_cpu_us.empty();
				Fig f;
				const uint64_t cpu0 = run_ns.empty() ? 0 : thread_cpu_ns();
				try {
					const KernelResult r = simulate_kernel(
					        kp, subs, c,
					        source[k.p] == ScoreSource::Net      ? &scored[k.s]
					        : source[k.p] == ScoreSource::Oracle ? &oracle
					                                             : nullptr);
					f.moved = r.bytes_to_vram() + r.bytes_from_vram();
					f.moves = r.moves();
					f.gtt_bytes = r.gtt_access_bytes;
					f.evictions = r.evictions();
					f.evict_allocs = r.evict_allocs;
					f.evict_allocs_too_big = r.evict_allocs_too_big;
					f.guard_observed = r.guard_observed;
					f.admit_same_from = r.admit_same_from;
					f.admit_same_to = r.admit_same_to;
					// per_frame[0] is before the first FRAME: frame n ends at FRAME n
					for (size_t n = 0; c.per_frame && n + 1 < r.per_frame.size(); n++)
						f.frames.push_back({r.per_frame[n].bytes, r.per_frame[n].moves,
						                    r.per_frame[n].gtt_access_bytes});
				} catch (const std::exception &e) {
					std::lock_guard g(mu);
					err = e.what();
				}
				const uint64_t ns = run_ns.empty() ? 0 : std::max<uint64_t>(thread_cpu_ns() - cpu0, 1);
				std::lock_guard g(mu);
				if (ns)
					run_ns[at(ti, k.s, k.p, k.v)] = ns;
				figs[at(ti, k.s, k.p, k.v)] = std::move(f);
				done++;
				if (progress)
					std::fprintf(stderr, "\r[%zu/%zu] %s: %zu/%zu runs (%u ms period)\033[K",
					             ti + 1, T, m.name.c_str(), done, total, per);
			};
			parallel_for_each(tasks.size(), threads, run);
			replays += tasks.size();
			if (err.empty()) {
				tasks.clear();
				for (const Task &k : twins)
					if (const Fig &r = figs[at(ti, k.s, rep[k.p], k.v)]; twin_replays(k.p, r))
						tasks.push_back(k);
					else
						figs[at(ti, k.s, k.p, k.v)] = r;
				total -= twins.size() - tasks.size();
				parallel_for_each(tasks.size(), threads, run);
				replays += tasks.size();
			}
			if (err.empty()) {
				tasks.clear();
				for (const Task &k : twins2)
					if (const Fig &r = figs[at(ti, k.s, rep[k.p], k.v)]; !twin_replays(k.p, r))
						figs[at(ti, k.s, k.p, k.v)] = r;
					else if (const Fig &r2 = figs[at(ti, k.s, rep2[k.p], k.v)];
					         !second_replays(k.p, r2))
						figs[at(ti, k.s, k.p, k.v)] = r2;
					else
						tasks.push_back(k);
				total -= twins2.size() - tasks.size();
				parallel_for_each(tasks.size(), threads, run);
				replays += tasks.size();
			}
			if (!err.empty())
				throw TraceError(m.name + ": " + err);
			for (const Copy &k : plans[pi].copies)
				figs[at(ti, k.s, k.p, k.v)] = figs[at(ti, k.s, k.p, k.from_v)];
		}
		for (size_t p = 0; p < P; p++)
			if (run_as[p] != p)
				for (size_t s = 0; s < tsz.size(); s++)
					for (size_t v = 0; v < V; v++)
						figs[at(ti, s, p, v)] = figs[at(ti, s, run_as[p], v)];
	} catch (const std::exception &e) {
		if (ranks == 1)
			throw;
		failed = e.what();
	}
#ifdef VRAMLAB_HAVE_MPI
	if (ranks > 1) {
		// every other process sends its traces' figures (or its error) to rank 0
		const size_t per_trace = S * P * V;
		std::vector<uint64_t> w;
		if (rank) {
			if (!failed.empty()) {
				w.push_back(kFailed);
				put_bytes(w, failed);
			} else {
				w.push_back(replays);
				for (size_t ti = size_t(rank); ti < T; ti += size_t(ranks))
					put_trace(w, ti, meta[ti], &figs[ti * per_trace], per_trace);
			}
			MPI_Send(w.data(), int(w.size()), MPI_UINT64_T, 0, 0, MPI_COMM_WORLD);
			MPI_Finalize();
			return;
		}
		for (int r = 1; r < ranks; r++) {
			MPI_Status st;
			MPI_Probe(r, 0, MPI_COMM_WORLD, &st);
			int n = 0;
			MPI_Get_count(&st, MPI_UINT64_T, &n);
			w.assign(size_t(n), 0);
			MPI_Recv(w.data(), n, MPI_UINT64_T, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			size_t i = 0;
			if (w.at(0) == kFailed) {
				i = 1;
				if (failed.empty())
					failed = get_bytes(w, i);
				continue;
			}
			replays += w.at(i++);
			while (i < w.size())
				get_trace(w, i, meta, figs, per_trace, per_trace);
		}
		MPI_Finalize();
	}
#endif
	if (!failed.empty())
		throw TraceError(failed);
	if (progress)
		std::fprintf(stderr, "\r\033[K");
	const double secs =
	        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

	// The groups: the corpus as recorded, its clean part, the live corpus.
	struct Group {
		const char *name;
		std::vector<size_t> traces;
	};
	std::vector<Group> groups{{"corpus", {}}, {"clean", {}}, {"live", {}}};
	for (size_t t = 0; t < T; t++) {
		if (meta[t].live) {
			groups[2].traces.push_back(t);
			continue;
		}
		groups[0].traces.push_back(t);
		if (!meta[t].impossible)
			groups[1].traces.push_back(t);
	}
	std::erase_if(groups, [](const Group &g) { return g.traces.empty(); });

	nlohmann::json summary = nlohmann::json::array(), verdicts = nlohmann::json::array();
	int pw = 6;
	for (size_t p = 0; p < shown; p++)
		pw = std::max(pw, int(pol_names[p].size()));
	auto tr = [&](size_t t, size_t s, size_t p, size_t v, const CostBand &b) {
		const Fig &f = figs[at(t, s, in_band(p, b), v)];
		return band_transfer_us(f.moved, f.moves, f.gtt_bytes, a.config, b);
	};
	// A live run's frame-time p99 and stutter in a band, computed once: every policy's row
	// pairs with its baseline's, in every group it is in (a sort of the run's frames each time)
	std::vector<std::optional<FrameTimes>> frame_memo(figs.size() * bands.size());
	auto frame_of = [&](size_t t, size_t s, size_t p, size_t v,
	                    const CostBand &b) -> const FrameTimes & {
		std::optional<FrameTimes> &m =
		        frame_memo[at(t, s, p, v) * bands.size() + size_t(&b - bands.data())];
		if (!m)
			m = frame_stats(meta[t], figs[at(t, s, in_band(p, b), v)], a.config, b);
		return *m;
	};
	int bw = 8; // the bands' columns: at least as wide as a cell
	for (auto &b : bands)
		bw = std::max(bw, int(b.column().size()));
	std::string base_list;
	for (size_t b : base_of)
		base_list += (base_list.empty() ? "" : " and ") + pol_names[b] + " (stock " +
		             stock_name(choices[b].stock) + ")";
	std::fprintf(tab, "kernel model, %zu traces, ensemble of %zu (paired with %s on each "
	                  "variation), %zu cost band%s; change vs the baseline, positive = worse\n",
	             T, V, base_list.c_str(), bands.size(), bands.size() == 1 ? "" : "s");
	if (!a.costs.builtin())
		std::fprintf(tab, "%s (the bands scale its GTT charge)\n",
		             a.costs.describe().c_str());
	for (auto &g : groups)
	for (size_t base : base_of) {
		const std::string base_kernel = stock_name(choices[base].stock);
		std::fprintf(tab, "\n%s (%zu traces%s) vs stock %s (%s)\n", g.name, g.traces.size(),
		             std::string(g.name) == "clean" ? ", no impossible creates" : "",
		             base_kernel.c_str(), pol_names[base].c_str());
		std::fprintf(tab, "%6s  %-*s %8s %8s", "VRAM", pw, "policy", "moved", "GTT B");
		// one band: median [quartiles] and the worst trace; several: the median per band
		const bool wide = bands.size() == 1;
		for (auto &b : bands)
			std::fprintf(tab, wide ? " | %-*s" : " %*s", wide ? 27 : bw,
			             wide ? ("transfer " + b.label()).c_str() : b.column().c_str());
		const bool frames = std::any_of(g.traces.begin(), g.traces.end(), [&](size_t t) {
			return !meta[t].frame_cpu_us.empty();
		});
		if (!wide)
			std::fprintf(tab, "  %-34s", "worst trace (median)");
		if (frames)
			std::fprintf(tab, " %8s %8s", "p99", "stutter+");
		std::fprintf(tab, "  %s\n", a.decide ? "verdict" : "");
		const std::vector<uint64_t> &gsz = sizes_of(std::string(g.name) == "live");
		for (size_t s = 0; s < gsz.size(); s++)
			for (size_t p = 0; p < shown; p++) {
				// every other policy, the other baselines too (6.14 vs 6.12: the regression)
				if (p == base)
					continue;
				std::vector<double> moved_r, gtt_r;
				for (size_t v = 0; v < V; v++) {
					double mp = 0, mb = 0, gp = 0, gb = 0;
					for (size_t t : g.traces) {
						mp += double(figs[at(t, s, p, v)].moved);
						mb += double(figs[at(t, s, base, v)].moved);
						gp += double(figs[at(t, s, p, v)].gtt_bytes);
						gb += double(figs[at(t, s, base, v)].gtt_bytes);
					}
					moved_r.push_back(ratio(mp, mb));
					gtt_r.push_back(ratio(gp, gb));
				}
				const Spread ms = spread(moved_r), gs = spread(gtt_r);
				std::fprintf(tab, "%5lluM  %-*s %+7.2f%% %+7.2f%%",
				             (unsigned long long)gsz[s], pw, pol_names[p].c_str(),
				             (ms.median - 1) * 100, (gs.median - 1) * 100);
				bool win_all = true, loss_all = true, neutral_all = true;
				// the same per card class (CostBand::card_class()), over that class's bands
				bool c_win[3] = {true, true, true}, c_loss[3] = {true, true, true},
				     c_neutral[3] = {true, true, true}, c_seen[3] = {};
				// and per move latency band (decide --move-latency-us with several)
				std::vector<char> l_win(latencies.size(), 1), l_loss(latencies.size(), 1),
				        l_neutral(latencies.size(), 1);
				double worst_band = -1e9, worst_trace_all = 0, p99_first = NAN;
				int stutter_first = 0, programs = 0; // programs with more stutter, first band
				std::string worst_trace_name;
				for (auto &b : bands) {
					std::vector<double> tot_r;
					for (size_t v = 0; v < V; v++) {
						double xp = 0, xb = 0;
						for (size_t t : g.traces) {
							xp += tr(t, s, p, v, b);
							xb += tr(t, s, base, v, b);
						}
						tot_r.push_back(ratio(xp, xb));
					}
					const Spread ts = spread(tot_r);
					nlohmann::json per_trace = nlohmann::json::array();
					double worst_trace = 0;
					std::string wname;
					unsigned worse5 = 0;
					std::vector<double> p99_r; // per variation: geometric mean over traces
					std::vector<std::vector<double>> p99_by_v(V);
					// live programs: the median over the boards of their stutter frames, the
					// policy's and the baseline's (the "no worse on any program")
					nlohmann::json stutter = nlohmann::json::array();
					int stutter_worse = 0, stutter_worse_own = 0;
					for (size_t t : g.traces) {
						std::vector<double> r, st_p, st_o, st_b;
						for (size_t v = 0; v < V; v++) {
							r.push_back(ratio(tr(t, s, p, v, b), tr(t, s, base, v, b)));
							if (!meta[t].frame_cpu_us.empty()) {
								const FrameTimes &fp = frame_of(t, s, p, v, b),
								                 &fb = frame_of(t, s, base, v, b);
								p99_by_v[v].push_back(ratio(fp.p99_us, fb.p99_us));
								// against stock's yardstick (stutter_against())
								st_p.push_back(double(stutter_against(
								        frame_list(meta[t], figs[at(t, s, in_band(p, b), v)],
								                   a.config, b),
								        fb.p50_us)));
								st_o.push_back(double(fp.stutter));
								st_b.push_back(double(fb.stutter));
							}
						}
						if (!st_p.empty()) {
							const double mp = spread(st_p).median, mb = spread(st_b).median,
							             mo = spread(st_o).median;
							stutter_worse += mp > mb;
							stutter_worse_own += mo > mb;
							stutter.push_back({{"trace", meta[t].name},
							                   {"median", mp},
							                   {"baseline_median", mb},
							                   {"own_median", mo}});
						}
						const Spread sp = spread(r);
						if (sp.median > worst_trace || wname.empty()) {
							worst_trace = sp.median;
							wname = meta[t].name;
						}
						worse5 += sp.median > 1.05;
						nlohmann::json pt = pct_json(sp);
						pt["trace"] = meta[t].name;
						per_trace.push_back(std::move(pt));
					}
					for (auto &v : p99_by_v)
						if (!v.empty()) {
							double lg = 0;
							for (double x : v)
								lg += std::log(x);
							p99_r.push_back(std::exp(lg / double(v.size())));
						}
					const bool win = ts.median < 1 - 1e-9 && worse5 == 0,
					           loss = ts.median > 1 + 1e-9,
					           neutral = std::abs(ts.median - 1) < 1e-3 && worse5 == 0;
					win_all &= win;
					loss_all &= loss;
					neutral_all &= neutral;
					const int cc = b.card_class();
					c_seen[cc] = true;
					c_win[cc] &= win;
					c_loss[cc] &= loss;
					c_neutral[cc] &= neutral;
					const size_t li = band_latency[size_t(&b - bands.data())];
					l_win[li] &= win;
					l_loss[li] &= loss;
					l_neutral[li] &= neutral;
					if (ts.median > worst_band)
						worst_band = ts.median;
					if (worst_trace > worst_trace_all || worst_trace_name.empty()) {
						worst_trace_all = worst_trace;
						worst_trace_name = wname;
					}
					char cell[64];
					if (wide) {
						std::snprintf(cell, sizeof cell, "%+6.2f%% [%+.1f,%+.1f] w%+.0f%%",
						              (ts.median - 1) * 100, (ts.q1 - 1) * 100,
						              (ts.q3 - 1) * 100, (worst_trace - 1) * 100);
						std::fprintf(tab, " | %-27s", cell);
					} else {
						std::snprintf(cell, sizeof cell, "%+.2f%%", (ts.median - 1) * 100);
						std::fprintf(tab, " %*s", bw, cell);
					}
					if (&b == &bands[0] && !p99_r.empty()) {
						p99_first = spread(p99_r).median;
						stutter_first = stutter_worse;
						programs = int(stutter.size());
					}
					nlohmann::json row{{"group", g.name},
					                   {"vram_mib", gsz[s]},
					                   {"policy", pol_names[p]},
					                   {"kernel", stock_name(choices[p].stock)},
					                   {"baseline", pol_names[base]},
					                   {"baseline_kernel", base_kernel},
					                   {"band", band_json(b)},
					                   {"transfer_change_pct", pct_json(ts)},
					                   {"moved_change_pct", pct_json(ms)},
					                   {"gtt_bytes_change_pct", pct_json(gs)},
					                   {"worst_trace", wname},
					                   {"worst_trace_median_change_pct",
					                    std::round((worst_trace - 1) * 1e6) / 1e4},
					                   {"traces_worse_than_5pct", worse5},
					                   {"per_trace", std::move(per_trace)}};
					if (!p99_r.empty()) {
						row["frame_p99_change_pct"] = pct_json(spread(p99_r));
						row["stutter_frames"] = {{"programs_worse", stutter_worse},
						                         {"programs_worse_own", stutter_worse_own},
						                         {"per_trace", std::move(stutter)}};
					}
					summary.push_back(std::move(row));
				}
				// within 0.1% of stock in every band is no win, however consistent
				auto verdict_of = [](bool neutral, bool win, bool loss) {
					return neutral ? "neutral" : win ? "robust win" : loss ? "loss" : "mixed";
				};
				const char *verdict = verdict_of(neutral_all, win_all, loss_all);
				nlohmann::json by_class = nlohmann::json::object();
				std::string class_text;
				for (int cc = 0; cc < 3; cc++)
					if (c_seen[cc]) {
						const char *cv = verdict_of(c_neutral[cc], c_win[cc], c_loss[cc]);
						by_class[CostBand::kClassNames[cc]] = cv;
						class_text += std::string(class_text.empty() ? " (" : ", ") +
						              CostBand::kClassNames[cc] + ": " + cv;
					}
				if (by_class.size() > 1)
					class_text += ")";
				else
					class_text.clear();
				nlohmann::json by_latency = nlohmann::json::object();
				if (latencies.size() > 1) {
					for (size_t li = 0; li < latencies.size(); li++) {
						char k[32];
						std::snprintf(k, sizeof k, "%g", latencies[li]);
						const char *lv = verdict_of(l_neutral[li], l_win[li], l_loss[li]);
						by_latency[k] = lv;
						class_text += std::string(li ? ", " : " (") + "move " + k + " us: " + lv;
					}
					class_text += ")";
				}
				if (!wide) {
					char w[64];
					std::snprintf(w, sizeof w, "%s %+.1f%%", worst_trace_name.c_str(),
					              (worst_trace_all - 1) * 100);
					std::fprintf(tab, "  %-34s", w);
				}
				if (frames) {
					char st[32];
					std::snprintf(st, sizeof st, "%d/%d", stutter_first, programs);
					std::fprintf(tab, " %+7.2f%% %8s", (p99_first - 1) * 100, st);
				}
				std::fprintf(tab, "  %s%s\n", a.decide ? verdict : "",
				             a.decide ? class_text.c_str() : "");
				verdicts.push_back({{"group", g.name},
				                    {"by_class", by_class},
				                    {"vram_mib", gsz[s]},
				                    {"policy", pol_names[p]},
				                    {"kernel", stock_name(choices[p].stock)},
				                    {"baseline", pol_names[base]},
				                    {"baseline_kernel", base_kernel},
				                    {"verdict", verdict},
				                    {"worst_band_median_change_pct",
				                     std::round((worst_band - 1) * 1e6) / 1e4},
				                    {"worst_trace", worst_trace_name},
				                    {"worst_trace_median_change_pct",
				                     std::round((worst_trace_all - 1) * 1e6) / 1e4}});
				if (!by_latency.empty())
					verdicts.back()["by_move_latency"] = std::move(by_latency);
			}
	}
	std::fprintf(tab, "\nmoved, GTT B: ensemble median of the change of bytes moved and of bytes "
	                  "the GPU read from GTT (a policy that reads the card's GTT cost: at the first GTT "
	                  "charge); transfer: of total transfer time per cost band "
	                  "(GTT charge x, PCIe GB/s%s)%s; p99: of frame-time p99, first band (live); "
	                  "stutter+: programs whose median count of frames over twice the baseline "
	                  "run's median frame exceeds the baseline's, of the live programs, first "
	                  "band; "
	                  "a robust win is better in the median of every band with no trace's median "
	                  "worse by more than 5%%, neutral within 0.1%% of stock in every band; with "
	                  "bands of several card classes each class's verdict follows (low-end: GTT "
	                  "charge below x0.5, mid: x0.5 to x2, high: x2 and above)%s\n",
	             latencies.size() > 1 ? ", us a move" : "",
	             bands.size() == 1 ? " [quartiles], w = the worst trace's median" : "",
	             latencies.size() > 1 ? ", and each move latency's" : "");
	if (!a.decide) // the ensemble per trace: sim --ensemble's table
		for (const auto &r : summary) {
			if (r["group"] != "corpus" && r["group"] != "live")
				continue;
			for (const auto &t : r["per_trace"])
				std::fprintf(tab, "  %-20s %5lluM %-*s %+8.2f%% [%+.2f, %+.2f] worst %+.2f%%\n",
				             t["trace"].get<std::string>().c_str(),
				             (unsigned long long)r["vram_mib"].get<uint64_t>(), pw,
				             r["policy"].get<std::string>().c_str(), t["median"].get<double>(),
				             t["q1"].get<double>(), t["q3"].get<double>(),
				             t["worst"].get<double>());
		}
	nlohmann::json boot;
	if (a.decide) {
		std::vector<std::string> bases;
		for (size_t i : base_of)
			bases.push_back(pol_names[i]);
		boot = print_boot(tab, verdicts, bases, model_only_options(a.config));
	}
	std::fflush(tab);
	size_t tl = 0;
	for (const auto &m : meta)
		tl += m.live;
	const size_t cells = ((T - tl) * a.vram_mib.size() + tl * live_sizes.size()) * P * V;
	std::fprintf(stderr, "%llu replays of %zu runs ((%zu traces x %zu sizes + %zu live x %zu) x "
	                     "%zu policies x %zu variations; the others are the same run: a key "
	                     "policy on a trace that sends no scores is its placement's, 6.14+fix on "
	                     "one without duplicate relocations 6.12's, an eviction rule where stock "
	                     "eviction on the same kernel and placement never reached what the rule "
	                     "changes (the fit rule: a BO larger than VRAM) that run, the "
	                     "thrash guard's where it would never have kept a BO the unguarded "
	                     "rule's, predicted admission's at another GTT charge where every cost "
	                     "test its first charge asked gives the same answer that one's, "
	                     "a board that pins what another pins at that size that board's) in %.1f s on %u thread%s%s\n",
	             (unsigned long long)replays, cells, T - tl, a.vram_mib.size(), tl,
	             live_sizes.size(), P, V, secs, threads, threads == 1 ? "" : "s",
	             ranks > 1 ? (" x " + std::to_string(ranks) + " MPI processes").c_str() : "");
	if (!a.run_times.empty()) {
		std::string csv = "trace,vram_mib,policy,variation,cpu_seconds\n";
		for (size_t t = 0; t < T; t++)
			for (size_t s = 0; s < sizes_of(meta[t].live).size(); s++)
				for (size_t p = 0; p < P; p++)
					for (size_t v = 0; v < V; v++)
						if (const uint64_t ns = run_ns[at(t, s, p, v)])
							csv += csv_field(meta[t].name) + "," +
							       std::to_string(sizes_of(meta[t].live)[s]) + "," +
							       csv_field(pol_names[p]) + "," + std::to_string(v) + "," +
							       std::to_string(double(ns) / 1e9) + "\n";
		write_output(a.run_times, csv);
	}
	if (a.json.empty())
		return;
	nlohmann::json j;
	j["schema"] = "vramlab-decide";
	// 2: a row is paired with its "baseline" (6.12 or 6.14 stock), each policy and run names its
	// "kernel"; in version 1 every row was against stock 6.12
	j["version"] = 2;
	nlohmann::json vj = nlohmann::json::array(), bj = nlohmann::json::array();
	for (size_t v = 0; v < V; v++)
		vj.push_back({{"name", vars[v].name},
		              {"pinned_bytes", vars[v].pinned},
		              {"period_ms", vars[v].period_ms}});
	for (auto &b : bands) {
		nlohmann::json one = band_json(b);
		one["card_class"] = CostBand::kClassNames[b.card_class()];
		bj.push_back(std::move(one));
	}
	j["config"] = {{"model", "kernel"},
	               {"mode", a.decide ? "decide" : "ensemble"},
	               {"policies", std::vector<std::string>(pol_names.begin(),
	                                                     pol_names.begin() + long(shown))},
	               {"baselines", [&] {
		                nlohmann::json b = nlohmann::json::array();
		                for (size_t i : base_of)
			                b.push_back({{"policy", pol_names[i]},
			                             {"kernel", stock_name(choices[i].stock)}});
		                return b;
	                }()},
	               {"weights", a.weights},
	               {"vram_mib", a.vram_mib},
	               {"live_vram_mib", live_sizes},
	               {"ensemble", V},
	               {"variations", vj},
	               {"bands", bj},
	               {"topdown_threshold_kib", a.config.topdown_kib},
	               {"bo_score_window", a.config.window},
	               {"vram_gbps", a.config.vram_gbps},
	               {"move_latency_us", a.config.move_latency_us},
	               {"gtt_reads_per_use", a.config.gtt_reads_per_use},
	               {"costs", a.costs.json()},
	               {"on_destroyed", a.on_destroyed == OnDestroyed::Repair ? "repair" : "skip"},
	               {"impossible_above_bytes", kImpossibleAbove}};
	auto &tj = j["traces"] = nlohmann::json::array();
	for (auto &m : meta)
		tj.push_back({{"trace", m.name},
		              {"group", m.live ? "live" : "corpus"},
		              {"clean", m.impossible == 0},
		              {"impossible_creates", m.impossible},
		              {"synthesized_cs", m.synthesized},
		              {"scores", m.scores},
		              {"frames", m.frame_cpu_us.size()}});
	auto &rj = j["runs"] = nlohmann::json::array();
	for (size_t t = 0; t < T; t++)
		for (size_t s = 0; s < sizes_of(meta[t].live).size(); s++)
			for (size_t p = 0; p < P; p++)
				for (size_t v = 0; v < V; v++) {
					const Fig &f = figs[at(t, s, p, v)];
					rj.push_back({{"trace", meta[t].name},
					              {"vram_mib", sizes_of(meta[t].live)[s]},
					              {"policy", pol_names[p]},
					              {"kernel", stock_name(choices[p].stock)},
					              {"variation", v},
					              {"moved_bytes", f.moved},
					              {"moves", f.moves},
					              {"gtt_bytes", f.gtt_bytes},
					              {"evictions", f.evictions}});
				}
	j["summary"] = std::move(summary);
	j["verdicts"] = std::move(verdicts);
	if (a.decide)
		j["boot"] = std::move(boot);
	j["seconds"] = secs;
	j["replays"] = replays;
	write_json(a.json, j);
}

} // namespace vramlab
