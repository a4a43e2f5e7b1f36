// The thesis's scoring network: 9 inputs, 9 hidden neurons, one output, smootherstep everywhere.
// The exact arithmetic is specified in docs/score.md; Mesa's copy must match it bit for bit.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace vramlab {

inline constexpr int kMlpInputs = 9;
inline constexpr int kMlpParams = 118;

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
	static std::array<float, kMlpInputs> inputs(const BufferStats &s);

	std::string to_text() const;     // a weights file
	std::string to_c_header() const; // hexadecimal float literals, exact
};

} // namespace vramlab
