// Sizes as the command line writes them, and a policy name's optional "@SIZE" threshold:
// "minmax@256K" is min-max placement with buffers of 256 KiB and more placed top-down, so one
// run can hold several thresholds (the thesis's Figure 16).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace vramlab {

// "512", "512K", "1M", "2G" (also KiB/MiB/GiB) to bytes; std::invalid_argument otherwise.
uint64_t parse_size_text(const std::string &s);

struct PolicyName {
	std::string base;                  // the name without "@SIZE"
	std::optional<uint64_t> threshold; // bytes, when "@SIZE" was given
};
// std::invalid_argument for an empty or unparsable size after '@'.
PolicyName split_policy_name(const std::string &name);

} // namespace vramlab
