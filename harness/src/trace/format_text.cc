// The thesis's raw text form: "<addr> <event> @<ms>", one event a line.
#include <charconv>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "trace/format_detail.h"

namespace vramlab {

namespace {

class TextReader : public TraceReader {
public:
	TextReader(std::unique_ptr<ByteSource> src, std::string prefix)
	    : src_(std::move(src)), prefix_(std::move(prefix))
	{
		info_.format = Format::Text;
	}

	bool next(Event &e) override
	{
		std::string line;
		for (;;) {
			if (!getline(line))
				return false;
			line_no_++;
			if (line.find_first_not_of(" \t\r") == std::string::npos)
				continue;
			if (parse(line, e))
				return true;
		}
	}

private:
	bool getline(std::string &line)
	{
		line.clear();
		bool any = false;
		for (;;) {
			uint8_t c;
			if (prefix_pos_ < prefix_.size()) {
				c = static_cast<uint8_t>(prefix_[prefix_pos_++]);
			} else if (!src_->get(c)) {
				return any;
			}
			any = true;
			if (c == '\n')
				return true;
			if (c == 0) {
				line_no_++;
				fail("NUL byte in a text trace");
			}
			if (line.size() > 4096) {
				line_no_++;
				fail("line too long");
			}
			line.push_back(static_cast<char>(c));
		}
	}

	[[noreturn]] void fail(const std::string &what) const
	{
		throw TraceError(src_->name() + ": line " + std::to_string(line_no_) + ": " + what);
	}

	static bool consume(std::string_view &s, std::string_view lit)
	{
		if (s.substr(0, lit.size()) != lit)
			return false;
		s.remove_prefix(lit.size());
		return true;
	}

	uint64_t number(std::string_view &s, int base, const char *what)
	{
		uint64_t v = 0;
		auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
		if (ec != std::errc() || p == s.data())
			fail(std::string("expected ") + what + " at \"" + std::string(s.substr(0, 20)) + "\"");
		s.remove_prefix(static_cast<size_t>(p - s.data()));
		return v;
	}

	uint64_t stamp(std::string_view &s)
	{
		if (!consume(s, "@"))
			fail("expected '@<milliseconds>'");
		uint64_t t = number(s, 10, "a millisecond time");
		while (!s.empty() && (s.front() == '\r' || s.front() == ' '))
			s.remove_prefix(1);
		if (!s.empty())
			fail("unexpected text after the time: \"" + std::string(s.substr(0, 20)) + "\"");
		return t;
	}

	bool parse(const std::string &l, Event &e)
	{
		std::string_view s(l);
		while (!s.empty() && s.front() == ' ')
			s.remove_prefix(1);
		if (consume(s, "started ")) {
			origin_ = stamp(s);
			have_origin_ = true;
			return false;
		}
		if (!consume(s, "0x"))
			fail("expected a buffer address (0x...) or 'started'");
		const uint64_t addr = number(s, 16, "a hexadecimal address");
		e = Event{};
		if (consume(s, " created, size ")) {
			e.type = EventType::Create;
			e.size = number(s, 10, "a size");
			if (!consume(s, ", prio "))
				fail("expected ', prio <0|1>'");
			uint64_t p = number(s, 10, "a priority");
			if (p > 1)
				fail("priority must be 0 or 1");
			e.high_prio = p;
			if (!consume(s, ", "))
				fail("expected ', @<milliseconds>'");
			e.id = creates_++;
			live_[addr] = e.id;
		} else {
			if (consume(s, " cpu mapped "))
				e.type = EventType::Cpu;
			else if (consume(s, " read "))
				e.type = EventType::Read;
			else if (consume(s, " write "))
				e.type = EventType::Write;
			else if (consume(s, " destroyed "))
				e.type = EventType::Destroy;
			else
				fail("unknown event (expected created, cpu mapped, read, write or destroyed)");
			auto it = live_.find(addr);
			if (it == live_.end()) {
				char buf[32];
				std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(addr));
				fail(std::string("event on buffer ") + buf + " that was never created");
			}
			// An address keeps naming its last buffer after a destroy: events that follow are
			// events on a destroyed buffer, exactly as in the binary corpus.
			e.id = it->second;
		}
		const uint64_t t = stamp(s);
		if (!have_origin_) {
			origin_ = t;
			have_origin_ = true;
		}
		e.time_us = (t > origin_ ? t - origin_ : 0) * 1000;
		return true;
	}

	std::unique_ptr<ByteSource> src_;
	std::string prefix_;
	size_t prefix_pos_ = 0;
	uint64_t line_no_ = 0;
	uint64_t origin_ = 0;
	bool have_origin_ = false;
	uint32_t creates_ = 0;
	std::unordered_map<uint64_t, uint32_t> live_;
};

class TextWriter : public TraceWriter {
public:
	TextWriter(const std::string &path, Output mode) : sink_(path, Compression::None, 0, mode)
	{
		out("started @0\n");
	}
	void write(const Event &e) override
	{
		char buf[128];
		// Synthetic, unique addresses: id + 1, so reading it back gives the same ids.
		const auto addr = static_cast<unsigned long long>(e.id) + 1;
		const auto ms = static_cast<unsigned long long>(e.time_us / 1000);
		switch (e.type) {
		case EventType::Create:
			std::snprintf(buf, sizeof buf, "0x%llx created, size %llu, prio %d, @%llu\n", addr,
			              static_cast<unsigned long long>(e.size), e.high_prio ? 1 : 0, ms);
			break;
		case EventType::Read: std::snprintf(buf, sizeof buf, "0x%llx read @%llu\n", addr, ms); break;
		case EventType::Write: std::snprintf(buf, sizeof buf, "0x%llx write @%llu\n", addr, ms); break;
		case EventType::Cpu: std::snprintf(buf, sizeof buf, "0x%llx cpu mapped @%llu\n", addr, ms); break;
		case EventType::Destroy:
			std::snprintf(buf, sizeof buf, "0x%llx destroyed @%llu\n", addr, ms);
			break;
		default: return; // not representable; convert reports these
		}
		out(buf);
	}
	void close() override { sink_.close(); }

private:
	void out(const char *s) { sink_.write(s, std::strlen(s)); }
	ByteSink sink_;
};


} // namespace

namespace detail {

std::unique_ptr<TraceReader> text_reader(std::unique_ptr<ByteSource> src, std::string head)
{
	return std::make_unique<TextReader>(std::move(src), std::move(head));
}

std::unique_ptr<TraceWriter> text_writer(const std::string &path, Output mode)
{
	return std::make_unique<TextWriter>(path, mode);
}

} // namespace detail

} // namespace vramlab
