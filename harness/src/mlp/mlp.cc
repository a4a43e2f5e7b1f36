#include "mlp/mlp.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "trace/event.h"

namespace vramlab {

namespace {

// Written as max-then-min (same bits as the two comparisons, NaN and -0 included) so that it
// compiles to minss/maxss and vectorises.
// x > 0 ? min(x, 1) : 0: a NaN gives 0, as in Mesa (docs/score.md)
inline float clamp01(float x)
{
	const float lo = x > 0.0f ? x : 0.0f;
	return 1.0f < lo ? 1.0f : lo;
}

// Perlin's smootherstep on x clamped to [0,1].
inline float smootherstep(float x)
{
	const float t = clamp01(x);
	return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f);
}

} // namespace

std::array<float, kMlpInputs> Mlp::inputs(const BufferStats &s)
{
	// v >= scale gives exactly 1 after the clamp (rounding is monotone), so skip the division.
	auto f = [](uint64_t v, float scale) {
		const float fv = static_cast<float>(v);
		return fv >= scale ? 1.0f : clamp01(fv / scale);
	};
	return {
	    f(s.size, 1073741824.0f),    f(s.vram_size, 10737418240.0f), s.high_prio ? 1.0f : 0.0f,
	    f(s.since_read, 2400.0f),    f(s.since_write, 2400.0f),       f(s.reads, 500.0f),
	    f(s.writes, 500.0f),         f(s.since_cpu, 2400.0f),         f(s.cpu_ops, 500.0f),
	};
}

float Mlp::output_z_inputs(const std::array<float, kMlpInputs> &x) const
{
	float a[kMlpInputs], h[kMlpInputs];
	for (int i = 0; i < kMlpInputs; i++)
		a[i] = smootherstep(p[kMlpInW + i] * x[i] + p[kMlpInB + i]);
	for (int j = 0; j < kMlpInputs; j++) {
		const float *w = &p[kMlpHid + j * 10];
		float sum = 0.0f;
		for (int i = 0; i < kMlpInputs; i++)
			sum = sum + w[i] * a[i];
		h[j] = smootherstep(sum + w[9]);
	}
	float sum = 0.0f;
	for (int j = 0; j < kMlpInputs; j++)
		sum = sum + p[kMlpOut + j] * h[j];
	return sum + p[kMlpOut + 9];
}

uint32_t Mlp::score_inputs(const std::array<float, kMlpInputs> &x) const
{
	float o = smootherstep(output_z_inputs(x));
	if (o > 0.999f)
		o = 0.999f;
	return static_cast<uint32_t>(static_cast<double>(o) * 4294967296.0);
}

float Mlp::output_z(const BufferStats &s) const { return output_z_inputs(inputs(s)); }

Mlp Mlp::rescaled_output(double z_lo, double z_hi) const
{
	Mlp m = *this;
	const double span = z_hi - z_lo;
	for (int j = 0; j < kMlpInputs; j++)
		m.p[kMlpOut + j] = static_cast<float>(static_cast<double>(p[kMlpOut + j]) / span);
	m.p[kMlpOut + 9] = static_cast<float>((static_cast<double>(p[kMlpOut + 9]) - z_lo) / span);
	return m;
}

uint32_t Mlp::score(const BufferStats &s) const { return score_inputs(inputs(s)); }

MlpPlan::MlpPlan(const Mlp &m) : m_(m)
{
	for (int j = 0; j < kMlpInputs; j++) {
		const float out_w = m.p[kMlpOut + j];
		if (out_w == 0.0f)
			continue;
		Neuron n{uint8_t(terms_.size()), 0, m.p[kMlpHid + j * 10 + 9], out_w};
		for (int i = 0; i < kMlpInputs; i++) {
			const float w = m.p[kMlpHid + j * 10 + i];
			if (w == 0.0f)
				continue;
			terms_.push_back({uint8_t(i), w});
			inputs_used_ |= uint16_t(1u << i);
			n.count++;
		}
		hidden_.push_back(n);
	}
}

