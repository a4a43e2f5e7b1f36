// Scores from the future: what a clairvoyant Mesa would send under the series' score contract.
#pragma once

#include <cstdint>
#include <vector>

#include "kmodel/kernel_trace.h"

namespace vramlab {

// One score per relocation of kt (kt.relocs order): a BO named again d submissions later
// (d capped at `window`, radeon.bo_score_window) gets the score whose key offset is d - 1, so
// in key order the BO needed last is evicted first, as far as a key of that window can say
// (radeon_evict_key(): offset ((0xffffffff - score) * window) >> 32). A BO never named again
// gets the largest offset; one named by the next submission is neutral.
std::vector<uint32_t> oracle_scores(const KernelTrace &kt, uint32_t window);

// kt with those scores, every submission marked as having sent a score chunk.
KernelTrace with_oracle_scores(const KernelTrace &kt, uint32_t window);

} // namespace vramlab
