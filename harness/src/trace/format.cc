// Format detection, the factories and CsExpander; each format lives in format_<name>.cc.
#include "trace/format.h"

#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>

#include "trace/format_detail.h"

namespace vramlab {

size_t TraceReader::next_batch(Event *out, size_t n)
{
	rethrow_deferred();
	size_t got = 0;
	try {
		while (got < n && next(out[got]))
			if (out[got++].type == EventType::Cs)
				break;
	} catch (...) {
		return defer_error(got);
	}
	return got;
}

void CsExpander::expand(const Event &cs)
{
	cs_++;
	pending_.assign(cs.relocs, cs.relocs + cs.nrelocs);
	at_ = 0;
	time_us_ = cs.time_us;
}

void CsExpander::reloc_event(Event &e)
{
	const CsReloc &r = pending_[at_++];
	e = Event{};
	e.type = r.write_domain ? EventType::Write : EventType::Read;
	e.domain = r.write_domain ? r.write_domain : r.read_domains;
	e.high_prio = r.high_prio_use;
	e.id = r.id;
	e.time_us = time_us_;
}

bool CsExpander::next(Event &e)
{
	for (;;) {
		if (at_ < pending_.size()) {
			reloc_event(e);
			return true;
		}
		if (!in_.next(e))
			return false;
		if (e.type != EventType::Cs)
			return true;
		expand(e);
	}
}

size_t CsExpander::next_batch(Event *out, size_t n)
{
	for (;;) {
		if (at_ < pending_.size()) {
			size_t got = 0;
			while (got < n && at_ < pending_.size())
				reloc_event(out[got++]);
			return got;
		}
		size_t got = in_.next_batch(out, n);
		if (!got || out[got - 1].type != EventType::Cs)
			return got;
		expand(out[got - 1]); // the batch's last: its relocations come next
		if (--got)
			return got;
	}
}

namespace {

std::unique_ptr<TraceReader> open_source(std::unique_ptr<ByteSource> src)
{
	char magic[8] = {};
	size_t got = 0;
	while (got < 8) {
		uint8_t b;
		if (!src->get(b))
			break;
		magic[got++] = static_cast<char>(b);
	}
	if (got == 0)
		src->fail_at(0, "empty file: not a trace");
	if (got == 8 && std::memcmp(magic, detail::kBostatsMagic, 8) == 0)
		return detail::bostats1_reader(std::move(src));
	if (got == 8 && std::memcmp(magic, detail::kV2Magic, 8) == 0)
		return detail::v2_reader(std::move(src));
	// A compressed stream must be one of the binary formats: anything else is a bad magic.
	if (src->compression() != Compression::None && !(got > 0 && (magic[0] == '0' || magic[0] == 's')))
		src->fail_at(0, "bad magic: expected \"bostats1\" or \"vrltrace\"");
	if (got > 0 && magic[0] != '0' && magic[0] != 's' && magic[0] != '\n' && magic[0] != ' ')
		src->fail_at(0, "bad magic: not bostats1, vrltrace or a text trace");
	return detail::text_reader(std::move(src), std::string(magic, got));
}

} // namespace

namespace {
std::mutex warn_mu;
WarningHandler warn_handler;
std::set<std::string> warned;
} // namespace

void set_warning_handler(WarningHandler h)
{
	std::lock_guard lk(warn_mu);
	warn_handler = std::move(h);
}

void warn(const std::string &text)
{
	std::lock_guard lk(warn_mu);
	if (warn_handler) {
		warn_handler(text);
		return;
	}
	if (warned.insert(text).second)
		std::fprintf(stderr, "vramlab: warning: %s\n", text.c_str());
}

std::string_view format_name(Format f)
{
	switch (f) {
	case Format::Text: return "text";
	case Format::Bostats1: return "bostats1";
	case Format::V2: return "v2";
	}
	return "?";
}

Format parse_format(const std::string &name)
{
	if (name == "text")
		return Format::Text;
	if (name == "bostats1")
		return Format::Bostats1;
	if (name == "v2")
		return Format::V2;
	throw TraceError("unknown trace format \"" + name + "\" (expected text, bostats1 or v2)");
}

std::unique_ptr<TraceReader> open_trace(const std::string &path)
{
	return open_source(std::make_unique<ByteSource>(path));
}

std::unique_ptr<TraceReader> open_trace_memory(const uint8_t *data, size_t size,
                                               const std::string &name)
{
	return open_source(std::make_unique<ByteSource>(data, size, name));
}

std::unique_ptr<TraceWriter> make_writer(Format f, const std::string &path, const TraceInfo &info,
                                         Output mode)
{
	switch (f) {
	case Format::Text: return detail::text_writer(path, mode);
	case Format::Bostats1: return detail::bostats1_writer(path, info.declared_buffers, mode);
	case Format::V2: return detail::v2_writer(path, info, mode);
	}
	throw TraceError("bad format");
}

bool is_kernel_view(const TraceInfo &info)
{
	// vradeon_drm_shim.c writes "source=vradeon (the kernel's view)"
	auto it = info.meta.find("source");
	return it != info.meta.end() && it->second.rfind("vradeon", 0) == 0;
}

} // namespace vramlab
