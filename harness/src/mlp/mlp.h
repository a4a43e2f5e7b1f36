// The thesis's scoring network: 9 inputs, 9 hidden neurons, one output, smootherstep everywhere.
// The exact arithmetic is specified in docs/score.md; Mesa's copy must match it bit for bit.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace vramlab {

inline constexpr int kMlpInputs = 9;
inline constexpr int kMlpParams = 118;
// Where each layer's parameters start (docs/score.md): in_w[9], in_b[9], per hidden neuron its
// 9 weights then its bias, out_w[9] then out_b.
inline constexpr int kMlpInW = 0, kMlpInB = 9, kMlpHid = 18, kMlpOut = 108;

// The raw statistics a score is computed from (docs/score.md).
struct BufferStats {
	uint64_t size = 0;
	uint64_t vram_size = 0;
	bool high_prio = false;
	uint64_t since_read = 0, since_write = 0, since_cpu = 0; // ticks
	uint64_t reads = 0, writes = 0, cpu_ops = 0;
};

struct Mlp {
	std::array<float, kMlpParams> p{};

	// Parses a weights file: 118 numbers, '#' comments. Throws TraceError naming file and line.
	static Mlp load(const std::string &path);
	static Mlp parse(const std::string &text, const std::string &name);
	static Mlp from_genome(const std::array<uint8_t, kMlpParams> &genome);

	// The network output scaled to a u32 (docs/score.md).
	uint32_t score(const BufferStats &s) const;
	uint32_t score_inputs(const std::array<float, kMlpInputs> &x) const;
	// The output neuron's pre-activation z = ((out_w[0]*h[0] + ...) + out_w[8]*h[8]) + out_b,
	// in the same float arithmetic: the score is u32(min(s(z), 0.999)). Calibration reads it.
	float output_z(const BufferStats &s) const;
	float output_z_inputs(const std::array<float, kMlpInputs> &x) const;
	// The same network with the output layer rescaled so that z_lo..z_hi maps onto 0..1:
	// out_w / (z_hi - z_lo), (out_b - z_lo) / (z_hi - z_lo), computed in double, rounded once.
	Mlp rescaled_output(double z_lo, double z_hi) const;
	static std::array<float, kMlpInputs> inputs(const BufferStats &s);

	std::string to_text() const;     // a weights file
	std::string to_c_header() const; // hexadecimal float literals, exact
};

// A network prepared for repeated scoring: terms with a zero weight and hidden neurons with a
// zero output weight are left out. That is exact, not an approximation: every activation is a
// finite number in [0, 1], so a zero weight adds a signed zero, which changes neither a non-zero
// sum nor the final u32 (tests check the bits on random pruned networks). The thesis's own
// network discarded 6 of its 9 inputs; a dense network costs the same as Mlp::score.
class MlpPlan {
public:
	explicit MlpPlan(const Mlp &m);
	uint32_t score(const BufferStats &s) const;
	// Does the score depend on input i (0 size, 1 VRAM size, ...: docs/score.md)?
	bool uses_input(int i) const { return inputs_used_ >> i & 1; }

private:
	struct Term {
		uint8_t input;
		float w;
	};
	struct Neuron {
		uint8_t first, count; // slice of terms_
		float bias, out_w;
	};
	Mlp m_;
	uint16_t inputs_used_ = 0; // bit i: input i feeds some kept term
	std::vector<Term> terms_;
	std::vector<Neuron> hidden_;
};

} // namespace vramlab
