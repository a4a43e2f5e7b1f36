// vramlab train fit: see supervised.h and docs/training.md.
#include "train/supervised.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <nlopt.h>
#include <random>
#include <stdexcept>
#include <unordered_map>

#include "kmodel/oracle.h"

namespace vramlab {

namespace {

// The output neuron's bias, after its 9 weights (mlp.h's layout)
constexpr int kMlpOutB = kMlpOut + 9;

// smootherstep of docs/score.md and its derivative, in double
inline double smooth(double x, double &d)
{
	if (!(x > 0)) {
		d = 0;
		return 0;
	}
	if (x >= 1) {
		d = 0;
		return 1;
	}
	d = 30 * x * x * (x - 1) * (x - 1);
	return x * x * x * (x * (x * 6 - 15) + 10);
}

// The loss sum w (o - y)^2 over rows [lo, hi) and its gradient, added into g
double loss_part(const FitSet &s, const double *p, size_t lo, size_t hi, double *g)
{
	double sum = 0;
	double a[kMlpInputs], da[kMlpInputs], h[kMlpInputs], dh[kMlpInputs];
	for (size_t r = lo; r < hi; r++) {
		const auto &x = s.x[r];
		for (int i = 0; i < kMlpInputs; i++)
			a[i] = smooth(p[kMlpInW + i] * x[i] + p[kMlpInB + i], da[i]);
		double z = p[kMlpOutB];
		for (int j = 0; j < kMlpInputs; j++) {
			const double *w = p + kMlpHid + j * 10;
			double u = w[9];
			for (int i = 0; i < kMlpInputs; i++)
				u += w[i] * a[i];
			h[j] = smooth(u, dh[j]);
			z += p[kMlpOut + j] * h[j];
		}
		// the output past [0, 1] continued as a parabola (o = 1 + (z - 1)^2 above,
		// -z^2 below): the same network inside, and a gradient back toward the targets
		// where s() is flat (a start that saturates would otherwise stop the fit there)
		double dz, o;
		if (z > 1) {
			o = 1 + (z - 1) * (z - 1);
			dz = 2 * (z - 1);
		} else if (z < 0) {
			o = -z * z;
			dz = -2 * z;
		} else {
			o = smooth(z, dz);
		}
		const double e = o - s.y[r];
		sum += s.w[r] * e * e;
		if (!g || dz == 0)
			continue;
		const double gz = 2 * s.w[r] * e * dz; // d loss / d z
		g[kMlpOutB] += gz;
		double ga[kMlpInputs] = {};
		for (int j = 0; j < kMlpInputs; j++) {
			g[kMlpOut + j] += gz * h[j];
			const double gu = gz * p[kMlpOut + j] * dh[j];
			if (gu == 0)
				continue;
			double *gw = g + kMlpHid + j * 10;
			const double *w = p + kMlpHid + j * 10;
			gw[9] += gu;
			for (int i = 0; i < kMlpInputs; i++) {
				gw[i] += gu * a[i];
				ga[i] += gu * w[i];
			}
		}
		for (int i = 0; i < kMlpInputs; i++) {
			const double gv = ga[i] * da[i];
			g[kMlpInW + i] += gv * x[i];
			g[kMlpInB + i] += gv;
		}
	}
	return sum;
}

struct Problem {
	const FitSet *s;
	unsigned evaluations = 0;
	const std::function<void(unsigned, double)> *progress;
};

// The rows in a fixed number of parts, summed in a fixed order: the same weights on any
// number of cores
constexpr size_t kParts = 8;

// The mean over the relocations' bytes, its parts on as many threads
double objective(unsigned n, const double *p, double *grad, void *data)
{
	auto &pr = *static_cast<Problem *>(data);
	const FitSet &s = *pr.s;
	const size_t rows = s.x.size(), parts = kParts;
	std::vector<std::array<double, kMlpParams>> g(parts);
	std::vector<std::future<double>> f;
	for (size_t k = 0; k < parts; k++) {
		g[k].fill(0);
		f.push_back(std::async(std::launch::async, [&, k] {
			return loss_part(s, p, rows * k / parts, rows * (k + 1) / parts,
			                 grad ? g[k].data() : nullptr);
		}));
	}
	double sum = 0;
	for (auto &x : f)
		sum += x.get();
	const double loss = sum / s.w_sum;
	if (grad)
		for (unsigned i = 0; i < n; i++) {
			double t = 0;
			for (size_t k = 0; k < parts; k++)
				t += g[k][i];
			grad[i] = t / s.w_sum;
		}
	pr.evaluations++;
	if (*pr.progress)
		(*pr.progress)(pr.evaluations, loss);
	return loss;
}

} // namespace

double fit_objective(const FitSet &s, const std::array<double, kMlpParams> &p,
                     std::array<double, kMlpParams> *grad)
{
	if (grad)
		grad->fill(0);
	const double sum = loss_part(s, p.data(), 0, s.x.size(), grad ? grad->data() : nullptr);
	if (grad)
		for (double &g : *grad)
			g /= s.w_sum;
	return sum / s.w_sum;
}

void add_fit_samples(FitSet &s, const TrainTrace &t, const FitConfig &c)
{
	const std::vector<uint32_t> oracle = oracle_scores(t.kt, c.window);
	BufferStats b; // input 1 as net_scores() sets it for a board of that size
	b.vram_size = c.vram_mib << 20;
	const float vram = Mlp::inputs(b)[1];
	// rows keyed by the trace's distinct input (input 1 is the run's size for every row)
	std::unordered_map<uint32_t, size_t> row;
	std::vector<double> wy; // w * y per new row, divided at the end
	const size_t first = s.x.size();
	for (size_t r = 0; r < t.kt.relocs.size(); r++) {
		const uint32_t in = t.reloc_input[r];
		if (in == TrainTrace::kNeutral)
			continue;
		const double w = double(t.kt.size[t.kt.relocs[r].id]);
		const double y = oracle[r] / 4294967296.0;
		auto [it, fresh] = row.try_emplace(in, s.x.size());
		if (fresh) {
			std::array<float, kMlpInputs> x = t.inputs[in];
			x[1] = vram;
			s.x.push_back(x);
			s.w.push_back(0);
			s.y.push_back(0);
			wy.push_back(0);
		}
		s.w[it->second] += w;
		wy[it->second - first] += w * y;
		s.w_sum += w;
		s.wyy += w * y * y;
		s.relocations++;
	}
	for (size_t i = first; i < s.x.size(); i++)
		s.y[i] = s.w[i] > 0 ? wy[i - first] / s.w[i] : 0;
}

double fit_loss(const FitSet &s, const Mlp &m)
{
	if (!(s.w_sum > 0))
		return 0;
	// sum over relocations of w (o - y)^2 = sum over rows of w (o - mean y)^2 + the spread
	// of y within a row, which no network can change
	double sum = s.wyy;
	for (size_t r = 0; r < s.x.size(); r++) {
		const double o = m.score_inputs(s.x[r]) / 4294967296.0;
		sum += s.w[r] * (o * o - 2 * o * s.y[r]);
	}
	return sum / s.w_sum;
}

FitResult fit_scores(const FitSet &s, const FitConfig &c,
                     const std::function<void(unsigned, double)> &progress)
{
	if (s.x.empty() || !(s.w_sum > 0))
		throw std::invalid_argument("no relocation to fit the network to");
	// A start in the smootherstep's slopes: each input through s(x + 1/4), every hidden
	// neuron and the output near 1/2, small random weights between them.
	std::array<double, kMlpParams> p{};
	std::mt19937_64 rng(c.seed);
	std::uniform_real_distribution<double> u(-1.0 / 3, 1.0 / 3);
	for (int i = 0; i < kMlpInputs; i++) {
		p[kMlpInW + i] = 1;
		p[kMlpInB + i] = 0.25;
	}
	for (int j = 0; j < kMlpInputs; j++) {
		for (int i = 0; i < kMlpInputs; i++)
			p[kMlpHid + j * 10 + i] = u(rng);
		p[kMlpHid + j * 10 + 9] = 0.5;
		p[kMlpOut + j] = u(rng);
	}
	p[kMlpOutB] = 0.5;
	auto to_mlp = [](const std::array<double, kMlpParams> &q) {
		Mlp m;
		for (int i = 0; i < kMlpParams; i++)
			m.p[i] = float(q[i]);
		return m;
	};
	FitResult res;
	res.loss_start = fit_loss(s, to_mlp(p));
	Problem pr{&s, 0, &progress};
	nlopt_opt opt = nlopt_create(NLOPT_LD_LBFGS, kMlpParams);
	nlopt_set_min_objective(opt, objective, &pr);
	nlopt_set_maxeval(opt, int(c.iterations));
	nlopt_set_ftol_rel(opt, 1e-9);
	double best = 0;
	const nlopt_result r = nlopt_optimize(opt, p.data(), &best);
	nlopt_destroy(opt);
	if (r < 0 && r != NLOPT_ROUNDOFF_LIMITED)
		throw std::runtime_error("NLopt's L-BFGS failed (" + std::to_string(int(r)) + ")");
	for (double v : p)
		if (!std::isfinite(v) || std::fabs(v) > 3.0e38)
			throw std::runtime_error("the fit diverged: a weight is not a finite float");
	res.mlp = to_mlp(p);
	res.loss = fit_loss(s, res.mlp);
	res.evaluations = pr.evaluations;
	return res;
}

} // namespace vramlab
