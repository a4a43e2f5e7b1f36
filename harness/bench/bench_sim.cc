// Google Benchmark: replay speed (entries/s per core) per policy and VRAM size, decode speed and
// the cost of one MLP score. Timing lives here, never in the pass/fail tests.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include "kmodel/clairvoyant.h"
#include "kmodel/kernel_model.h"
#include "mlp/mlp.h"
#include "sim/sim.h"

using namespace vramlab;

namespace {

std::string trace_path(const std::string &name)
{
	const std::string shared = std::string(VRAMLAB_SHARED_TRACES) + "/" + name;
	if (std::filesystem::exists(shared))
		return shared;
	return std::string(VRAMLAB_SOURCE_DIR) + "/../traces/" + name;
}

const CompactTrace &trace(const std::string &name)
{
	static std::map<std::string, CompactTrace> cache;
	auto it = cache.find(name);
	if (it == cache.end())
		it = cache.emplace(name, load_compact(trace_path(name), OnDestroyed::Skip)).first;
	return it->second;
}

const Mlp &weights()
{
	static const Mlp m = Mlp::load(std::string(VRAMLAB_SOURCE_DIR) + "/weights/handset.txt");
	return m;
}

void BM_Replay(benchmark::State &state, const std::string &policy, const std::string &name)
{
	const CompactTrace &t = trace(name);
	const Policy p = find_policy(policy);
	SimConfig c;
	c.vram = uint64_t(state.range(0)) << 20;
	c.mlp = &weights();
	uint64_t entries = 0, evictions = 0;
	for (auto _ : state) {
		const SimResult r = p.run(t, c);
		entries += r.entries;
		evictions = r.evictions;
	}
	state.SetItemsProcessed(int64_t(entries));
	state.counters["evictions"] = double(evictions);
}

// The thesis's nine VRAM sizes of one trace (its trainer's -b): a run per size (arg 0), or one
// pass for all (arg 1: Policy::run_sizes, the statistics shared).
void BM_Sizes(benchmark::State &state, const std::string &policy, const std::string &name)
{
	const CompactTrace &t = trace(name);
	const Policy p = find_policy(policy);
	SimConfig c;
	c.mlp = &weights();
	std::vector<uint64_t> vram;
	for (uint64_t mib : {64, 128, 256, 384, 512, 1024, 1536, 2048, 4096})
		vram.push_back(mib << 20);
	uint64_t entries = 0;
	for (auto _ : state) {
		if (state.range(0)) {
			for (const SimResult &r : p.run_sizes(t, c, vram))
				entries += r.entries;
		} else {
			for (uint64_t v : vram) {
				c.vram = v;
				entries += p.run(t, c).entries;
			}
		}
	}
	state.SetItemsProcessed(int64_t(entries));
}

const KernelTrace &ktrace(const std::string &name)
{
	static std::map<std::string, KernelTrace> cache;
	auto it = cache.find(name);
	if (it == cache.end())
		it = cache.emplace(name, load_kernel_trace(trace_path(name), OnDestroyed::Repair)).first;
	return it->second;
}

// Entries as the thesis model counts them: creates, destroys, CPU maps and buffer uses.  Traces
// read as the decision table reads them (dead ids repaired: penumbra1 at 64 MiB evicts 8x more
// than when they are skipped).
// kernel/: one run as `sim` makes it (radeon's lists prepared inside); kernel-run/: the run
// alone, its lists prepared once for all its runs as decide prepares them.
void BM_Kernel(benchmark::State &state, const std::string &policy, const std::string &name,
               bool prepared)
{
	const KernelTrace &t = ktrace(name);
	KernelConfig c;
	c.vram = uint64_t(state.range(0)) << 20;
	apply_choice(kernel_choice(policy, 512), c);
	const Submissions subs = prepared ? prepare_submissions(t) : Submissions{};
	uint64_t evictions = 0;
	for (auto _ : state)
		evictions = (prepared ? simulate_kernel(t, subs, c) : simulate_kernel(t, c)).evictions();
	state.SetItemsProcessed(int64_t(state.iterations() * (t.ops.size() - t.cs.size() + t.relocs.size())));
	state.counters["evictions"] = double(evictions);
}

void BM_Decode(benchmark::State &state, const std::string &name)
{
	uint64_t entries = 0;
	for (auto _ : state) {
		const CompactTrace t = load_compact(trace_path(name), OnDestroyed::Skip);
		entries += t.ops.size() + t.skipped;
	}
	state.SetItemsProcessed(int64_t(entries));
}

template <class Net> void BM_MlpScore(benchmark::State &state)
{
	const Net m(weights());
	BufferStats s;
	s.size = 1 << 20;
	s.vram_size = 256 << 20;
	uint32_t acc = 0;
	for (auto _ : state) {
		s.reads++;
		s.since_read = s.reads % 3000;
		acc += m.score(s);
		benchmark::DoNotOptimize(acc);
	}
	state.SetItemsProcessed(state.iterations());
}

} // namespace

