// Trace readers and writers for the three formats: the thesis's raw text, its binary `bostats1`,
// and vramlab's v2 (docs/trace-v2.md). Readers stream: one event at a time.
#pragma once
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "trace/event.h"
#include "trace/io.h"

namespace vramlab {

enum class Format { Text, Bostats1, V2 };
std::string_view format_name(Format f);
Format parse_format(const std::string &name); // "text", "bostats1", "v2"

struct TraceInfo {
	Format format = Format::Text;
	uint32_t declared_buffers = 0; // bostats1 header N (0 when the format has none)
	std::map<std::string, std::string> meta; // v2 header
	// v2: the file's minor version (0 to 3), as read. The v2 writer writes 2.2 or 2.3 when this
	// says so and 2.1 otherwise (docs/trace-v2.md, "Versions"), so a conversion keeps the
	// source's.
	uint8_t v2_minor = 0;
	// v2: the file stops early and was read up to its last complete FRAME (set at its end;
	// a warning says so).
	bool truncated = false;
};

// Warnings of the readers (a truncated v2 file read up to its last FRAME). The default handler
// prints "vramlab: warning: <text>" on stderr, each distinct text once per process (a trace
// read twice warns once); set_warning_handler(nullptr) restores it. Thread-safe.
using WarningHandler = std::function<void(const std::string &)>;
void set_warning_handler(WarningHandler h);
void warn(const std::string &text);

class TraceReader {
public:
	virtual ~TraceReader() = default;
	// The next event; false at the end of the trace. Throws TraceError on bad input.
	virtual bool next(Event &e) = 0;
	// Up to n next events into out, as many calls of next() would give them: 0 only at the
	// end. A CS event ends its batch (its relocations stay valid only until the next read).
	// An error after some events of a batch were read is thrown by the next call, so that
	// every event next() would give before it comes first. Readers on the hot path
	// (bostats1, the replay filters) override it to save a virtual call and a pass over the
	// Event per event.
	virtual size_t next_batch(Event *out, size_t n);
	// About how many events the trace holds, if the format can tell cheaply (else 0).
	virtual uint64_t events_hint() const { return 0; }
	const TraceInfo &info() const { return info_; }

protected:
	// For next_batch(): first, an error deferred by the call before ...
	void rethrow_deferred()
	{
		if (deferred_)
			std::rethrow_exception(std::exchange(deferred_, nullptr));
	}
	// ... and in its catch (...), with the events read: 0 rethrows now, else it waits.
	size_t defer_error(size_t got)
	{
		if (!got)
			throw;
		deferred_ = std::current_exception();
		return got;
	}
	TraceInfo info_;

private:
	std::exception_ptr deferred_;
};

// Opens any of the three formats (compressed or not) and detects which it is.
std::unique_ptr<TraceReader> open_trace(const std::string &path);
// The same, from memory (fuzzing and tests).
std::unique_ptr<TraceReader> open_trace_memory(const uint8_t *data, size_t size,
                                               const std::string &name);

// Reads CS records as one READ (or WRITE, when the relocation has a write domain) per buffer,
// for what counts accesses the thesis's way (stats, the thesis model, bostats1 and text output);
// its high_prio is the relocation's high-priority use (v2.2). Every other event passes through.
class CsExpander : public TraceReader {
public:
	explicit CsExpander(TraceReader &inner) : in_(inner) { info_ = inner.info(); }
	bool next(Event &e) override;
	size_t next_batch(Event *out, size_t n) override;
	uint64_t events_hint() const override { return in_.events_hint(); }
	uint64_t cs_records() const { return cs_; }

private:
	void expand(const Event &cs);
	void reloc_event(Event &e);
	TraceReader &in_;
	std::vector<CsReloc> pending_;
	size_t at_ = 0;
	uint64_t time_us_ = 0, cs_ = 0;
};

class TraceWriter {
public:
	virtual ~TraceWriter() = default;
	virtual void write(const Event &e) = 0;
	virtual void close() = 0;
};

// bostats1 needs the buffer count up front (info.declared_buffers). An Output::Replace file
// appears whole at close() or not at all; Output::Live is a recording written as it goes.
std::unique_ptr<TraceWriter> make_writer(Format f, const std::string &path, const TraceInfo &info,
                                         Output mode = Output::Replace);

// A trace the virtual radeon wrote (its header's source=vradeon...): the kernel's view, one
// CREATE per GEM object and every relocation the kernel got, the winsys's fence last in each
// CS; not Mesa's own trace (docs/score.md, "Kernel-view traces").
bool is_kernel_view(const TraceInfo &info);

// The bostats1 index width for N buffers (trace-format.md).
inline unsigned bostats1_index_bytes(uint32_t n) { return n < 255 ? 1 : n < 65535 ? 2 : 3; }

} // namespace vramlab