uint32_t MlpPlan::score(const BufferStats &s) const
{
	const auto x = Mlp::inputs(s);
	float a[kMlpInputs];
	for (int i = 0; i < kMlpInputs; i++)
		if (inputs_used_ & (1u << i))
			a[i] = smootherstep(m_.p[kMlpInW + i] * x[i] + m_.p[kMlpInB + i]);
	float o = 0.0f;
	for (const Neuron &n : hidden_) {
		float sum = 0.0f;
		for (int k = n.first; k < n.first + n.count; k++)
			sum = sum + terms_[k].w * a[terms_[k].input];
		o = o + n.out_w * smootherstep(sum + n.bias);
	}
	o = smootherstep(o + m_.p[kMlpOut + 9]);
	if (o > 0.999f)
		o = 0.999f;
	return static_cast<uint32_t>(static_cast<double>(o) * 4294967296.0);
}

Mlp Mlp::parse(const std::string &text, const std::string &name)
{
	Mlp m;
	int count = 0, line_no = 0;
	std::istringstream in(text);
	std::string line;
	while (std::getline(in, line)) {
		line_no++;
		if (auto hash = line.find('#'); hash != std::string::npos)
			line.resize(hash);
		const char *s = line.c_str();
		for (;;) {
			while (*s == ' ' || *s == '\t' || *s == '\r' || *s == ',')
				s++;
			if (!*s)
				break;
			char *end = nullptr;
			errno = 0;
			const float v = std::strtof(s, &end);
			if (end == s || errno == ERANGE || !std::isfinite(v))
				throw TraceError(name + ": line " + std::to_string(line_no) +
				                 ": not a number: \"" + std::string(s).substr(0, 20) + "\"");
			if (count == kMlpParams)
				throw TraceError(name + ": line " + std::to_string(line_no) + ": more than " +
				                 std::to_string(kMlpParams) + " parameters");
			m.p[count++] = v;
			s = end;
		}
	}
	if (count != kMlpParams)
		throw TraceError(name + ": " + std::to_string(count) + " parameters, expected " +
		                 std::to_string(kMlpParams));
	return m;
}

Mlp Mlp::load(const std::string &path)
{
	std::ifstream f(path);
	if (!f)
		throw TraceError(path + ": cannot open weights file");
	std::stringstream ss;
	ss << f.rdbuf();
	return parse(ss.str(), path);
}

Mlp Mlp::from_genome(const std::array<uint8_t, kMlpParams> &genome)
{
	Mlp m;
	for (int i = 0; i < kMlpParams; i++)
		m.p[i] = static_cast<float>(genome[i]) / 255.0f * 2.0f - 1.0f;
	return m;
}

std::string Mlp::to_text() const
{
	std::string out = "# vramlab MLP weights: in_w[9] in_b[9], hidden 9 x (w[9] b), out w[9] b\n";
	char buf[64];
	for (int i = 0; i < kMlpParams; i++) {
		std::snprintf(buf, sizeof buf, "%.9g%c", p[i],
		              (i == 8 || i == 17 || (i >= 18 && (i - 18) % 10 == 9)) ? '\n' : ' ');
		out += buf;
	}
	if (out.back() != '\n')
		out += '\n';
	return out;
}

std::string Mlp::to_c_header() const
{
	// Mesa's names (radeon_bo_score.h): nothing of ours in Mesa's code
	std::string out = "/* Generated from a weights file: the buffer score network's 118\n"
	                  " * parameters in file order (radeon_bo_score.h). */\n"
	                  "#define RADEON_BO_SCORE_DEFAULT_PARAMS 118\n"
	                  "static const float radeon_bo_score_default_weights[RADEON_BO_SCORE_DEFAULT_PARAMS] = {\n";
	char buf[64];
	for (int i = 0; i < kMlpParams; i++) {
		std::snprintf(buf, sizeof buf, "   %af,\n", static_cast<double>(p[i]));
		out += buf;
	}
	out += "};\n";
	return out;
}

} // namespace vramlab
