// The thesis's cost model (shared/docs/cost-model.md): one unit = one byte at VRAM speed.
#pragma once
#include <algorithm>
#include <cstdint>

namespace vramlab::cost {

inline constexpr uint64_t kLatency = 4640000; // PCIe latency
inline constexpr uint64_t kRamFactor = 18;     // 232 GB/s / 12.8 GB/s
inline constexpr uint64_t kClamp = 0xffffffffu; // every single charge is clamped to 2^32 - 1

inline uint64_t clamp(uint64_t c) { return std::min(c, kClamp); }
// Between RAM and VRAM, either way: transfer + latency + stall (half a latency).
inline uint64_t move(uint64_t b) { return clamp(kRamFactor * b + kLatency / 2 + kLatency); }
inline uint64_t gpu_in_vram(uint64_t b) { return clamp(b); }
inline uint64_t gpu_read_ram(uint64_t b) { return clamp(kRamFactor * b + kLatency); }
inline uint64_t gpu_write_ram(uint64_t b) { return clamp(3 * kRamFactor * b + kLatency); }
inline uint64_t cpu_vram(uint64_t b) { return clamp(b + kLatency); }
inline uint64_t cpu_ram(uint64_t b) { return clamp(kRamFactor * b); }

} // namespace vramlab::cost
