// vramlab sim: replay traces through simulated VRAM, print the thesis's Figure 20 table and more.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <malloc.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/decide.h"
#include "cli/sim_kernel.h"
#include "kmodel/drm_mm.h"
#include "kmodel/kernel_json.h"
#include "mlp/score_contract.h"
#include "sim/policy_name.h"
#include "sim/run.h"

namespace vramlab {

// What the commands' lists and trace arguments may hold (commands.h): every item once and
// none empty, as a repeat or a slip of the keyboard would change a total, not the command.
std::vector<std::string> split_list(const std::string &s, const char *option, bool may_be_empty)
{
	std::vector<std::string> out;
	if (s.empty()) {
		if (!may_be_empty)
			throw CLI::ValidationError(option, "is empty");
		return out;
	}
	// every item, also an empty one ("64,,128", "64,"): a slip is refused, not skipped
	for (size_t from = 0;;) {
		const size_t comma = s.find(',', from);
		const std::string item = s.substr(from, comma == std::string::npos ? comma : comma - from);
		if (item.empty())
			throw CLI::ValidationError(option, "\"" + s + "\" has an empty item");
		for (const std::string &o : out)
			if (o == item)
				throw CLI::ValidationError(option, "\"" + item + "\" is given twice");
		out.push_back(item);
		if (comma == std::string::npos)
			return out;
		from = comma + 1;
	}
}

std::vector<uint64_t> vram_list(const std::string &s, const char *option)
{
	std::vector<uint64_t> out;
	for (const std::string &v : split_list(s, option)) {
		const uint64_t mib = parse_vram_mib(v, option);
		if (std::find(out.begin(), out.end(), mib) != out.end())
			throw CLI::ValidationError(option, std::to_string(mib) + " MiB is given twice");
		out.push_back(mib);
	}
	return out;
}

// The kernel model's sizes: its drm_mm keeps flat per-page tables (kmodel/drm_mm.h)
std::vector<uint64_t> kernel_vram_list(const std::string &s, const char *option)
{
	constexpr uint64_t max_mib = DrmMm::kMaxPages * 4096 >> 20; // 4 KiB pages
	std::vector<uint64_t> out = vram_list(s, option);
	for (uint64_t mib : out)
		if (mib > max_mib)
			throw CLI::ValidationError(option, std::to_string(mib) +
			                                       " MiB: the kernel model's VRAM is at most " +
			                                       std::to_string(max_mib) +
			                                       " MiB (radeon's largest boards have 6 GiB)");
	return out;
}

std::vector<std::vector<std::string>> trace_files(const TraceLists &lists)
{
	struct Seen {
		dev_t dev;
		ino_t ino;
		std::string said; // as the command line spelled it
		const char *option;
	};
	std::vector<Seen> dirs, files;
	// The same file by any path: one device and inode (stat follows links). A path that is not
	// there is left to its reader, which names it.
	auto once = [](std::vector<Seen> &seen, const std::string &path, const std::string &said,
	               const char *option, const char *what) {
		struct stat st;
		if (path == "-" || stat(path.c_str(), &st) != 0)
			return;
		const bool dir = std::string_view(what) == "directory";
		for (const Seen &s : seen)
			if (s.dev == st.st_dev && s.ino == st.st_ino)
				throw CLI::ValidationError(
				        option, (std::string_view(s.option) == option ? "" : s.option + std::string(" ")) +
				                        s.said + " and " + said + " are one " + what +
				                        ", given twice (every total would count " +
				                        (dir ? "its traces" : "it") + " twice)");
		seen.push_back({st.st_dev, st.st_ino, said, option});
	};
	std::vector<std::vector<std::string>> out;
	for (const auto &[option, args] : lists) {
		out.emplace_back();
		for (const std::string &a : args) {
			std::error_code ec;
			const bool dir = std::filesystem::is_directory(a, ec);
			if (dir)
				once(dirs, a, "\"" + a + "\"", option, "directory");
			for (const std::string &f : expand_traces({a})) {
				once(files, f, "\"" + f + "\"" + (dir ? " (in \"" + a + "\")" : ""), option,
				     "file");
				out.back().push_back(f);
			}
		}
	}
	return out;
}

std::vector<std::string> trace_files(const std::vector<std::string> &args, const char *option)
{
	return trace_files(TraceLists{{option, args}}).front();
}

void refuse_nothing_left(const std::vector<TraceLoad> &loads)
{
	if (std::all_of(loads.begin(), loads.end(), [](const TraceLoad &l) { return l.excluded; }))
		throw TraceError("--on-impossible exclude: every trace (" + std::to_string(loads.size()) +
		                 ") has impossible creates: nothing is left to replay");
}


namespace {

// The parameters of the policies with window eviction and the move budget (the module
// parameters of the series' patches), for sim --model kernel and decide.
void add_mechanism_options(CLI::App *c, KernelConfig &k)
{
	c->add_option("--scan-max", k.scan_max, "window eviction: LRU entries a scan visits at most, "
	                                        "obstacles included (radeon.evict_window; since "
	                                        "v4 not candidates only: docs/window-eviction.md)")
	    ->check(CLI::Range(1u, 65536u))
	    ->capture_default_str();
	c->add_option("--cold-ms", k.cold_ms, "window eviction: scanned candidates idle this long "
	                                      "are evicted beside the window (default: never)")
	    ->check(CLI::Range(0u, 3600000u));
	c->add_option("--idle-ms", k.idle_ms, "window-idle: candidates idle this long are scanned "
	                                      "first (default: " +
	                                      std::to_string(KernelConfig::kDefaultIdleMs) + ")")
	    ->check(CLI::Range(0u, 3600000u));
	c->add_option("--guard-ms", k.guard_params.within_ms, "thrash guard: a return this soon "
	                                                     "after an eviction is one event")
	    ->check(CLI::Range(1u, 60000u))
	    ->capture_default_str();
	c->add_option("--guard-count", k.guard_params.count, "thrash guard: events in a row that "
	                                                    "keep a BO resident")
	    ->check(CLI::Range(1u, 255u))
	    ->capture_default_str();
	c->add_option("--guard-hold-ms", k.guard_params.hold_ms, "thrash guard: how long it stays")
	    ->check(CLI::Range(1u, 600000u))
	    ->capture_default_str();
	c->add_option("--guard-cap-pct", k.guard_params.cap_pct, "thrash guard: kept bytes at most "
	                                                        "this % of VRAM")
	    ->check(CLI::Range(1u, 90u))
	    ->capture_default_str();
	c->add_option("--budget-mbps", k.budget_mbps, "move budget: MB/s of submission time")
	    ->check(CLI::Range(1u, 1000000u))
	    ->capture_default_str();
	c->add_option("--budget-cap-ms", k.budget_cap_ms, "move budget: at most this much time")
	    ->check(CLI::Range(1u, 10000u))
	    ->capture_default_str();
	// The constants chosen on the corpus, for the folds by game (harness/python/folds.py)
	c->add_option("--predict-size-exp", k.predict_size_exp2,
	              "window-predict: the size's exponent in the victims' order, in halves (0, 1 "
	              "= the square root, the kernel's, 2)")
	    ->check(CLI::Range(0u, 2u));
	c->add_flag("--nofit-walk", k.predict_nofit_walk,
	            "window-predict: a scan that finds no window after meeting the submission's own "
	            "BOs falls back to the walk (not in the kernel; docs/window-predict.md)")
	    ->multi_option_policy(CLI::MultiOptionPolicy::Throw)
	    ->disable_flag_override();
	c->add_flag("--predict-repack", k.predict_repack,
	            "window-predict: a scan that finds no window because of the submission's own BOs "
	            "scans again with them as candidates, where the list's BOs that want VRAM fit in "
	            "it beside the pinned ones (radeon.evict_repack; docs/window-predict.md)")
	    ->multi_option_policy(CLI::MultiOptionPolicy::Throw)
	    ->disable_flag_override();
	c->add_option("--predict-escalate", k.predict_escalate,
	              "window-predict: a scan that visits --scan-max entries without a window goes "
	              "on to this many before the walk (default 4096, radeon's; 0: the walk at "
	              "once)")
	    ->check(CLI::Range(0u, 65536u));
	c->add_option("--predict-move-pages", k.predict_move_pages,
	              "window-predict: pages added to each BO's size in the victims' order, for a "
	              "move's fixed cost (0: none)")
	    ->check(CLI::Range(0u, 65536u));
	c->add_option("--predict-unused", k.predict_unused,
	              "window-predict: a BO no submission has named in this many submissions since "
	              "its creation goes first, in LRU order (radeon.evict_unused; 0: off; "
	              "docs/window-predict.md)")
	    ->check(CLI::Range(0u, 1u << 20));
	c->add_option("--predict-gap-ratio", k.predict_gap_ratio,
	              "window-predict: an interval over this many times a BO's brief mean is a gap "
	              "(4 = the kernel's)")
	    ->check(CLI::Range(2u, 8u));
	c->add_option("--predict-gap-trust", k.predict_gap_trust,
	              "window-predict: the counter's value from which the gap prediction is followed "
	              "(1 = the kernel's; 0: always, 4: never)")
	    ->check(CLI::Range(0u, 4u));
	c->add_option("--predict-trusted", k.predict_trusted,
	              "window-predict: a BO's uses before its mean interval is its period (3 = the "
	              "kernel's)")
	    ->check(CLI::Range(2u, 8u));
	c->add_option("--predict-regime", k.predict_regime,
	              "window-predict: a last interval this many times shorter than a BO's mean is "
	              "its period, a change of regime (64 = the kernel's; a power of two, 4-1024)")
	    ->check(CLI::IsMember({4u, 8u, 16u, 32u, 64u, 128u, 256u, 512u, 1024u}));
	c->add_option_function<std::string>(
	       "--predict-overdue",
	       [&k](const std::string &v) { k.predict_overdue_gap = v == "gap"; },
	       "window-predict: an overdue BO idle for longer than its bursts' intervals is "
	       "predicted one gap after its last use (gap, the kernel's) or as far ahead as it has "
	       "been idle (idle)")
	    ->check(CLI::IsMember({"gap", "idle"}))
	    ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
	c->add_option("--admit-reads", k.admit_reads,
	              "window-predict+admit: GPU reads from GTT its cost test counts (1, 2 = the "
	              "kernel's)")
	    ->check(CLI::Range(1u, 2u));
	c->add_option("--admit-permille", k.admit_gtt_permille,
	              "predicted admission: a GPU read from GTT against a move of the same bytes, "
	              "per mille (radeon.evict_admit; default: the cost's GTT charge)")
	    ->check(CLI::Range(1u, 100000u));
}

// --threshold: a size, its errors naming the option (parse_size() says "size")
uint64_t threshold_bytes(const std::string &s)
{
	try {
		return parse_size_text(s);
	} catch (const std::invalid_argument &e) {
		throw CLI::ValidationError("--threshold", e.what());
	}
}

// sim --model kernel's policies when --policies is not given
constexpr const char *kDefaultKernelPolicies = "lru,minmax,key,minmax+key";

// An option no policy of the run reads changes nothing: refuse it rather than let a table look
// as if it had been applied (sim --model kernel, decide: each passes its parsed policies).
void refuse_unused_options(const CLI::App *c, const std::vector<KernelChoice> &choices)
{
	bool scan = false, budget = false, key = false, minmax = false, idle = false, guard = false,
	     admit = false, predict = false;
	for (const KernelChoice &k : choices) {
		scan |= k.policy->scan;
		predict |= k.policy->predict;
		admit |= k.policy->reads_gtt_cost();
		idle |= k.policy->idle;
		guard |= k.policy->guard;
		budget |= k.policy->budget;
		key |= k.policy->scored();
		minmax |= k.policy->topdown;
	}
	if (c->get_option_no_throw("--weights") && c->count("--weights") && c->get_name() == "decide")
		key = minmax = true; // decide --weights adds minmax+key rows with that network
	for (auto [opt, used, what] : {std::tuple{"--scan-max", scan, "window eviction"},
	                               std::tuple{"--cold-ms", scan, "window eviction"},
	                               std::tuple{"--idle-ms", idle, "window-idle"},
	                               std::tuple{"--guard-ms", guard, "the thrash guard"},
	                               std::tuple{"--guard-count", guard, "the thrash guard"},
	                               std::tuple{"--guard-hold-ms", guard, "the thrash guard"},
	                               std::tuple{"--guard-cap-pct", guard, "the thrash guard"},
	                               std::tuple{"--budget-mbps", budget, "the move budget"},
	                               std::tuple{"--budget-cap-ms", budget, "the move budget"},
	                               std::tuple{"--admit-permille", admit, "predicted admission"},
	                               std::tuple{"--admit-reads", admit, "predicted admission"},
	                               std::tuple{"--predict-size-exp", predict, "the predicted window"},
	                               std::tuple{"--nofit-walk", predict, "the predicted window"},
	                               std::tuple{"--predict-repack", predict, "the predicted window"},
	                               std::tuple{"--predict-escalate", predict, "the predicted window"},
	                               std::tuple{"--predict-move-pages", predict, "the predicted window"},
	                               std::tuple{"--predict-unused", predict, "the predicted window"},
	                               std::tuple{"--predict-gap-ratio", predict, "the predicted window"},
	                               std::tuple{"--predict-trusted", predict, "the predicted window"},
	                               std::tuple{"--predict-regime", predict, "the predicted window"},
	                               std::tuple{"--predict-gap-trust", predict, "the predicted window"},
	                               std::tuple{"--predict-overdue", predict, "the predicted window"},
	                               std::tuple{"--window", key, "key or priority order"},
	                               std::tuple{"--threshold", minmax, "min-max placement"}})
		if (c->count(opt) && !used)
			throw CLI::ValidationError(opt, std::string("changes nothing: no policy of this "
			                                            "run uses ") +
			                                    what);
	if (c->count("--predict-escalate")) {
		const auto escalate = c->get_option("--predict-escalate")->as<uint32_t>();
		const uint32_t bound = c->count("--scan-max") ? c->get_option("--scan-max")->as<uint32_t>()
		                                              : KernelConfig{}.scan_max;
		if (escalate && escalate <= bound)
			throw CLI::ValidationError("--predict-escalate",
			                           "must be above --scan-max (" + std::to_string(bound) +
			                                   "), or 0");
	}
}

void copy_mechanism_options(const KernelConfig &from, KernelConfig &to)
{
	to.scan_max = from.scan_max;
	to.cold_ms = from.cold_ms;
	to.idle_ms = from.idle_ms;
	to.guard_params = from.guard_params;
	to.budget_mbps = from.budget_mbps;
	to.budget_cap_ms = from.budget_cap_ms;
	to.admit_gtt_permille = from.admit_gtt_permille;
	to.predict_size_exp2 = from.predict_size_exp2;
	to.admit_reads = from.admit_reads;
	to.predict_gap_ratio = from.predict_gap_ratio;
	to.predict_gap_trust = from.predict_gap_trust;
	to.predict_overdue_gap = from.predict_overdue_gap;
	to.predict_trusted = from.predict_trusted;
	to.predict_regime = from.predict_regime;
	to.predict_nofit_walk = from.predict_nofit_walk;
	to.predict_repack = from.predict_repack;
	to.predict_escalate = from.predict_escalate;
	to.predict_move_pages = from.predict_move_pages;
	to.predict_unused = from.predict_unused;
}


struct SimArgs {
	std::vector<std::string> inputs;
	std::string policies = "lru,minmax,score";
	std::string vram = "64,128,256,384,512,1024,1536,2048,4096";
	std::string threshold = "512K";
	std::string weights;
	std::string on_destroyed = "skip";
	std::string on_impossible = "keep";
	unsigned threads = 0;
	std::string json;
	bool quiet = false;
	std::string model = "thesis";
	std::string kernel = "6.12"; // the kernel of policies named without one
	std::string too_big;         // kernel model: override the policies' rule for a BO > VRAM
	std::string baselines;       // --ensemble: more baselines (decide's --baselines)
	uint32_t window = 256;
	KernelConfig mech; // the new mechanisms' parameters (add_mechanism_options())
	uint32_t timeline = 0;
	double pcie_gbps = kDefaultPcieGbps, vram_gbps = kDefaultVramGbps,
	       move_latency_us = kDefaultMoveLatencyUs;
	std::string cost;                           // --cost: a cost file (harness/docs/cost-file.md)
	std::vector<const CLI::Option *> cost_opts; // --pcie-gbps, --vram-gbps, --move-latency-us
	bool policies_given = false;
	bool vram_given = false;
	unsigned ensemble = 0;   // kernel model: variations per run (ensemble.h)
	bool ensemble_given = false;
	std::string gtt_cost = "1"; // kernel model with --ensemble: GTT charge factors
};

struct Total {
	uint64_t cost = 0, evictions = 0, evicted_bytes = 0, eviction_events = 0, entries = 0,
	         frag_sum = 0, frag_samples = 0, declined = 0;
	uint32_t frag_peak = 0;
	unsigned cut = 0;
	void add(const SimResult &r)
	{
		cost += r.cost;
		evictions += r.evictions;
		evicted_bytes += r.evicted_bytes;
		eviction_events += r.eviction_events;
		entries += r.entries;
		frag_sum += r.frag_sum;
		frag_samples += r.frag_samples;
		frag_peak = std::max(frag_peak, r.frag_peak);
		declined += r.declined;
		cut += r.cut;
	}
	void merge(const Total &t)
	{
		cost += t.cost;
		evictions += t.evictions;
	}
};

double pct_better(uint64_t base, uint64_t x)
{
	return base ? (double(base) - double(x)) / double(base) * 100.0 : 0.0;
}

ReplayOptions replay_options(const SimArgs &a)
{
	return {a.on_destroyed == "repair" ? OnDestroyed::Repair : OnDestroyed::Skip,
	        parse_on_impossible(a.on_impossible)};
}

// Without --vram: the sizes the traces were recorded at when every one says (a live trace's
// vram_bytes: where its program was under pressure), else the thesis's nine sizes. A live
// trace at 64 MiB and up evicts nothing: a table of zeros is no answer.
std::string default_vram(const SimArgs &a)
{
	if (a.vram_given) // also with --ensemble: a live trace's size is its size on every board
		return a.vram;
	std::vector<uint64_t> mib;
	for (const std::string &t : expand_traces(a.inputs)) {
		const auto reader = open_trace(t); // alive while its header is read
		if (!reader->info().meta.count("vram_bytes"))
			return a.vram;
		// read as trace scores reads it: a bad one is an error, not the nine sizes
		const uint64_t b = trace_vram_bytes(reader->info(), t, 0);
		if (std::find(mib.begin(), mib.end(), b >> 20) == mib.end())
			mib.push_back(b >> 20);
	}
	if (mib.empty())
		return a.vram;
	std::sort(mib.begin(), mib.end());
	std::string s;
	for (uint64_t m : mib)
		s += (s.empty() ? "" : ",") + std::to_string(m);
	std::fprintf(stderr, "vramlab: no --vram: the sizes the traces were recorded at, %s MiB\n",
	             s.c_str());
	return s;
}

void run_kernel(const SimArgs &a)
{
	KernelSimArgs k;
	k.inputs = trace_files(a.inputs); // each once, before the sizes are read from them
	k.policies = split_list(a.policies_given ? a.policies : kDefaultKernelPolicies,
	                        "--policies");
	if (k.policies.empty())
		throw CLI::ValidationError("--policies", "is empty");
	const std::vector<std::string> given = k.policies; // as spelled, for the messages
	// --kernel: the kernel of every policy named without one ("6.14:" + "lru")
	try {
		const Stock stock = parse_stock(a.kernel);
		if (stock != Stock::V6_12)
			for (auto &p : k.policies)
				if (!has_kernel_prefix(p))
					p = a.kernel + ":" + p;
	} catch (const std::invalid_argument &e) {
		throw CLI::ValidationError("--kernel", e.what());
	}
	for (auto &p : k.policies) {
		try {
			kernel_choice(p, 0); // the name and any @SIZE; the default is set below
		} catch (const std::invalid_argument &e) {
			throw CLI::ValidationError("--policies", e.what());
		}
	}
	if (a.vram_given) // else below, once every option is checked
		k.vram_mib = kernel_vram_list(a.vram, "--vram");
	k.too_big = a.too_big.empty() ? 0 : a.too_big == "refuse" ? 1 : 2;
	const uint64_t thr = threshold_bytes(a.threshold);
	if (thr % 1024 || thr / 1024 > 1048576)
		throw CLI::ValidationError("--threshold", "must be whole KiB, at most 1 GiB "
		                                          "(radeon.topdown_threshold)");
	k.config.topdown_kib = uint32_t(thr / 1024);
	// one run under two names (lru and 6.12:lru, minmax and minmax@512K) would be two rows
	for (size_t i = 0; i < k.policies.size(); i++)
		for (size_t j = 0; j < i; j++) {
			const KernelChoice x = kernel_choice(k.policies[i], k.config.topdown_kib),
			                   y = kernel_choice(k.policies[j], k.config.topdown_kib);
			if (x.policy == y.policy && x.topdown_kib == y.topdown_kib && x.stock == y.stock)
				throw CLI::ValidationError("--policies", "\"" + given[i] + "\" is \"" + given[j] +
				                                         "\" again (one run)");
		}
	if (a.window < 1 || a.window > 4096)
		throw CLI::ValidationError("--window", "must be 1..4096 (radeon.bo_score_window)");
	k.config.window = a.window;
	copy_mechanism_options(a.mech, k.config);
	k.config.timeline_every = a.timeline;
	k.costs = resolve_costs(a.cost, a.cost_opts, a.pcie_gbps, a.vram_gbps, a.move_latency_us);
	if (k.vram_mib.empty()) // the traces' headers are read only after every option passed
		k.vram_mib = vram_list(default_vram(a), "--vram");
	k.costs.apply(k.config);
	k.threads = a.threads;
	k.replay = replay_options(a);
	k.json = a.json;
	k.quiet = a.quiet;
	if (a.ensemble_given) {
		if (k.too_big)
			throw CLI::ValidationError("--too-big", "is for a plain run, not --ensemble (the "
			                                        "table keeps each policy's rule)");
		if (a.timeline)
			throw CLI::ValidationError("--ensemble", "does not take --timeline");
		if (k.replay.impossible != OnImpossible::Keep)
			throw CLI::ValidationError("--ensemble", "reports the whole corpus and its clean "
			                                         "part itself: leave out --on-impossible");
		if (k.config.admit_gtt_permille)
			throw CLI::ValidationError("--admit-permille", "is each cost band's GTT charge "
			                                               "with --ensemble (--gtt-cost)");
		DecideArgs d;
		d.corpus = k.inputs;
		d.policies = k.policies;
		d.baselines = split_list(a.baselines, "--baselines", true);
		d.vram_mib = k.vram_mib;
		d.ensemble = a.ensemble;
		try {
			d.gtt_factors = parse_factors(a.gtt_cost, "--gtt-cost", 1000);
			// one PCIe band: the cost file's, else --pcie-gbps
			d.pcie_gbps = a.cost.empty()
			                      ? parse_factors(std::to_string(a.pcie_gbps), "--pcie-gbps", 1000)
			                      : std::vector<double>{k.costs.pcie_gbps};
		} catch (const std::invalid_argument &e) {
			throw CLI::ValidationError(e.what());
		}
		d.config = k.config;
		d.costs = k.costs;
		d.on_destroyed = k.replay.destroyed;
		d.threads = a.threads;
		d.json = a.json;
		d.quiet = a.quiet;
		d.decide = false;
		return run_decide(d);
	}
#ifdef VRAMLAB_CHECK_INVARIANTS
	k.config.check_every = 10000;
#endif
	run_kernel_sim(k);
}

void run(const SimArgs &a)
{
	check_json_path(a.json);
	// with --json -, stdout is the JSON alone and the table goes to stderr
	std::FILE *tab = a.json == "-" ? stderr : stdout;
	if (a.model == "kernel")
		return run_kernel(a);
	if (a.kernel != "6.12" || !a.baselines.empty())
		throw CLI::ValidationError("--kernel/--baselines", "are for --model kernel");
	if (!a.too_big.empty())
		throw CLI::ValidationError("--too-big", "is for --model kernel");
	if (a.ensemble_given)
		throw CLI::ValidationError("--ensemble", "is for --model kernel");
	if (!a.cost.empty())
		throw CLI::ValidationError("--cost", "is for --model kernel (the thesis model keeps the "
		                                     "thesis's cost units, sim/cost.h)");
	RunSpec spec;
	spec.traces = trace_files(a.inputs);
	spec.policies = split_list(a.policies, "--policies");
	if (spec.policies.empty())
		throw CLI::ValidationError("--policies", "is empty");
	for (auto &p : spec.policies) {
		try {
			find_policy(p); // fail early on a typo
		} catch (const std::invalid_argument &e) {
			throw CLI::ValidationError("--policies", e.what());
		}
	}
	if (a.vram_given) // else below, once every option is checked
		spec.vram_mib = vram_list(a.vram, "--vram");
	spec.config.threshold = threshold_bytes(a.threshold);
	// one run under two names (minmax and minmax+lru, or minmax@512K at that threshold)
	for (size_t i = 0; i < spec.policies.size(); i++)
		for (size_t j = 0; j < i; j++) {
			const Policy x = find_policy(spec.policies[i]), y = find_policy(spec.policies[j]);
			const uint64_t tx = x.threshold ? x.threshold : spec.config.threshold,
			               ty = y.threshold ? y.threshold : spec.config.threshold;
			if (x.eviction == y.eviction && x.minmax == y.minmax && (!x.minmax || tx == ty))
				throw CLI::ValidationError("--policies", "\"" + spec.policies[i] + "\" is \"" +
				                                         spec.policies[j] + "\" again (one run)");
		}
	spec.config.timeline_every = a.timeline;
	Mlp mlp;
	bool need_mlp = false;
	for (auto &p : spec.policies)
		need_mlp |= std::string(find_policy(p).eviction->name).rfind("score", 0) == 0;
	const std::string weights = a.weights.empty() ? default_weights_path() : a.weights;
	if (need_mlp) {
		mlp = Mlp::load(weights);
		spec.config.mlp = &mlp;
	}
	spec.replay = replay_options(a);
	if (spec.vram_mib.empty()) // the traces' headers are read only after every option passed
		spec.vram_mib = vram_list(default_vram(a), "--vram");
	spec.threads = a.threads ? a.threads : std::max(1u, std::thread::hardware_concurrency());
	// a trace's runs are the work that runs at once: no more threads than that (nor in the
	// speed line below)
	spec.threads = unsigned(std::min<size_t>(
	        spec.threads, std::max<size_t>(1, spec.policies.size() * spec.vram_mib.size())));
	spec.progress = !a.quiet && isatty(STDERR_FILENO);
#ifdef VRAMLAB_CHECK_INVARIANTS
	spec.config.check_every = 100000;
#endif

	// The traces are decoded one after another into vectors of tens of MB. glibc returns
	// each such block to the kernel when it is freed, and the next trace faults as much in
	// again (about a tenth of the four benchmark traces' run, harness/bench/): keep freed
	// memory in the heap for the next trace instead.
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	const RunOutput out = run_all(spec);
	refuse_nothing_left(out.loads); // before the table and the JSON

	// Totals per (VRAM size, policy), summed over traces, as the thesis's benchmark mode printed.
	std::map<std::pair<uint64_t, std::string>, Total> tot;
	for (auto &row : out.rows)
		tot[{row.vram_mib, row.policy}].add(row.r);
	uint64_t skipped = 0;
	for (auto &l : out.loads)
		skipped += l.skipped;
	print_impossible(tab, out.loads, spec.replay.impossible);

	const std::string &base = spec.policies[0];
	std::fprintf(tab, "%zu traces, policies %s (baseline %s), events on destroyed ids: %s (%llu %s)\n\n",
	            spec.traces.size(), a.policies.c_str(), base.c_str(), a.on_destroyed.c_str(),
	            (unsigned long long)skipped,
	            a.on_destroyed == "skip" ? "skipped" : "unresolved, skipped");
	std::fprintf(tab, "%6s  %-13s %22s %9s %10s %11s %8s %9s %6s %5s\n", "VRAM", "policy", "cost",
	            "vs base", "evictions", "moved MiB", "swap %", "frag avg", "peak", "cut");
	std::map<std::string, Total> grand;
	for (uint64_t v : spec.vram_mib) {
		const Total &b = tot[{v, base}];
		for (auto &p : spec.policies) {
			const Total &t = tot[{v, p}];
			grand[p].merge(t);
			char vs[32] = "";
			if (p != base) {
				const double d = -pct_better(b.cost, t.cost); // + = worse, as everywhere
				std::snprintf(vs, sizeof vs, "%+.2f%%", d);
			}
			std::fprintf(tab, "%5lluM  %-13s %22llu %9s %10llu %11.1f %8.3f %9.1f %6u %5u\n",
			            (unsigned long long)v, p.c_str(), (unsigned long long)t.cost, vs,
			            (unsigned long long)t.evictions, t.evicted_bytes / 1048576.0,
			            t.entries ? 100.0 * t.eviction_events / t.entries : 0.0,
			            t.frag_samples ? double(t.frag_sum) / t.frag_samples : 0.0, t.frag_peak,
			            t.cut);
		}
	}
	std::fprintf(tab, "\nvs base: the change of cost against %s, positive = worse (more "
	                  "expensive; the thesis's Figure 20 printed %% better, the other sign)\n",
	             base.c_str());
	std::fprintf(tab, "Total over all sizes (vs %s, positive = worse):\n", base.c_str());
	for (auto &p : spec.policies)
		std::fprintf(tab, "  %-13s %22llu %+8.2f%%  %llu evictions\n", p.c_str(),
		            (unsigned long long)grand[p].cost, -pct_better(grand[base].cost, grand[p].cost),
		            (unsigned long long)grand[p].evictions);
	std::fflush(tab);
	std::fprintf(stderr, "replayed %.1f M entries in %.2f s (%.1f M entries/s on %u threads)\n",
	             out.replayed / 1e6, out.seconds, out.replayed / 1e6 / out.seconds, spec.threads);

	if (!a.json.empty()) {
		nlohmann::json j;
		j["schema"] = "vramlab-sim";
		j["version"] = 1;
		j["config"] = {{"model", "thesis"},
		               {"policies", spec.policies},
		               {"vram_mib", spec.vram_mib},
		               {"threshold_bytes", spec.config.threshold},
		               {"timeline_every", a.timeline},
		               {"weights", need_mlp ? weights : ""},
		               {"on_destroyed", a.on_destroyed},
		               {"on_impossible", a.on_impossible},
		               {"traces", spec.traces.size()}};
		auto &res = j["results"] = nlohmann::json::array();
		for (auto &row : out.rows)
			res.push_back({{"trace", row.trace},
			               {"vram_mib", row.vram_mib},
			               {"policy", row.policy},
			               {"cost", row.r.cost},
			               {"evictions", row.r.evictions},
			               {"evicted_bytes", row.r.evicted_bytes},
			               {"eviction_events", row.r.eviction_events},
			               {"moves_in", row.r.moves_in},
			               {"declined", row.r.declined},
			               {"skipped_events", row.skipped},
			               {"cut", row.r.cut},
			               {"entries", row.r.entries},
			               {"frag_mean", row.r.frag_mean()},
			               {"frag_peak", row.r.frag_peak}});
		if (a.timeline)
			for (size_t i = 0; i < out.rows.size(); i++)
				res[i]["timeline"] = timeline_json(out.rows[i].r.timeline);
		auto &loads = j["traces"] = nlohmann::json::array();
		for (auto &l : out.loads)
			loads.push_back({{"trace", l.trace},
			                 {"entries", l.entries},
			                 {"skipped_events", l.skipped},
			                 {"repair_moved", l.repair.moved},
			                 {"repair_ambiguous", l.repair.ambiguous},
			                 {"repair_unresolved", l.repair.unresolved},
			                 {"impossible_creates", l.impossible},
			                 {"impossible_events_skipped", l.impossible_events},
			                 {"excluded", l.excluded}});
		j["seconds"] = out.seconds;
		j["entries_replayed"] = out.replayed;
		write_json(a.json, j);
	}
}

} // namespace

void add_decide_command(CLI::App &app)
{
	static DecideArgs d;
	static std::string policies = kDefaultKernelPolicies, baselines, vram = "32,64,128,256",
	                   live_vram = "8,12,16,32",
	                   gtt = "1,2,4", pcie, threshold = "512K", on_destroyed = "skip", cost,
	                   latency;
	static std::vector<const CLI::Option *> cost_opts;
	auto *c = app.add_subcommand("decide", "the decision table: every kernel policy against "
	                                       "stock 6.12 over ensembles and cost bands");
	c->add_option("--corpus", d.corpus, "trace files or directories (the shared corpus; its "
	                                    "clean part is reported beside it)");
	c->add_option("--live", d.live, "traces of real programs (traces/live)");
	c->add_option("--policies", policies, "kernel policies, each NAME or KERNEL:NAME (6.12, "
	                                      "6.14, 6.14+fix); the first is a baseline: lru")
	    ->capture_default_str();
	c->add_option("--baselines", baselines, "more baselines every policy is paired with: "
	                                        "stock lru on another kernel (6.14:lru)");
	c->add_option("--vram", vram, "VRAM sizes")->capture_default_str();
	c->add_option("--live-vram", live_vram, "VRAM sizes for the live traces (the programs of "
	                                        "the live corpus need far less than the games)")
	    ->capture_default_str();
	c->add_option("--ensemble", d.ensemble, "variations per run, 1..16")->capture_default_str();
	c->add_option("--cost", cost, "a cost file (harness/docs/cost-file.md): the base costs the bands "
	                              "vary; default the built-in ones, costs/default.json")
	    ->check(CLI::ExistingFile);
	c->add_option("--gtt-cost", gtt, "cost bands: factors on the GTT charge (of the cost "
	                                 "file's, with --cost)")
	    ->capture_default_str();
	cost_opts = {c->add_option("--pcie-gbps", pcie, "cost bands: PCIe bandwidths, GB/s "
	                                                "(default: the base's, 8 built in; not "
	                                                "with --cost)"),
	             c->add_option("--vram-gbps", d.config.vram_gbps, "VRAM bandwidth, GB/s (not "
	                                                               "with --cost)")
	                 ->capture_default_str(),
	             c->add_option("--move-latency-us", latency,
	                           "fixed cost of a move, us (default 20; several, e.g. 5,20,40: "
	                           "cost bands, each verdict also per latency; not with --cost)")};
	c->add_option("--threshold", threshold, "min-max size threshold")->capture_default_str();
	c->add_option("--window", d.config.window, "radeon.bo_score_window")->capture_default_str();
	add_mechanism_options(c, d.config);
	c->add_option("--on-destroyed", on_destroyed, "events on destroyed ids: skip or repair")
	    ->check(CLI::IsMember({"skip", "repair"}))
	    ->capture_default_str();
	c->add_option("--weights", d.weights, "a scoring network: adds minmax+key:NAME, the "
	                                       "scores Mesa would send with it")
	    ->check(CLI::ExistingFile);
	c->add_option("--threads", d.threads, "worker threads, 1..256 (default: all cores)")
	    ->check(CLI::Range(1u, 256u));
	c->add_option("--json", d.json, "write every figure to this JSON file (- for stdout)");
	c->add_option("--run-times", d.run_times,
	              "write each replay's CPU seconds to this CSV file (trace, VRAM, policy, "
	              "board; not with --mpi)");
	c->add_flag("--quiet", d.quiet, "no progress line");
	c->add_flag("--every-board", d.every_board, "replay every run the table would copy: a "
	                                            "board that pins what another pins at that "
	                                            "size, a fit or eviction rule whose stock "
	                                            "twin's run is its run (a check: the same "
	                                            "figures, more replays)");
	c->add_flag("--mpi", d.mpi, "spread the traces over MPI processes (mpirun -np N); rank 0 "
	                            "writes the results");
	c->callback([c] {
		if (d.corpus.empty() && d.live.empty())
			throw CLI::ValidationError("decide", "give --corpus and/or --live traces");
		d.policies = split_list(policies, "--policies");
		d.baselines = split_list(baselines, "--baselines", true);
		std::vector<KernelChoice> parsed;
		for (auto &p : d.policies) {
			try {
				ScoreSource scores;
				parsed.push_back(decide_choice(p, 0, scores));
			} catch (const std::invalid_argument &e) {
				throw CLI::ValidationError("--policies", e.what());
			}
		}
		refuse_unused_options(c, parsed); // baselines are stock lru: they use none of them
		if (c->count("--admit-permille"))
			throw CLI::ValidationError("--admit-permille", "is each cost band's GTT charge in "
			                                               "decide (--gtt-cost)");
		d.vram_mib = kernel_vram_list(vram, "--vram");
		d.live_vram_mib = kernel_vram_list(live_vram, "--live-vram");
		const uint64_t thr = threshold_bytes(threshold);
		if (thr % 1024 || thr / 1024 > 1048576)
			throw CLI::ValidationError("--threshold", "must be whole KiB, at most 1 GiB");
		d.config.topdown_kib = uint32_t(thr / 1024);
		if (d.config.window < 1 || d.config.window > 4096)
			throw CLI::ValidationError("--window", "must be 1..4096 (radeon.bo_score_window)");
		if (!(d.config.vram_gbps > 0))
			throw CLI::ValidationError("--vram-gbps", "must be positive");
		if (c->count("--move-latency-us")) { // given empty is refused, not the default
			try {
				d.move_latency_us = parse_factors(latency, "--move-latency-us", 10000);
			} catch (const std::invalid_argument &e) {
				throw CLI::ValidationError(e.what());
			}
			for (double l : d.move_latency_us)
				check_cost_option(l, kMoveLatencyBounds, "--move-latency-us");
			// one value is the costs' own, as before; several are bands around the first
			d.config.move_latency_us = d.move_latency_us[0];
			if (d.move_latency_us.size() == 1)
				d.move_latency_us.clear();
		}
		d.costs = resolve_costs(cost, cost_opts, d.config.pcie_gbps, d.config.vram_gbps,
		                        d.config.move_latency_us);
		d.costs.apply(d.config);
		try {
			d.gtt_factors = parse_factors(gtt, "--gtt-cost", 1000);
			// without --pcie-gbps one band at the base's bandwidth
			d.pcie_gbps = c->count("--pcie-gbps") ? parse_factors(pcie, "--pcie-gbps", 1000)
			                                      : std::vector<double>{d.config.pcie_gbps};
			for (double g : d.pcie_gbps) {
				check_cost_option(g, kPcieBounds, "--pcie-gbps");
				if (g > d.config.vram_gbps)
					throw CLI::ValidationError("--pcie-gbps", "a band is above the VRAM "
					                                          "bandwidth");
			}
		} catch (const std::invalid_argument &e) {
			throw CLI::ValidationError(e.what());
		}
		d.on_destroyed = on_destroyed == "repair" ? OnDestroyed::Repair : OnDestroyed::Skip;
		run_decide(d);
	});
}

void add_sim_command(CLI::App &app)
{
	static SimArgs a;
	auto *sim = app.add_subcommand("sim", "replay traces through simulated VRAM");
	sim->add_option("TRACE", a.inputs, "trace files or directories of them")->required();
	std::string pol_help = "comma-separated; the first is the baseline. thesis model, eviction (bottom-up placement, or prefix minmax+ for min-max; minmax = minmax+lru):";
	for (auto &p : policies())
		pol_help += std::string(" ") + p.name;
	pol_help += "; kernel model (default all):";
	for (auto &p : kernel_policies())
		pol_help += std::string(" ") + p.name;
	sim->add_option("--model", a.model,
	                "thesis: the thesis's cost model; kernel: Linux 6.12 with the series "
	                "(harness/docs/kernel-model.md)")
	    ->check(CLI::IsMember({"thesis", "kernel"}))
	    ->capture_default_str();
	sim->add_option("--policies", a.policies, pol_help)
	    ->capture_default_str()
	    ->each([](const std::string &) { a.policies_given = true; });
	sim->add_option("--window", a.window, "kernel model: radeon.bo_score_window")
	    ->capture_default_str();
	sim->add_option("--kernel", a.kernel, "kernel model: the stock kernel of policies named "
	                                      "without KERNEL: (6.12; 6.14 ends a submission "
	                                      "without LRU moves; 6.14+fix with them restored)")
	    ->capture_default_str();
	sim->add_option("--too-big", a.too_big, "kernel model: a BO larger than VRAM asked for in "
	                                        "VRAM is refused at once (refuse: the series' patch "
	                                        "1) or after evicting every BO (evict: stock TTM); "
	                                        "default: each policy's own rule")
	    ->check(CLI::IsMember({"refuse", "evict"}));
	sim->add_option("--baselines", a.baselines, "kernel model with --ensemble: more baselines "
	                                            "(6.14:lru)");
	add_mechanism_options(sim, a.mech);
	sim->add_option("--cost", a.cost, "kernel model: a cost file (harness/docs/cost-file.md) instead "
	                                  "of the built-in costs (costs/default.json)")
	    ->check(CLI::ExistingFile);
	a.cost_opts = {sim->add_option("--pcie-gbps", a.pcie_gbps,
	                               "kernel model: PCIe bandwidth, GB/s (not with --cost)")
	                   ->capture_default_str(),
	               sim->add_option("--vram-gbps", a.vram_gbps,
	                               "kernel model: VRAM bandwidth, GB/s (not with --cost)")
	                   ->capture_default_str(),
	               sim->add_option("--move-latency-us", a.move_latency_us,
	                               "kernel model: fixed cost of one move, microseconds (not "
	                               "with --cost)")
	                   ->capture_default_str()};
	sim->add_option("--vram", a.vram, "VRAM sizes: MiB, or with K/M/G (whole MiB); default: "
	                                  "the sizes the traces were recorded at if every one says "
	                                  "(live traces), else these")
	    ->capture_default_str()
	    ->each([](const std::string &) { a.vram_given = true; });
	sim->add_option("--threshold", a.threshold, "min-max size threshold")->capture_default_str();
	sim->add_option("--weights", a.weights, "score weights file (default weights/handset.txt)");
	sim->add_option("--on-destroyed", a.on_destroyed, "events on destroyed ids: skip or repair")
	    ->check(CLI::IsMember({"skip", "repair"}))
	    ->capture_default_str();
	sim->add_option("--on-impossible", a.on_impossible,
	                "creates over 128 MiB (a corpus defect): keep, skip (drop them and their "
	                "events) or exclude (leave such traces out)")
	    ->check(CLI::IsMember({"keep", "skip", "exclude"}))
	    ->capture_default_str();
	sim->add_option("--threads", a.threads, "worker threads, 1..256 (default: all cores)")
	    ->check(CLI::Range(1u, 256u));
	sim->add_option("--json", a.json, "write every figure to this JSON file (- for stdout)");
	sim->add_option("--timeline", a.timeline,
	                "record holes and swapping every N operations into the JSON (the "
	                "thesis's Figures 7-15; vramlab report plots them)")
	    ->check(CLI::Range(1u, 1000000000u));
	sim->add_option("--ensemble", a.ensemble,
	                "kernel model: replay each (trace, size, policy) on the first N of 16 "
	                "board variations (pinned kernel BOs, submission period), paired with the "
	                "first policy (lru) on each: median, quartiles and worst per trace and in "
	                "total")
	    ->each([](const std::string &) { a.ensemble_given = true; });
	sim->add_option("--gtt-cost", a.gtt_cost,
	                "kernel model with --ensemble: factors on the charge of a GPU use served "
	                "from GTT, as cost bands (e.g. 1,2,4)")
	    ->capture_default_str();
	sim->add_flag("--quiet", a.quiet, "no progress line");
	sim->callback([sim] {
		// An option no policy of the run reads changes nothing: refuse it rather than let a
		// table look as if it had been applied.
		for (const char *opt : {"--baselines", "--gtt-cost"})
			if (sim->count(opt) && !a.ensemble_given)
				throw CLI::ValidationError(opt, "changes nothing without --ensemble (a plain "
				                                "run has one baseline, the first policy, and "
				                                "one cost)");
		if (a.model == "kernel" && !a.ensemble_given) {
			std::vector<KernelChoice> parsed;
			for (const std::string &p :
			     split_list(a.policies_given ? a.policies : kDefaultKernelPolicies, "--policies")) {
				try {
					parsed.push_back(kernel_choice(p, 512));
				} catch (const std::invalid_argument &) {
				} // a bad name: run() says which, with its usage error
			}
			refuse_unused_options(sim, parsed);
		}
		run(a);
	});
}

} // namespace vramlab
