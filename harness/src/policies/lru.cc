#include "policies/lru.h"

namespace vramlab {

SimResult simulate_lru(const CompactTrace &t, const SimConfig &c) { return replay<LruPolicy>(t, c); }

} // namespace vramlab
