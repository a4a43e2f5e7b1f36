// The readers and writers of each format (format_*.cc), for format.cc's detection and
// factories. Internal to src/trace.
#pragma once
#include <memory>

#include "trace/format.h"
#include "trace/io.h"

namespace vramlab::detail {

inline constexpr char kBostatsMagic[8] = {'b', 'o', 's', 't', 'a', 't', 's', '1'};
inline constexpr char kV2Magic[8] = {'v', 'r', 'l', 't', 'r', 'a', 'c', 'e'};

std::unique_ptr<TraceReader> bostats1_reader(std::unique_ptr<ByteSource> src);
std::unique_ptr<TraceWriter> bostats1_writer(const std::string &path, uint32_t buffers, Output mode);
// `head`: the bytes already read from src while detecting the format
std::unique_ptr<TraceReader> text_reader(std::unique_ptr<ByteSource> src, std::string head);
std::unique_ptr<TraceWriter> text_writer(const std::string &path, Output mode);
std::unique_ptr<TraceReader> v2_reader(std::unique_ptr<ByteSource> src);
std::unique_ptr<TraceWriter> v2_writer(const std::string &path, const TraceInfo &info, Output mode);

} // namespace vramlab::detail
