// vramlab sim --model kernel: replay traces through the model of the patched kernel
// (src/kmodel, docs/kernel-model.md) for each VRAM size and placement x eviction policy.
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/sim_kernel.h"
#include "kmodel/kernel_json.h"
#include "kmodel/kernel_model.h"
#include "sim/parallel.h"
#include "sim/run.h"
#include "sim/trace_cache.h"
#include "trace/stats.h"

namespace vramlab {

void run_kernel_sim(const KernelSimArgs &a)
{
	check_json_path(a.json);
	// with --json -, stdout is the JSON alone and the table goes to stderr
	std::FILE *tab = a.json == "-" ? stderr : stdout;
	const auto traces = expand_traces(a.inputs);
	// names (with any @SIZE) resolved once; each run only looks its choice up
	std::vector<KernelChoice> choices;
	for (auto &p : a.policies)
		choices.push_back(kernel_choice(p, a.config.topdown_kib));
	struct Row {
		std::string trace;
		uint64_t vram_mib;
		std::string policy;
		size_t choice;
		KernelResult r;
		uint64_t skipped;
	};
	std::vector<Row> rows;
	std::vector<TraceLoad> loads;
	// no more threads than a trace's runs (what runs at once), nor in the speed line below
	const unsigned threads = unsigned(std::min<size_t>(
	        a.threads ? a.threads : std::max(1u, std::thread::hardware_concurrency()),
	        std::max<size_t>(1, a.vram_mib.size() * a.policies.size())));
	const bool progress = !a.quiet && isatty(STDERR_FILENO);
	auto t0 = std::chrono::steady_clock::now();
	uint64_t replayed = 0;
	for (size_t ti = 0; ti < traces.size(); ti++) {
		if (progress)
			std::fprintf(stderr, "\r[%zu/%zu] %s: decoding...\033[K", ti + 1, traces.size(),
			             base_name(traces[ti]).c_str());
		const KernelTrace kt = cached_kernel(traces[ti], a.replay, [&] {
			return load_kernel_trace(traces[ti], a.replay);
		});
		const bool excluded = a.replay.excludes(kt.impossible);
		loads.push_back({kt.name, kt.ops.size(), kt.skipped, kt.repair, kt.impossible,
		                 kt.impossible_events, excluded});
		if (excluded)
			continue;
		const size_t first = rows.size();
		for (uint64_t v : a.vram_mib)
			for (size_t pi = 0; pi < a.policies.size(); pi++)
				rows.push_back({kt.name, v, a.policies[pi], pi, {}, kt.skipped});
		// radeon's lists once for all runs of the trace, where that pays: preparing costs
		// about 0.6 of a run and makes each run about 1.3x faster (docs/models.md)
		const bool prepared = rows.size() - first >= 3 * size_t(threads);
		const Submissions subs = prepared ? prepare_submissions(kt) : Submissions{};
		std::atomic<size_t> done{0};
		std::mutex err_mu;
		std::string err;
		parallel_for_each(rows.size() - first, threads, [&](size_t k) {
			Row &row = rows[first + k];
			const KernelChoice &p = choices[row.choice];
			KernelConfig c = a.config;
			c.vram = row.vram_mib << 20;
			apply_choice(p, c);
			if (a.too_big)
				c.flush_for_impossible = a.too_big == 2;
			c.per_frame = true; // moves per frame, where the trace has FRAME records
			try {
				row.r = prepared ? simulate_kernel(kt, subs, c) : simulate_kernel(kt, c);
			} catch (const std::exception &e) {
				std::lock_guard g(err_mu);
				err = e.what();
			}
			done++;
			if (progress)
				std::fprintf(stderr, "\r[%zu/%zu] %s: %zu/%zu runs\033[K", ti + 1,
				             traces.size(), kt.name.c_str(), size_t(done), rows.size() - first);
		});
		if (!err.empty())
			throw TraceError(kt.name + ": " + err);
		replayed += (kt.ops.size() + kt.relocs.size()) * (rows.size() - first);
	}
	if (progress)
		std::fprintf(stderr, "\r\033[K");
	refuse_nothing_left(loads); // before the table and the JSON
	const double secs =
	        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

	std::map<std::pair<uint64_t, std::string>, KernelResult> tot;
	for (auto &row : rows) {
		KernelResult &t = tot[{row.vram_mib, row.policy}];
		for (int i = 0; i < 3; i++) {
			t.mem[i].evictions += row.r.mem[i].evictions;
			t.mem[i].evicted_bytes += row.r.mem[i].evicted_bytes;
			t.mem[i].bytes_out += row.r.mem[i].bytes_out;
			t.mem[i].moves_out += row.r.mem[i].moves_out;
		}
		t.vram_in_from_gtt += row.r.vram_in_from_gtt;
		t.vram_in_from_gtt_bytes += row.r.vram_in_from_gtt_bytes;
		t.threshold_cs += row.r.threshold_cs;
		t.gtt_accesses += row.r.gtt_accesses;
		t.transfer_us += row.r.transfer_us;
		t.cs += row.r.cs;
	}
	const std::string &base = a.policies[0];
	uint64_t skipped = 0; // events on destroyed ids left out (skip: all; repair: unresolved)
	for (auto &l : loads)
		skipped += l.skipped;
	const bool repair = a.replay.destroyed == OnDestroyed::Repair;
	std::fprintf(tab, "kernel model (stock radeon + vramlab series; KERNEL:policy runs that "
	            "kernel's submission path, else 6.12): %zu traces, baseline %s, "
	            "topdown_threshold %u KiB, bo_score_window %u, events on destroyed ids: %s "
	            "(%llu %s)\n\n",
	            traces.size(), base.c_str(), a.config.topdown_kib, a.config.window,
	            repair ? "repair" : "skip", (unsigned long long)skipped,
	            repair ? "unresolved, skipped" : "skipped");
	if (!a.costs.builtin())
		std::fprintf(tab, "%s\n\n", a.costs.describe().c_str());
	print_impossible(tab, loads, a.replay.impossible);
	std::fprintf(tab, "%6s  %-11s %10s %10s %10s %9s %10s %12s %10s\n", "VRAM", "policy", "evictions",
	            "MiB in", "MiB out", "thresh CS", "GTT uses", "transfer ms", "vs base");
	for (uint64_t v : a.vram_mib) {
		const KernelResult &b = tot[{v, base}];
		for (auto &p : a.policies) {
			const KernelResult &t = tot[{v, p}];
			char vs[32] = "";
			// one sign in every table of vramlab: the change of transfer time, + = worse
			if (p != base && b.transfer_us > 0)
				std::snprintf(vs, sizeof vs, "%+.2f%%",
				              (t.transfer_us - b.transfer_us) / b.transfer_us * 100.0);
			std::fprintf(tab, "%5lluM  %-11s %10llu %10.1f %10.1f %9llu %10llu %12.1f %10s\n",
			            (unsigned long long)v, p.c_str(), (unsigned long long)t.evictions(),
			            t.bytes_to_vram() / 1048576.0, t.bytes_from_vram() / 1048576.0,
			            (unsigned long long)t.threshold_cs, (unsigned long long)t.gtt_accesses,
			            t.transfer_us / 1000.0, vs);
		}
	}
	std::fprintf(tab, "\nvs base: the change of modelled transfer time against %s, positive = "
	                  "worse (slower)\n", base.c_str());
	std::fflush(tab);
	std::fprintf(stderr, "replayed %.1f M entries in %.2f s (%.1f M entries/s on %u threads)\n",
	             replayed / 1e6, secs, replayed / 1e6 / secs, threads);
	if (!a.json.empty()) {
		nlohmann::json j;
		j["schema"] = "vramlab-sim-kernel";
		j["version"] = 1;
		j["config"] = {{"model", "kernel"},
		               {"policies", a.policies},
		               {"vram_mib", a.vram_mib},
		               {"topdown_threshold_kib", a.config.topdown_kib},
		               {"on_destroyed",
		                a.replay.destroyed == OnDestroyed::Repair ? "repair" : "skip"},
		               {"on_impossible", on_impossible_name(a.replay.impossible)},
		               {"bo_score_window", a.config.window},
		               {"too_big", a.too_big == 0 ? "policy" : a.too_big == 1 ? "refuse" : "evict"},
		               {"timeline_every", a.config.timeline_every},
		               {"pcie_gbps", a.config.pcie_gbps},
		               {"vram_gbps", a.config.vram_gbps},
		               {"move_latency_us", a.config.move_latency_us},
		               {"gtt_reads_per_use", a.config.gtt_reads_per_use},
		               {"costs", a.costs.json()},
		               {"traces", traces.size()}};
		auto &res = j["results"] = nlohmann::json::array();
		for (auto &row : rows) {
			nlohmann::json r = kernel_result_json(row.r);
			r["trace"] = row.trace;
			r["vram_mib"] = row.vram_mib;
			r["policy"] = row.policy;
			r["kernel"] = stock_name(choices[row.choice].stock);
			r["skipped_events"] = row.skipped;
			res.push_back(std::move(r));
		}
		auto &tl = j["traces"] = nlohmann::json::array();
		for (auto &l : loads)
			tl.push_back({{"trace", l.trace},
			              {"skipped_events", l.skipped},
			              {"impossible_creates", l.impossible},
			              {"impossible_events_skipped", l.impossible_events},
			              {"excluded", l.excluded}});
		j["seconds"] = secs;
		write_json(a.json, j);
	}
}

} // namespace vramlab
