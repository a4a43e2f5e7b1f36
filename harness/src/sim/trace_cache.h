// A cache of decoded traces, so the second run on a trace does not decode it again: decoding
// gzip'd bostats1 is most of a single run's time. One file per (trace, model input, defect
// handling) under ${VRAMLAB_CACHE:-~/.cache/vramlab}/decoded/, keyed by the trace's contents
// (SHA-256), size and file name, so copies of a corpus share it; written atomically (rename).
// Bounded: past VRAMLAB_TRACE_CACHE_MAX_MIB (8192) the least recently used entries are removed.
// VRAMLAB_TRACE_CACHE=0 turns it off. A cache file that does not match (or is damaged) is
// ignored and rewritten.
#pragma once
#include <functional>
#include <string>

#include "kmodel/kernel_trace.h"
#include "sim/compact.h"

namespace vramlab {

CompactTrace cached_compact(const std::string &path, ReplayOptions opt,
                            const std::function<CompactTrace()> &decode);
KernelTrace cached_kernel(const std::string &path, ReplayOptions opt,
                          const std::function<KernelTrace()> &decode);

} // namespace vramlab
