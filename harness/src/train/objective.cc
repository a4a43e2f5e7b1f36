// The trainer's objective: see objective.h and docs/training.md.
#include "train/objective.h"

#include "sim/parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "kmodel/oracle.h"
#include "mlp/score_contract.h"
#include "sim/trace_cache.h"
#include "trace/format.h"

namespace vramlab {

namespace {

struct InputKey {
	std::array<float, kMlpInputs> x;
	bool operator==(const InputKey &o) const { return std::memcmp(&x, &o.x, sizeof x) == 0; }
};
struct InputHash {
	size_t operator()(const InputKey &k) const
	{
		uint64_t h = 0xcbf29ce484222325ull; // FNV-1a over the bits
		const auto *b = reinterpret_cast<const unsigned char *>(k.x.data());
		for (size_t i = 0; i < sizeof k.x; i++)
			h = (h ^ b[i]) * 0x100000001b3ull;
		return h;
	}
};

unsigned thread_count(unsigned asked)
{
	return asked ? asked : std::max(1u, std::thread::hardware_concurrency());
}

// Runs f(i) for i in order[0..n) on `threads` threads, each index once.
template <class F> void parallel_for(const std::vector<size_t> &order, unsigned threads, F f)
{
	parallel_for_each(order.size(), threads, [&](size_t k) { f(order[k]); });
}

constexpr uint32_t kCheckOps = 8192;
constexpr double kMinLruTimeUs = 1000;
// A running sum stops a replay only this far over the cutoff, so that its rounding (which
// depends on the order pairs finish in) never stops a candidate whose exact fitness, summed in
// pair order at the end, is within the cutoff: the decision is the same on any thread count.
constexpr double kMargin = 1e-9; // a pair's time ratio is taken against at least 1 ms

// Replays kt through m, each relocation r of kt.relocs carrying score(r); stop() is asked
// every kCheckOps operations and ends the replay early (false) when it says so.
template <class Score, class Stop>
bool drive(KernelModel &m, const KernelTrace &kt, Score score, Stop stop, uint64_t *ops = nullptr)
{
	std::vector<CsReloc> scratch;
	uint32_t n = 0;
	for (uint32_t op : kt.ops) {
		const uint32_t arg = op & KernelTrace::kMask;
		switch (KernelTrace::Op(op >> KernelTrace::kShift)) {
		case KernelTrace::Create: m.create(arg, kt.size[arg], kt.domain[arg]); break;
		case KernelTrace::Cs: {
			const KernelCs &cs = kt.cs[arg];
			scratch.assign(kt.relocs.begin() + cs.first, kt.relocs.begin() + cs.first + cs.n);
			for (uint32_t i = 0; i < cs.n; i++)
				scratch[i].score = score(cs.first + i);
			m.submit(scratch.data(), cs.n, true);
			break;
		}
		case KernelTrace::Cpu: m.cpu_map(arg); break;
		case KernelTrace::Destroy: m.destroy(arg); break;
		case KernelTrace::Frame: m.frame(); break;
		}
		if (++n % kCheckOps == 0 && stop()) {
			if (ops)
				*ops += n;
			return false;
		}
	}
	if (ops)
		*ops += n;
	return true;
}

} // namespace

TrainTrace prepare_train_trace(const std::string &path, uint64_t vram_input_fallback)
{
	uint64_t vram_input = vram_input_fallback;
	{
		auto r = open_trace(path);
		vram_input = trace_vram_bytes(r->info(), path, vram_input_fallback);
	}
	return prepare_train_trace(cached_kernel(path, OnDestroyed::Skip,
	                                         [&] { return load_kernel_trace(path, OnDestroyed::Skip); }),
	                           vram_input);
}

// The network inputs of kt's score computations into t (all but t.kt)
static void collect_inputs(const KernelTrace &kt, uint64_t vram_input, TrainTrace &t)
{
	std::unordered_map<InputKey, uint32_t, InputHash> seen;
	uint32_t last = 0;
	uint64_t observed = 0;
	// Which computations happen does not depend on the weights (score_contract.h): any
	// network will do to drive the tracker; the observer keeps the inputs.
	ScoreTracker tr(Mlp{}, vram_input, Refresh::Access, [&](const BufferStats &s) {
		InputKey k{Mlp::inputs(s)};
		auto [it, fresh] = seen.try_emplace(k, uint32_t(t.inputs.size()));
		if (fresh)
			t.inputs.push_back(k.x);
		last = it->second;
		observed++;
	});
	std::vector<uint32_t> cur(kt.size.size(), 0);
	std::vector<uint8_t> fence(kt.size.size(), 0); // kernel view: last used as the fence
	t.reloc_input.resize(kt.relocs.size());
	for (uint32_t op : kt.ops) {
		const uint32_t arg = op & KernelTrace::kMask;
		const uint64_t before = observed;
		switch (KernelTrace::Op(op >> KernelTrace::kShift)) {
		case KernelTrace::Create:
			// the create's score sees the CREATE flag only; a high-priority use counts
			// from its relocation on (score.md, the score contract)
			tr.create(arg, kt.size[arg], kt.prio[arg] & kPrioAtCreate, false);
			break;
		case KernelTrace::Cs: {
			const KernelCs &cs = kt.cs[arg];
			// In the kernel's view each CS ends with the winsys's fence, which Mesa keeps out
			// of its statistics and sends neutral (docs/score.md): no tick, no score.
			const uint32_t scored = kt.kernel_view && cs.n ? cs.n - 1 : cs.n;
			for (uint32_t i = 0; i < scored; i++) {
				const CsReloc &r = kt.relocs[cs.first + i];
				if (fence[r.id]) {
					// a fence's buffer used for something else: Mesa's buffer cache reclaimed
					// it, which Mesa's statistics see as a new buffer (a create)
					fence[r.id] = 0;
					const uint64_t b = observed;
					tr.create(r.id, kt.size[r.id], kt.prio[r.id] & kPrioAtCreate, false);
					if (observed != b)
						cur[r.id] = last;
				}
				if (tr.access(r.id, r.write_domain != 0, r.high_prio_use))
					cur[r.id] = last;
			}
			if (scored < cs.n)
				fence[kt.relocs[cs.first + scored].id] = 1;
			// The chunk carries each buffer's score after all relocations are accounted.
			for (uint32_t i = 0; i < cs.n; i++)
				t.reloc_input[cs.first + i] =
				        i < scored ? cur[kt.relocs[cs.first + i].id] : TrainTrace::kNeutral;
			continue;
		}
		case KernelTrace::Cpu: tr.cpu(arg); break;
		default: break;
		}
		if (observed != before)
			cur[arg] = last;
	}
	t.computations = observed;
}

TrainTrace prepare_train_trace(KernelTrace kt, uint64_t vram_input)
{
	TrainTrace t;
	t.kt = std::move(kt);
	collect_inputs(t.kt, vram_input, t);
	return t;
}

TrainTrace train_inputs(const KernelTrace &kt, uint64_t vram_input)
{
	TrainTrace t;
	collect_inputs(kt, vram_input, t);
	return t;
}

Objective::Objective(std::vector<TrainTrace> traces, const ObjectiveConfig &c)
    : traces_(std::move(traces)), c_(c)
{
	if (traces_.empty() || c_.vram_mib.empty())
		throw std::invalid_argument("the objective needs at least one trace and one VRAM size");
	lru_ = baseline("lru");
	lru_bytes_.assign(c_.vram_mib.size(), 0);
	lru_time_.assign(c_.vram_mib.size(), 0);
	for (size_t p = 0; p < pairs(); p++) {
		lru_bytes_[p % c_.vram_mib.size()] += double(lru_[p].bytes);
		lru_time_[p % c_.vram_mib.size()] += lru_[p].transfer_us;
	}
	for (size_t s = 0; s < c_.vram_mib.size(); s++)
		if (lru_bytes_[s] == 0 || lru_time_[s] == 0)
			throw std::invalid_argument("no pressure at " + std::to_string(c_.vram_mib[s]) +
			                            " MiB: LRU moves nothing on these traces (pick "
			                            "smaller sizes)");
}

KernelConfig Objective::kconfig(uint64_t vram_mib, bool key, bool topdown) const
{
	KernelConfig k;
	k.vram = vram_mib << 20;
	k.topdown_kib = topdown ? c_.topdown_kib : 0;
	k.bo_score = key;
	k.window = c_.window;
	c_.costs.apply(k);
	return k;
}

static PairFigures figures(const KernelResult &r)
{
	return {r.evictions(), r.bytes_to_vram() + r.bytes_from_vram(), r.transfer_us};
}

std::vector<PairFigures> Objective::baseline(const std::string &policy) const
{
	const KernelPolicy &pol = find_kernel_policy(policy);
	std::vector<PairFigures> out(pairs());
	std::vector<size_t> order(pairs());
	for (size_t p = 0; p < order.size(); p++)
		order[p] = p;
	const size_t ns = c_.vram_mib.size();
	parallel_for(order, thread_count(c_.threads), [&](size_t p) {
		out[p] = figures(simulate_kernel(traces_[p / ns].kt,
		                                 kconfig(c_.vram_mib[p % ns], pol.key, pol.topdown)));
	});
	return out;
}

double Objective::pair_weight_bytes(size_t p) const
{
	return 1.0 / (2.0 * c_.vram_mib.size() * lru_bytes_[p % c_.vram_mib.size()]);
}

double Objective::pair_weight_time(size_t p) const
{
	return 1.0 / (2.0 * c_.vram_mib.size() * lru_time_[p % c_.vram_mib.size()]);
}

static double pair_cost(double wb, double wt, double tol, size_t nsizes, const PairFigures &lru,
                        const PairFigures &f)
{
	const double ratio = f.transfer_us / std::max(lru.transfer_us, kMinLruTimeUs);
	const double lru_ratio = lru.transfer_us / std::max(lru.transfer_us, kMinLruTimeUs);
	return wb * double(f.bytes) + wt * f.transfer_us +
	       std::max(0.0, ratio - lru_ratio - tol) / double(nsizes);
}

double Objective::fitness_of(const std::vector<PairFigures> &f) const
{
	double sum = 0;
	for (size_t p = 0; p < pairs(); p++)
		sum += pair_cost(pair_weight_bytes(p), pair_weight_time(p), c_.tolerance,
		                 c_.vram_mib.size(), lru_[p], f[p]);
	return sum;
}

std::pair<double, double> Objective::ratios(const std::vector<PairFigures> &f) const
{
	const size_t ns = c_.vram_mib.size();
	double b = 0, t = 0;
	for (size_t s = 0; s < ns; s++) {
		double sb = 0, st = 0;
		for (size_t p = s; p < pairs(); p += ns) {
			sb += double(f[p].bytes);
			st += f[p].transfer_us;
		}
		b += sb / lru_bytes_[s];
		t += st / lru_time_[s];
	}
	return {b / double(ns), t / double(ns)};
}

bool Objective::replay(size_t p, const std::vector<uint32_t> &scores, double cutoff,
                       std::atomic<double> &spent, PairFigures &out) const
{
	const size_t ns = c_.vram_mib.size();
	const TrainTrace &t = traces_[p / ns];
	KernelModel m(kconfig(c_.vram_mib[p % ns], true, true), t.kt.size.size());
	const double wb = pair_weight_bytes(p), wt = pair_weight_time(p);
	uint64_t n = 0;
	const bool done = drive(
	        m, t.kt,
	        [&](size_t r) {
		        const uint32_t u = t.reloc_input[r];
		        return u == TrainTrace::kNeutral ? kScoreNeutral : scores[u];
	        },
	        [&] {
		        if (!(cutoff < HUGE_VAL))
			        return false;
		        const double part = pair_cost(wb, wt, c_.tolerance, ns, lru_[p], figures(m.running()));
		        return spent.load() + part > cutoff * (1 + kMargin);
	        },
	        &n);
	replayed_ += n;
	if (!done)
		return false;
	out = figures(m.result());
	double cur = spent.load();
	const double mine = pair_cost(wb, wt, c_.tolerance, ns, lru_[p], out);
	while (!spent.compare_exchange_weak(cur, cur + mine))
		;
	return spent.load() <= cutoff * (1 + kMargin);
}

std::vector<PairFigures> Objective::oracle() const
{
	const size_t ns = c_.vram_mib.size();
	std::vector<std::vector<uint32_t>> scores(traces_.size()); // per relocation
	std::vector<size_t> torder(traces_.size());
	for (size_t i = 0; i < torder.size(); i++)
		torder[i] = i;
	parallel_for(torder, thread_count(c_.threads),
	             [&](size_t i) { scores[i] = oracle_scores(traces_[i].kt, c_.window); });
	std::vector<PairFigures> out(pairs());
	std::vector<size_t> order(pairs());
	for (size_t p = 0; p < order.size(); p++)
		order[p] = p;
	parallel_for(order, thread_count(c_.threads), [&](size_t p) {
		const size_t t = p / ns;
		KernelModel m(kconfig(c_.vram_mib[p % ns], true, true), traces_[t].kt.size.size());
		drive(m, traces_[t].kt, [&](size_t r) { return scores[t][r]; }, [] { return false; });
		out[p] = figures(m.result());
	});
	return out;
}

std::vector<uint32_t> net_scores(const TrainTrace &t, const Mlp &m, uint64_t vram_mib)
{
	BufferStats b;
	b.vram_size = vram_mib << 20;
	const float vram_input = Mlp::inputs(b)[1];
	std::vector<uint32_t> score(t.inputs.size());
	for (size_t u = 0; u < score.size(); u++) {
		auto x = t.inputs[u];
		x[1] = vram_input;
		score[u] = m.score_inputs(x);
	}
	std::vector<uint32_t> out(t.reloc_input.size());
	for (size_t r = 0; r < out.size(); r++)
		out[r] = t.reloc_input[r] == TrainTrace::kNeutral ? kScoreNeutral : score[t.reloc_input[r]];
	return out;
}

KernelTrace scored_trace(const TrainTrace &t, const Mlp &m, uint64_t vram_mib)
{
	const std::vector<uint32_t> s = net_scores(t, m, vram_mib);
	KernelTrace k = t.kt;
	for (size_t r = 0; r < k.relocs.size(); r++)
		k.relocs[r].score = s[r];
	for (KernelCs &c : k.cs)
		c.scores = true;
	return k;
}

Evaluation Objective::evaluate(const Mlp &m, double cutoff) const
{
	// Scores of every distinct input, per trace (the dense network: the same bits as MlpPlan
	// and Mesa).
	std::vector<std::vector<uint32_t>> scores; // per pair
	std::vector<size_t> torder(traces_.size());
	for (size_t i = 0; i < torder.size(); i++)
		torder[i] = i;
	const unsigned threads = thread_count(c_.threads);
	// Input 1 is the VRAM size the driver sees: under radeon.vramlimit, the limited size.
	const size_t ns = c_.vram_mib.size();
	std::vector<float> vram_input(ns);
	for (size_t s = 0; s < ns; s++) {
		BufferStats b;
		b.vram_size = c_.vram_mib[s] << 20;
		vram_input[s] = Mlp::inputs(b)[1];
	}
	scores.resize(pairs());
	parallel_for(torder, threads, [&](size_t i) {
		for (size_t v = 0; v < ns; v++) {
			auto &s = scores[i * ns + v];
			s.resize(traces_[i].inputs.size());
			for (size_t u = 0; u < s.size(); u++) {
				auto x = traces_[i].inputs[u];
				x[1] = vram_input[v];
				s[u] = m.score_inputs(x);
			}
		}
	});

	// Longest replays first: they balance the threads and decide early stops soonest.
	std::vector<size_t> order(pairs());
	for (size_t p = 0; p < order.size(); p++)
		order[p] = p;
	std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
		return traces_[a / ns].kt.ops.size() + traces_[a / ns].kt.relocs.size() >
		       traces_[b / ns].kt.ops.size() + traces_[b / ns].kt.relocs.size();
	});
	Evaluation e;
	e.pairs.resize(pairs());
	std::atomic<double> spent{0};
	std::atomic<bool> stopped{false};
	parallel_for(order, threads, [&](size_t p) {
		if (stopped.load())
			return;
		if (!replay(p, scores[p], cutoff, spent, e.pairs[p]))
			stopped = true;
	});
	if (stopped.load()) {
		e.complete = false;
		e.fitness = HUGE_VAL;
		e.pairs.clear();
		return e;
	}
	e.fitness = fitness_of(e.pairs); // in pair order: the same bits on any thread count
	std::tie(e.bytes_ratio, e.time_ratio) = ratios(e.pairs);
	if (e.fitness > cutoff) {
		e = Evaluation{};
		e.complete = false;
		e.fitness = HUGE_VAL;
	}
	return e;
}

} // namespace vramlab
