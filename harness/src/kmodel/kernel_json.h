// The kernel model's figures as JSON (kernel_json.cc).
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "kmodel/kernel_model.h"

namespace vramlab {

nlohmann::json kernel_result_json(const KernelResult &r);
// {"every", "operations", "holes_min", "holes_max", "swaps"}: both models' alike.
nlohmann::json timeline_json(const Timeline &t);

// Frame-time percentiles (nearest rank) and stutter: frames longer than twice the median.
struct FrameTimes {
	double p50_us = 0, p95_us = 0, p99_us = 0, max_us = 0;
	uint64_t stutter = 0;
};
FrameTimes frame_times(std::vector<double> times_us);
// Stutter against another run's yardstick: the frames longer than twice `median_us`. A policy
// compared with stock counts its frames over twice stock's median, so that a faster typical
// frame (a lower median) does not count as more stutter.
uint64_t stutter_against(const std::vector<double> &times_us, double median_us);

} // namespace vramlab
