// vramlab labels: what the clairvoyant window decided, one CSV row per evictable BO of each
// decision (issue 50: learn the victims from the offline choice instead of searching for
// weights). docs/labels.md lists the columns.
#include <cinttypes>
#include <cstdio>
#include <mutex>
#include <utility>
#include <string>
#include <thread>
#include <unistd.h>

#include "cli/commands.h"
#include "kmodel/clairvoyant.h"
#include "kmodel/kernel_model.h"
#include "sim/parallel.h"
#include "sim/trace_cache.h"
#include "train/objective.h"
#include "trace/stats.h"
#include "util/output_file.h"

namespace vramlab {

namespace {

// The rows of one run (trace x size), written in the run's order
class CsvLabels : public OracleObserver {
public:
	// mesa: the network inputs of each relocation of t (train_inputs() at this size)
	CsvLabels(const KernelTrace &t, TrainTrace mesa, uint64_t vram_mib, uint64_t every)
	    : t_(t), mesa_(std::move(mesa)), vram_mib_(vram_mib), every_(every)
	{
	}
	void decision(const OracleDecision &d, const OracleCandidate *c, size_t n) override
	{
		const uint64_t k = decisions_++;
		if (k % every_)
			return;
		kept_++;
		static const char *const outcome[] = {"placed", "nofit", "bypass"};
		char head[256];
		const int hl = std::snprintf(head, sizeof head, "%s,%" PRIu64 ",%" PRIu64 ",%s,%u,%" PRIu64 ",%s,%" PRIu64,
		                             t_.name.c_str(), vram_mib_, k, outcome[d.outcome], d.id,
		                             d.pages, ahead(d.next_use, d.subs).c_str(), d.now_us);
		for (size_t i = 0; i < n; i++) {
			const OracleCandidate &x = c[i];
			char row[256];
			const int rl = std::snprintf(
			        row, sizeof row,
			        ",%u,%u,%" PRIu64 ",%" PRIu64 ",%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%s,%s,%" PRIu64 ",%d",
			        x.id, x.lru_rank, x.pages, x.start, unsigned(x.priority), x.uses, x.returns,
			        d.now_us - std::min(d.now_us, x.last_us),
			        d.now_us - std::min(d.now_us, x.created_us), ahead(x.next_use, d.subs).c_str(),
			        ahead_us(x.next_use, d.now_us).c_str(), x.predicted_in, x.victim ? 1 : 0);
			out_.append(head, size_t(hl));
			out_.append(row, size_t(rl));
			mesa_inputs(x.last_reloc);
			out_ += '\n';
			rows_++;
			victims_ += x.victim;
		}
	}
	std::string out_;
	uint64_t decisions_ = 0, kept_ = 0, rows_ = 0, victims_ = 0;

private:
	// submissions from now to next_use ("" for never)
	static std::string ahead(uint64_t next_use, uint64_t subs)
	{
		return next_use == Future::kNever ? std::string() : std::to_string(next_use + 1 - subs);
	}
	// microseconds from now to that submission's time ("" for never, or a destroy after the
	// trace's last submission)
	std::string ahead_us(uint64_t next_use, uint64_t now_us) const
	{
		if (next_use >= t_.cs_us.size())
			return {};
		const uint64_t at = t_.cs_us[next_use];
		return std::to_string(at > now_us ? at - now_us : 0);
	}
	// Mesa's nine inputs at the relocation that last named the BO (empty: none yet, or one
	// Mesa sends neutral, the winsys's fence)
	void mesa_inputs(uint64_t reloc)
	{
		const bool have = reloc < mesa_.reloc_input.size() &&
		                  mesa_.reloc_input[reloc] != TrainTrace::kNeutral;
		for (size_t i = 0; i < kMlpInputs; i++) {
			out_ += ',';
			if (have) {
				char v[32];
				const int n = std::snprintf(v, sizeof v, "%.9g",
				                            double(mesa_.inputs[mesa_.reloc_input[reloc]][i]));
				out_.append(v, size_t(n));
			}
		}
	}
	const KernelTrace &t_;
	const TrainTrace mesa_;
	uint64_t vram_mib_, every_;
};

constexpr const char *kHeader =
        "trace,vram_mib,decision,outcome,placed_id,placed_pages,placed_next_in,now_us,"
        "id,lru_rank,pages,start,priority,uses,returns,idle_us,age_us,next_in,next_in_us,predicted_in,victim,"
        "m0,m1,m2,m3,m4,m5,m6,m7,m8\n";

struct LabelsArgs {
	std::vector<std::string> inputs;
	std::string vram = "64,256", policy = "window-oracle", out, on_destroyed = "skip";
	uint64_t every = 1;
	unsigned threads = 0;
	bool quiet = false;
};

void run_labels(const LabelsArgs &a)
{
	check_output_path(a.out);
	const std::vector<uint64_t> sizes = vram_list(a.vram, "--vram");
	const KernelChoice choice = kernel_choice(a.policy, 0);
	KernelConfig probe;
	apply_choice(choice, probe);
	if (!probe.window_oracle)
		throw CLI::ValidationError("--policy", a.policy + " is not the clairvoyant window "
		                                                  "(window-oracle, window-oracle+admit, "
		                                                  "with a KERNEL: prefix or not)");
	const ReplayOptions replay(a.on_destroyed == "repair" ? OnDestroyed::Repair
	                                                      : OnDestroyed::Skip);
	const auto traces = trace_files(a.inputs);
	const bool progress = !a.quiet && isatty(STDERR_FILENO);
	std::string csv = kHeader;
	uint64_t rows = 0, decisions = 0, kept = 0, victims = 0;
	for (size_t ti = 0; ti < traces.size(); ti++) {
		if (progress)
			std::fprintf(stderr, "\r[%zu/%zu] %s\033[K", ti + 1, traces.size(),
			             base_name(traces[ti]).c_str());
		const KernelTrace kt = cached_kernel(traces[ti], replay, [&] {
			return load_kernel_trace(traces[ti], replay);
		});
		std::vector<std::unique_ptr<CsvLabels>> runs(sizes.size());
		std::mutex mu;
		std::string err;
		const unsigned threads = a.threads ? a.threads : std::max(1u, std::thread::hardware_concurrency());
		parallel_for_each(sizes.size(), std::min<size_t>(threads, sizes.size()), [&](size_t k) {
			auto obs = std::make_unique<CsvLabels>(kt, train_inputs(kt, sizes[k] << 20), sizes[k],
			                                       a.every);
			KernelConfig c;
			c.vram = sizes[k] << 20;
			apply_choice(choice, c);
			c.observer = obs.get();
			try {
				simulate_kernel(kt, c);
			} catch (const std::exception &e) {
				std::lock_guard g(mu);
				err = e.what();
			}
			runs[k] = std::move(obs);
		});
		if (!err.empty())
			throw TraceError(kt.name + ": " + err);
		for (size_t k = 0; k < sizes.size(); k++) {
			const CsvLabels &r = *runs[k];
			csv += r.out_;
			rows += r.rows_;
			decisions += r.decisions_;
			kept += r.kept_;
			victims += r.victims_;
			if (!a.quiet)
				std::fprintf(stderr, "%s%s at %" PRIu64 " MiB: %" PRIu64 " decisions, %" PRIu64
				                     " kept, %" PRIu64 " rows\n",
				             progress ? "\r\033[K" : "", kt.name.c_str(), sizes[k], r.decisions_,
				             r.kept_, r.rows_);
		}
	}
	write_output(a.out, csv);
	if (!a.quiet)
		std::fprintf(stderr, "labels: %" PRIu64 " of %" PRIu64 " decisions, %" PRIu64
		                     " rows (%" PRIu64 " victims) in %s\n",
		             kept, decisions, rows, victims, a.out.c_str());
}

} // namespace

void add_labels_command(CLI::App &app)
{
	auto a = std::make_shared<LabelsArgs>();
	auto *c = app.add_subcommand("labels", "what the clairvoyant window evicts: one CSV row per "
	                                       "evictable BO of each of its decisions");
	c->add_option("traces", a->inputs, "trace files or directories")->required();
	c->add_option("-o,--output", a->out, "the CSV file ('-': stdout)")->required();
	c->add_option("--vram", a->vram, "VRAM sizes in MiB, comma-separated")->capture_default_str();
	c->add_option("--policy", a->policy, "the oracle: window-oracle or window-oracle+admit, "
	                                     "KERNEL: prefix allowed (6.14:window-oracle)")
	        ->capture_default_str();
	c->add_option("--every", a->every, "keep every Nth decision of each run (all of its rows)")
	        ->check(CLI::Range(uint64_t(1), uint64_t(1) << 40))
	        ->capture_default_str();
	c->add_option("--on-destroyed", a->on_destroyed, "events on destroyed ids: skip or repair")
	        ->check(CLI::IsMember({"skip", "repair"}))
	        ->capture_default_str();
	c->add_option("--threads", a->threads, "runs at once (default: the cores)");
	c->add_flag("--quiet", a->quiet, "no progress or counts on stderr");
	c->callback([a] { run_labels(*a); });
}

} // namespace vramlab