int main(int argc, char **argv)
{
	for (const char *name : {"nexuiz1.bin", "lugaru1.bin"}) {
		for (const char *policy : {"lru", "minmax", "score", "gdsf"})
			benchmark::RegisterBenchmark(
			    (std::string("replay/") + policy + "/" + name).c_str(),
			    [=](benchmark::State &s) { BM_Replay(s, policy, name); })
			    ->Arg(64)
			    ->Arg(256)
			    ->Unit(benchmark::kMillisecond);
		benchmark::RegisterBenchmark((std::string("decode/") + name).c_str(),
		                             [=](benchmark::State &s) { BM_Decode(s, name); })
		    ->Unit(benchmark::kMillisecond);
	}
	for (const char *name : {"dub1.bin", "nederland1.bin", "nexuiz1.bin", "supertuxkart2.bin"})
		benchmark::RegisterBenchmark((std::string("sizes/minmax+score/") + name).c_str(),
		                             [=](benchmark::State &s) { BM_Sizes(s, "minmax+score", name); })
		    ->Arg(0)
		    ->Arg(1)
		    ->Unit(benchmark::kMillisecond);
	// The issue-49 set first (eviction-heavy: penumbra1 and nexuiz1 at 64 and 128 MiB), then
	// the submission-bound lugaru1 and 256 MiB, where few BOs move.
	for (const char *name : {"penumbra1.bin", "nexuiz1.bin", "lugaru1.bin"})
		for (const char *pname :
		     {"lru", "fit", "window", "minmax+key", "prio", "window+budget", "window-predict"})
			for (bool prepared : {false, true})
				benchmark::RegisterBenchmark(
				    (std::string(prepared ? "kernel-run/" : "kernel/") + pname + "/" + name)
				            .c_str(),
				    [=](benchmark::State &s) { BM_Kernel(s, pname, name, prepared); })
				    ->Arg(64)
				    ->Arg(128)
				    ->Arg(256)
				    ->Unit(benchmark::kMillisecond);
	benchmark::RegisterBenchmark("kernel-prepare/penumbra1.bin", [](benchmark::State &s) {
		const KernelTrace &t = ktrace("penumbra1.bin");
		for (auto _ : s)
			benchmark::DoNotOptimize(prepare_submissions(t).tail.size());
		s.SetItemsProcessed(int64_t(s.iterations() * t.relocs.size()));
	})->Unit(benchmark::kMillisecond);
	benchmark::RegisterBenchmark("replay/belady/nederland1.bin", [](benchmark::State &s) {
		BM_Replay(s, "belady", "nederland1.bin");
	})->Arg(64)->Unit(benchmark::kMillisecond);
	// the window scans' order (sort_belady()) against the comparison sort it replaced:
	// candidates in rank order, keys over 2^24 (the predicted window's on the corpus)
	for (bool radix : {true, false})
		benchmark::RegisterBenchmark(radix ? "belady-sort/radix" : "belady-sort/std",
		                             [radix](benchmark::State &s) {
			                             std::mt19937_64 rng(1);
			                             std::vector<BeladyCandidate> in(size_t(s.range(0))), c;
			                             for (uint32_t i = 0; i < in.size(); i++)
				                             in[i] = {rng() % (1u << 24), i, i};
			                             BeladyScratch scratch;
			                             for (auto _ : s) {
				                             c = in;
				                             if (radix)
					                             sort_belady(c, scratch);
				                             else
					                             std::sort(c.begin(), c.end(), belady_before);
				                             benchmark::DoNotOptimize(c.data());
			                             }
			                             s.SetItemsProcessed(int64_t(s.iterations() * in.size()));
		                             })
		    ->Arg(64)
		    ->Arg(128)
		    ->Arg(280)
		    ->Arg(1024);
	benchmark::RegisterBenchmark("mlp/score", BM_MlpScore<Mlp>);
	benchmark::RegisterBenchmark("mlp/plan-handset", BM_MlpScore<MlpPlan>);
	benchmark::Initialize(&argc, argv);
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
