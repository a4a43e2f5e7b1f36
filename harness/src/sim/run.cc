#include "sim/run.h"
#include "sim/trace_cache.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace vramlab {

std::vector<std::string> expand_traces(const std::vector<std::string> &args)
{
	namespace fs = std::filesystem;
	std::vector<std::string> out;
	for (auto &a : args) {
		std::error_code ec;
		if (fs::is_directory(a, ec)) {
			std::vector<std::string> files;
			for (auto &e : fs::directory_iterator(a)) {
				const auto ext = e.path().extension().string();
				if (e.is_regular_file() && (ext == ".bin" || ext == ".vrl" || ext == ".txt" ||
				                            ext == ".zst" || ext == ".gz") &&
				    e.path().filename() != "INDEX.txt")
					files.push_back(e.path().string());
			}
			std::sort(files.begin(), files.end());
			if (files.empty())
				throw TraceError(a + ": no trace files (*.bin, *.vrl, *.txt, *.zst, *.gz) in directory");
			out.insert(out.end(), files.begin(), files.end());
		} else {
			out.push_back(a);
		}
	}
	return out;
}

RunOutput run_all(const RunSpec &spec)
{
	RunOutput out;
	const auto t0 = std::chrono::steady_clock::now();
	std::vector<Policy> pols;
	for (auto &p : spec.policies)
		pols.push_back(find_policy(p));
	const size_t per_trace = pols.size() * spec.vram_mib.size();
	const size_t total = per_trace * spec.traces.size();
	out.rows.resize(total);

	// The runs of one trace as tasks. A policy whose sizes share work (Policy::run_sizes, which
	// also decides when they cannot) runs them in as few passes as keep the threads busy: one
	// pass on one thread, the sizes dealt over up to `threads / policies` passes on more.
	struct Task {
		size_t policy;
		std::vector<uint32_t> sizes; // indices into spec.vram_mib
	};
	std::vector<Task> tasks;
	const size_t nv = spec.vram_mib.size();
	for (size_t pi = 0; pi < pols.size(); pi++) {
		const size_t groups = pols[pi].eviction->run_lanes
		                              ? std::clamp<size_t>(
		                                        (std::max(1u, spec.threads) + pols.size() - 1) / pols.size(),
		                                        1, std::max<size_t>(nv, 1))
		                              : nv;
		for (size_t g = 0; g < groups && g < nv; g++) {
			Task tk{pi, {}};
			for (size_t v = g; v < nv; v += groups)
				tk.sizes.push_back(uint32_t(v));
			tasks.push_back(std::move(tk));
		}
	}
	std::stable_sort(tasks.begin(), tasks.end(), // the small sizes, the long runs, first
	                 [](const Task &a, const Task &b) { return a.sizes[0] < b.sizes[0]; });

	std::atomic<size_t> done{0};
	std::atomic<uint64_t> replayed{0};
	std::atomic<bool> finished{false};
	std::mutex name_mu;
	std::string current;
	std::thread progress;
	if (spec.progress) {
		progress = std::thread([&] {
			while (!finished.load()) {
				std::this_thread::sleep_for(std::chrono::milliseconds(250));
				const double s =
				    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
				std::lock_guard lk(name_mu);
				std::fprintf(stderr, "\r\033[K[%zu/%zu runs] %.1f M entries replayed, %.0f M/s, %.0f s  %s",
				             done.load(), total, replayed.load() / 1e6,
				             replayed.load() / 1e6 / (s > 0 ? s : 1), s, current.c_str());
				std::fflush(stderr);
			}
		});
	}

	auto load = [&](size_t k) {
		return std::async(std::launch::async,
		                  [&spec, k] {
			                  return cached_compact(spec.traces[k], spec.replay, [&spec, k] {
				                  return load_compact(spec.traces[k], spec.replay);
			                  });
		                  });
	};
	std::exception_ptr error;
	try {
		std::future<CompactTrace> next;
		if (!spec.traces.empty())
			next = load(0);
		for (size_t k = 0; k < spec.traces.size(); k++) {
			const CompactTrace trace = next.get();
			if (k + 1 < spec.traces.size())
				next = load(k + 1);
			{
				std::lock_guard lk(name_mu);
				current = trace.name;
			}
			const bool excluded = spec.replay.excludes(trace.impossible);
			out.loads.push_back({trace.name, trace.ops.size(), trace.skipped, trace.repair,
			                     trace.impossible, trace.impossible_events, excluded});
			if (excluded) { // its rows stay empty and are dropped below
				done += per_trace;
				continue;
			}
			std::atomic<size_t> task{0};
			auto worker = [&] {
				for (size_t i; (i = task.fetch_add(1)) < tasks.size();) {
					const Task &tk = tasks[i];
					std::vector<uint64_t> bytes;
					for (uint32_t v : tk.sizes)
						bytes.push_back(spec.vram_mib[v] << 20);
					std::vector<SimResult> rs = pols[tk.policy].run_sizes(trace, spec.config, bytes);
					for (size_t j = 0; j < tk.sizes.size(); j++) {
						const size_t v = tk.sizes[j];
						RunRow &row = out.rows[k * per_trace + v * pols.size() + tk.policy];
						row.trace = trace.name;
						row.policy = pols[tk.policy].name;
						row.vram_mib = spec.vram_mib[v];
						row.r = std::move(rs[j]);
						// a cut run skipped only what came before its cut
						row.skipped = row.r.cut && row.r.cut_at < trace.skipped_at_create.size()
						                      ? trace.skipped_at_create[row.r.cut_at]
						                      : trace.skipped;
						replayed += row.r.entries;
						done++;
					}
				}
			};
			std::vector<std::thread> pool;
			std::exception_ptr werr;
			std::mutex werr_mu;
			// no more workers than runs of this trace (--threads may ask for far more)
			const size_t workers = std::min<size_t>(std::max(1u, spec.threads),
			                                        std::max<size_t>(tasks.size(), 1));
			for (size_t w = 0; w < workers; w++)
				pool.emplace_back([&] {
					try {
						worker();
					} catch (...) {
						std::lock_guard lk(werr_mu);
						werr = std::current_exception();
						task = tasks.size(); // stop the others early
					}
				});
			for (auto &th : pool)
				th.join();
			if (werr)
				std::rethrow_exception(werr);
		}
	} catch (...) {
		error = std::current_exception();
	}
	finished = true;
	if (progress.joinable()) {
		progress.join();
		std::fprintf(stderr, "\r\033[K");
	}
	if (error)
		std::rethrow_exception(error);
	std::erase_if(out.rows, [](const RunRow &r) { return r.trace.empty(); });
	out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	out.replayed = replayed.load();
	return out;
}

} // namespace vramlab
