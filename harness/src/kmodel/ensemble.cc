#include "kmodel/ensemble.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace vramlab {

uint64_t scanout_bytes(uint32_t w, uint32_t h)
{
	const uint64_t pitch = (uint64_t(w) + 63) / 64 * 64 * 4;
	return (pitch * h + 4095) / 4096 * 4096;
}

namespace {

// What radeon pins in VRAM (Linux 6.12): radeon_ttm_init() reserves 256 KiB of stolen VGA
// memory; radeonfb_create_pinned_object() pins the fbdev console's scanout; a desktop (X or a
// Wayland compositor) keeps its front buffer pinned while it is scanned out
// (radeon_crtc_page_flip()) and a 64x64 ARGB cursor (radeon_crtc_cursor_set()); UVD's
// firmware, stack, heap and 10 session slots (radeon_uvd_init(): 200 + 256 + 10 x 50 KiB plus
// the firmware, about 128 KiB) on boards with UVD. Rings and the IB pool are in GTT
// (radeon_ring_init(), radeon_ib_pool_init()), so they take no VRAM.
constexpr uint64_t kVga = 256 << 10, kCursor = 64 * 64 * 4;
constexpr uint64_t kUvd = (200 + 256 + 10 * 50 + 128) << 10;

struct Board {
	const char *res; // "" headless
	uint32_t w, h;
	bool desktop, uvd, vga;
	uint32_t period_ms;
};

Variation make(const Board &b)
{
	Variation v;
	std::string name;
	if (!b.vga) {
		name = "nothing pinned";
	} else {
		v.pinned.push_back(kVga);
		if (b.uvd)
			v.pinned.push_back(kUvd);
		if (b.w) {
			v.pinned.push_back(scanout_bytes(b.w, b.h));
			if (b.desktop) {
				v.pinned.push_back(scanout_bytes(b.w, b.h));
				v.pinned.push_back(kCursor);
			}
		}
		name = b.w ? std::string(b.res) + (b.desktop ? " console+desktop" : " console")
		           : "headless";
		if (b.uvd)
			name += ", UVD";
	}
	name += ", " + std::to_string(b.period_ms) + " ms";
	static std::vector<std::string> names; // the table lives as long as the program
	names.reserve(kMaxEnsemble);
	names.push_back(name);
	v.name = names.back().c_str();
	v.period_ms = b.period_ms;
	return v;
}

} // namespace

const std::vector<Variation> &variations()
{
	// Each period appears four times, each resolution twice, with and without a desktop or
	// UVD where it can; variation 0 is the proven model.
	static const std::vector<Variation> v = [] {
		const Board boards[] = {
		        {"", 0, 0, false, false, false, 1},
		        {"", 0, 0, false, false, true, 2},
		        {"1024x768", 1024, 768, false, false, true, 4},
		        {"1280x1024", 1280, 1024, false, true, true, 8},
		        {"1366x768", 1366, 768, true, false, true, 1},
		        {"1680x1050", 1680, 1050, false, true, true, 2},
		        {"1920x1080", 1920, 1080, true, false, true, 4},
		        {"1920x1200", 1920, 1200, true, true, true, 8},
		        {"2560x1440", 2560, 1440, true, false, true, 2},
		        {"", 0, 0, false, true, true, 1},
		        {"1024x768", 1024, 768, true, true, true, 8},
		        {"1280x1024", 1280, 1024, true, false, true, 4},
		        {"1366x768", 1366, 768, false, true, true, 2},
		        {"1680x1050", 1680, 1050, true, false, true, 8},
		        {"1920x1080", 1920, 1080, false, true, true, 1},
		        {"2560x1440", 2560, 1440, true, true, true, 4},
		};
		std::vector<Variation> out;
		for (const Board &b : boards)
			out.push_back(make(b));
		return out;
	}();
	return v;
}

std::vector<uint64_t> pinned_for(const Variation &v, uint64_t vram_bytes)
{
	std::vector<uint64_t> out;
	uint64_t sum = 0;
	for (uint64_t b : v.pinned) {
		if (sum + b > vram_bytes / 4)
			break;
		sum += b;
		out.push_back(b);
	}
	return out;
}

std::string CostBand::label() const
{
	char s[96];
	int n = std::snprintf(s, sizeof s, "gtt %gx, PCIe %g GB/s", gtt_factor, pcie_gbps);
	if (move_latency_us >= 0)
		std::snprintf(s + n, sizeof s - size_t(n), ", move %g us", move_latency_us);
	return s;
}

std::string CostBand::column() const
{
	char s[64];
	int n = std::snprintf(s, sizeof s, "x%g %gG", gtt_factor, pcie_gbps);
	if (move_latency_us >= 0)
		std::snprintf(s + n, sizeof s - size_t(n), " %gus", move_latency_us);
	return s;
}

double band_transfer_us(uint64_t moved_bytes, uint64_t moves, uint64_t gtt_bytes,
                        const KernelConfig &c, const CostBand &b)
{
	return transfer_time_us(moved_bytes, moves, gtt_bytes, b.pcie_gbps, c, b.gtt_factor,
	                        b.move_latency_us);
}

std::vector<double> parse_factors(const std::string &s, const char *what, double max)
{
	std::vector<double> out;
	std::stringstream ss(s);
	if (!s.empty() && s.back() == ',') // getline would not see the empty last item
		throw std::invalid_argument(std::string(what) + ": \"" + s + "\" has an empty item");
	for (std::string item; std::getline(ss, item, ',');) {
		if (item.empty())
			throw std::invalid_argument(std::string(what) + ": \"" + s + "\" has an empty item");
		size_t end = 0;
		double v = 0;
		try {
			v = std::stod(item, &end);
		} catch (const std::exception &) {
			end = 0;
		}
		if (item.empty() || end != item.size() || !std::isfinite(v))
			throw std::invalid_argument(std::string(what) + ": \"" + item + "\" is not a number");
		if (v <= 0 || v > max) {
			char m[32];
			std::snprintf(m, sizeof m, "%g", max);
			throw std::invalid_argument(std::string(what) + ": " + item +
			                            " is out of range (0, " + m + "]");
		}
		if (std::find(out.begin(), out.end(), v) != out.end()) // a band twice weighs it twice
			throw std::invalid_argument(std::string(what) + ": \"" + item + "\" is given twice");
		out.push_back(v);
	}
	if (out.empty())
		throw std::invalid_argument(std::string(what) + ": is empty");
	return out;
}

} // namespace vramlab
