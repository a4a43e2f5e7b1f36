#include "trace/format.h"

#include <charconv>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace vramlab {

namespace {

constexpr char kBostatsMagic[8] = {'b', 'o', 's', 't', 'a', 't', 's', '1'};
constexpr char kV2Magic[8] = {'v', 'r', 'l', 't', 'r', 'a', 'c', 'e'};
constexpr uint32_t kV2MaxHeader = 1 << 20;

enum : uint8_t { kV2End = 15 };
// v2.0 files have no CS records; v2.1 adds them (docs/trace-v2.md).
constexpr uint8_t kV2Major = 2, kV2Minor = 1;
constexpr uint64_t kV2MaxRelocs = 1 << 20;
// A CS relocation's domain byte: read domains, write domain, "a score follows".
constexpr unsigned kRelocWriteShift = 3, kRelocScoreBit = 0x40;

// ---------------------------------------------------------------------------------------------
// bostats1: gzip stream, magic, u32 N, packed entries (trace-format.md).
class Bostats1Reader : public TraceReader {
public:
	explicit Bostats1Reader(std::unique_ptr<ByteSource> src) : src_(std::move(src))
	{
		info_.format = Format::Bostats1;
		uint8_t n[4];
		if (!src_->read(n, 4))
			src_->fail("truncated header: the buffer count is missing");
		info_.declared_buffers = n[0] | n[1] << 8 | n[2] << 16 | uint32_t(n[3]) << 24;
		index_bytes_ = bostats1_index_bytes(info_.declared_buffers);
	}
	// Most entries are 1 + index bytes; creates carry 4 more (few).
	uint64_t events_hint() const override { return src_->size_hint() / (1 + index_bytes_); }

	bool next(Event &e) override
	{
		const uint64_t off = src_->offset();
		uint8_t head;
		uint32_t index = 0;
		if (const uint8_t *p = src_->peek(1 + index_bytes_)) {
			// Fast path: the whole entry head is buffered.
			head = p[0];
			for (unsigned i = 0; i < index_bytes_; i++)
				index |= uint32_t(p[1 + i]) << (8 * i);
			src_->skip(1 + index_bytes_);
		} else {
			if (!src_->get(head))
				return false;
			uint8_t idx[3] = {0, 0, 0};
			if (!src_->read(idx, index_bytes_))
				src_->fail_at(off, "truncated entry");
			index = idx[0] | idx[1] << 8 | idx[2] << 16;
		}
		const unsigned id = head >> 5;
		if (id > 4)
			src_->fail_at(off, "unknown event id " + std::to_string(id));
		if (index >= info_.declared_buffers)
			src_->fail_at(off, "buffer index " + std::to_string(index) +
			                       " >= buffer count " + std::to_string(info_.declared_buffers));
		time_ms_ += head & 31;
		e = Event{};
		e.type = static_cast<EventType>(id);
		e.id = index;
		e.time_us = time_ms_ * 1000;
		if (e.type == EventType::Create) {
			if (index != creates_)
				src_->fail_at(off, "create of buffer " + std::to_string(index) +
				                       " out of order (expected " + std::to_string(creates_) + ")");
			uint8_t s[4];
			if (!src_->read(s, 4))
				src_->fail_at(off, "truncated create entry");
			const uint32_t v = s[0] | s[1] << 8 | s[2] << 16 | uint32_t(s[3]) << 24;
			e.high_prio = v >> 31;
			e.size = v & 0x7fffffffu;
			creates_++;
		} else if (index >= creates_) {
			src_->fail_at(off, std::string(event_name(e.type)) + " of buffer " +
			                       std::to_string(index) + " before its create");
		}
		return true;
	}

private:
	std::unique_ptr<ByteSource> src_;
	unsigned index_bytes_;
	uint32_t creates_ = 0;
	uint64_t time_ms_ = 0;
};

class Bostats1Writer : public TraceWriter {
public:
	Bostats1Writer(const std::string &path, uint32_t n) : sink_(path, Compression::Gzip), n_(n)
	{
		sink_.write(kBostatsMagic, 8);
		put_le(n, 4);
		index_bytes_ = bostats1_index_bytes(n);
	}
	void write(const Event &e) override
	{
		if (e.type > EventType::Cpu)
			return; // not representable; convert reports these
		if (e.id >= n_ || e.id >= (1u << 24))
			throw TraceError("bostats1 writer: buffer index " + std::to_string(e.id) +
			                 " does not fit (buffer count " + std::to_string(n_) + ")");
		const uint64_t ms = e.time_us / 1000;
		uint64_t dt = ms >= last_ms_ ? ms - last_ms_ : 0;
		last_ms_ = ms;
		if (dt > 31)
			dt = 31;
		sink_.put(static_cast<uint8_t>(static_cast<unsigned>(e.type) << 5 | dt));
		put_le(e.id, index_bytes_);
		if (e.type == EventType::Create) {
			if (e.size > 0x7fffffffu)
				throw TraceError("bostats1 writer: buffer " + std::to_string(e.id) + " size " +
				                 std::to_string(e.size) + " does not fit 31 bits");
			put_le(static_cast<uint32_t>(e.size) | uint32_t(e.high_prio) << 31, 4);
		}
	}
	void close() override { sink_.close(); }

private:
	void put_le(uint32_t v, unsigned bytes)
	{
		for (unsigned i = 0; i < bytes; i++)
			sink_.put(static_cast<uint8_t>(v >> (8 * i)));
	}
	ByteSink sink_;
	uint32_t n_;
	unsigned index_bytes_;
	uint64_t last_ms_ = 0;
};

// ---------------------------------------------------------------------------------------------
// The thesis's raw text form: "<addr> <event> @<ms>", one event a line.
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
	TextWriter(const std::string &path) : sink_(path, Compression::None) { out("started @0\n"); }
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

// ---------------------------------------------------------------------------------------------
// v2 (docs/trace-v2.md).
class V2Reader : public TraceReader {
public:
	explicit V2Reader(std::unique_ptr<ByteSource> src) : src_(std::move(src))
	{
		info_.format = Format::V2;
		uint8_t h[6];
		if (!src_->read(h, 6))
			src_->fail("truncated header");
		if (h[0] != kV2Major || h[1] > kV2Minor)
			src_->fail_at(8, "unsupported version " + std::to_string(h[0]) + "." +
			                     std::to_string(h[1]) + " (this reader knows 2.0 and 2.1)");
		minor_ = h[1];
		const uint32_t len = h[2] | h[3] << 8 | h[4] << 16 | uint32_t(h[5]) << 24;
		if (len > kV2MaxHeader)
			src_->fail_at(10, "header length " + std::to_string(len) + " exceeds 1 MiB");
		std::string text(len, '\0');
		if (!src_->read(text.data(), len))
			src_->fail("truncated header text");
		size_t pos = 0;
		while (pos < text.size()) {
			size_t end = text.find('\n', pos);
			if (end == std::string::npos)
				end = text.size();
			std::string line = text.substr(pos, end - pos);
			size_t eq = line.find('=');
			if (eq == std::string::npos || eq == 0)
				src_->fail_at(14 + pos, "header line without key=value: \"" + line.substr(0, 40) + "\"");
			info_.meta[line.substr(0, eq)] = line.substr(eq + 1);
			pos = end + 1;
		}
	}

	bool next(Event &e) override
	{
		for (;;) {
			if (ended_) {
				uint8_t extra;
				if (src_->get(extra))
					src_->fail_at(src_->offset() - 1, "data after the END record");
				return false;
			}
			const uint64_t off = src_->offset();
			uint8_t tag;
			if (!src_->get(tag))
				src_->fail_at(off, "truncated trace: the stream stops without an END record");
			const unsigned type = tag & 15, domain = tag >> 4;
			if (domain > 7)
				src_->fail_at(off, "domain bits " + std::to_string(domain) + " out of range");
			const uint64_t dt = uleb(off);
			if (type == kV2End) {
				const uint64_t count = uleb(off);
				if (count != records_)
					src_->fail_at(off, "END count " + std::to_string(count) + " but " +
					                       std::to_string(records_) + " records were read");
				ended_ = true;
				continue;
			}
			if (type > 8 || (type == 8 && minor_ < 1))
				src_->fail_at(off, "unknown record type " + std::to_string(type) +
				                       (type == 8 ? " (CS records need version 2.1)" : ""));
			records_++;
			time_us_ += dt;
			e = Event{};
			e.type = static_cast<EventType>(type);
			e.domain = static_cast<uint8_t>(domain);
			e.time_us = time_us_;
			switch (e.type) {
			case EventType::Create: {
				const uint64_t id = uleb(off);
				if (id != created_.size())
					src_->fail_at(off, "create of buffer " + std::to_string(id) +
					                       " out of order (expected " +
					                       std::to_string(created_.size()) + ")");
				if (id >= (1u << 29))
					src_->fail_at(off, "too many buffers");
				e.id = static_cast<uint32_t>(id);
				e.size = uleb(off);
				const uint64_t flags = uleb(off);
				if (flags > 1)
					src_->fail_at(off, "unknown create flags " + std::to_string(flags));
				e.high_prio = flags & 1;
				created_.push_back(false);
				break;
			}
			case EventType::Frame: break;
			case EventType::Cs: read_cs(off, e); break;
			case EventType::Context: {
				const uint64_t ctx = uleb(off);
				if (ctx > UINT32_MAX)
					src_->fail_at(off, "context id out of range");
				e.id = static_cast<uint32_t>(ctx);
				break;
			}
			default: {
				e.id = live_id(off, e.type);
				if (e.type == EventType::Score) {
					const uint64_t s = uleb(off);
					if (s > UINT32_MAX)
						src_->fail_at(off, "score " + std::to_string(s) + " exceeds 2^32-1");
					e.score = static_cast<uint32_t>(s);
				}
				if (e.type == EventType::Destroy)
					created_[e.id] = true; // dead from now on
			}
			}
			return true;
		}
	}

private:
	void read_cs(uint64_t off, Event &e)
	{
		if (e.domain)
			src_->fail_at(off, "domain bits on a CS record");
		const uint64_t ring = uleb(off), flags = uleb(off), n = uleb(off);
		if (ring > 255)
			src_->fail_at(off, "ring " + std::to_string(ring) + " out of range");
		if (flags > 1)
			src_->fail_at(off, "unknown CS flags " + std::to_string(flags));
		if (n > kV2MaxRelocs)
			src_->fail_at(off, "CS with " + std::to_string(n) + " buffers (at most 2^20)");
		e.ring = static_cast<uint8_t>(ring);
		e.cs_scores = flags & 1;
		relocs_.resize(n);
		for (CsReloc &r : relocs_) {
			r.id = live_id(off, EventType::Cs);
			uint8_t dom, prio;
			if (!src_->get(dom) || !src_->get(prio))
				src_->fail_at(off, "truncated record");
			if (dom & 0x80)
				src_->fail_at(off, "unknown relocation bits in CS record");
			if (prio > 15)
				src_->fail_at(off, "relocation priority " + std::to_string(prio) + " above 15");
			r.read_domains = dom & 7;
			r.write_domain = dom >> kRelocWriteShift & 7;
			r.prio = prio;
			if (last_score_.size() <= r.id)
				last_score_.resize(created_.size(), kScoreNeutral);
			if (dom & kRelocScoreBit) {
				if (!e.cs_scores)
					src_->fail_at(off, "a score in a CS record without a score chunk");
				const uint64_t sc = uleb(off);
				if (sc > UINT32_MAX)
					src_->fail_at(off, "score " + std::to_string(sc) + " exceeds 2^32-1");
				last_score_[r.id] = static_cast<uint32_t>(sc);
			}
			r.score = e.cs_scores ? last_score_[r.id] : kScoreNeutral;
		}
		e.nrelocs = static_cast<uint32_t>(n);
		e.relocs = relocs_.data();
	}

	uint32_t live_id(uint64_t off, EventType t)
	{
		const uint64_t id = uleb(off);
		const std::string what = t == EventType::Cs ? "a CS names buffer " + std::to_string(id)
		                                            : std::string(event_name(t)) + " of buffer " +
		                                                      std::to_string(id);
		if (id >= created_.size())
			src_->fail_at(off, what + " that was not created");
		if (created_[id])
			src_->fail_at(off, what + " after its destroy");
		return static_cast<uint32_t>(id);
	}

	uint64_t uleb(uint64_t rec_off)
	{
		uint64_t v = 0;
		for (unsigned shift = 0; shift < 70; shift += 7) {
			uint8_t b;
			if (!src_->get(b))
				src_->fail_at(rec_off, "truncated record");
			if (shift == 63 && b > 1)
				src_->fail_at(rec_off, "varint overflows 64 bits");
			v |= uint64_t(b & 0x7f) << shift;
			if (!(b & 0x80))
				return v;
		}
		src_->fail_at(rec_off, "varint longer than 10 bytes");
	}

	std::unique_ptr<ByteSource> src_;
	std::vector<bool> created_; // per id: destroyed yet?
	std::vector<CsReloc> relocs_;      // the current CS record's buffers
	std::vector<uint32_t> last_score_; // per id: the last score sent (CS records)
	uint64_t time_us_ = 0, records_ = 0;
	uint8_t minor_ = 0;
	bool ended_ = false;
};

class V2Writer : public TraceWriter {
public:
	V2Writer(const std::string &path, const TraceInfo &info) : sink_(path, Compression::Zstd)
	{
		std::string hdr;
		for (auto &[k, v] : info.meta) {
			if (k.empty() || k.find_first_of("=\n") != std::string::npos ||
			    v.find('\n') != std::string::npos)
				throw TraceError("v2 writer: bad header entry \"" + k + "\"");
			hdr += k + "=" + v + "\n";
		}
		sink_.write(kV2Magic, 8);
		const uint8_t h[6] = {kV2Major, kV2Minor, uint8_t(hdr.size()), uint8_t(hdr.size() >> 8),
		                      uint8_t(hdr.size() >> 16), uint8_t(hdr.size() >> 24)};
		sink_.write(h, 6);
		sink_.write(hdr.data(), hdr.size());
	}
	void write(const Event &e) override
	{
		if (e.type == EventType::Create && e.id != creates_)
			throw TraceError("v2 writer: create of buffer " + std::to_string(e.id) +
			                 " out of order (expected " + std::to_string(creates_) + ")");
		sink_.put(static_cast<uint8_t>(static_cast<unsigned>(e.type) | (e.domain & 7) << 4));
		uleb(e.time_us >= last_us_ ? e.time_us - last_us_ : 0);
		if (e.time_us > last_us_)
			last_us_ = e.time_us;
		switch (e.type) {
		case EventType::Create:
			creates_++;
			uleb(e.id);
			uleb(e.size);
			uleb(e.high_prio ? 1 : 0);
			break;
		case EventType::Frame: break;
		case EventType::Score:
			uleb(e.id);
			uleb(e.score);
			break;
		case EventType::Cs: write_cs(e); break;
		default: uleb(e.id);
		}
		records_++;
	}
	void close() override
	{
		if (!closed_) {
			closed_ = true;
			sink_.put(kV2End);
			uleb(0);
			uleb(records_);
		}
		sink_.close();
	}

private:
	// Only scores that differ from the last one sent for the buffer are written.
	void write_cs(const Event &e)
	{
		uleb(e.ring);
		uleb(e.cs_scores ? 1 : 0);
		uleb(e.nrelocs);
		for (uint32_t i = 0; i < e.nrelocs; i++) {
			const CsReloc &r = e.relocs[i];
			if (r.id >= creates_)
				throw TraceError("v2 writer: CS names buffer " + std::to_string(r.id) +
				                 " that was not created");
			if (r.prio > 15 || r.read_domains > 7 || r.write_domain > 7)
				throw TraceError("v2 writer: bad relocation of buffer " + std::to_string(r.id));
			if (last_score_.size() < creates_)
				last_score_.resize(creates_, kScoreNeutral);
			const bool changed = e.cs_scores && r.score != last_score_[r.id];
			uleb(r.id);
			sink_.put(static_cast<uint8_t>(r.read_domains | r.write_domain << kRelocWriteShift |
			                               (changed ? kRelocScoreBit : 0)));
			sink_.put(r.prio);
			if (changed) {
				uleb(r.score);
				last_score_[r.id] = r.score;
			}
		}
	}

	void uleb(uint64_t v)
	{
		while (v >= 0x80) {
			sink_.put(static_cast<uint8_t>(v | 0x80));
			v >>= 7;
		}
		sink_.put(static_cast<uint8_t>(v));
	}
	ByteSink sink_;
	std::vector<uint32_t> last_score_;
	uint64_t last_us_ = 0, records_ = 0;
	uint32_t creates_ = 0;
	bool closed_ = false;
};

} // namespace

bool CsExpander::next(Event &e)
{
	for (;;) {
		if (at_ < pending_.size()) {
			const CsReloc &r = pending_[at_++];
			e = Event{};
			e.type = r.write_domain ? EventType::Write : EventType::Read;
			e.domain = r.write_domain ? r.write_domain : r.read_domains;
			e.id = r.id;
			e.time_us = time_us_;
			return true;
		}
		if (!in_.next(e))
			return false;
		if (e.type != EventType::Cs)
			return true;
		cs_++;
		pending_.assign(e.relocs, e.relocs + e.nrelocs);
		at_ = 0;
		time_us_ = e.time_us;
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
	if (got == 8 && std::memcmp(magic, kBostatsMagic, 8) == 0)
		return std::make_unique<Bostats1Reader>(std::move(src));
	if (got == 8 && std::memcmp(magic, kV2Magic, 8) == 0)
		return std::make_unique<V2Reader>(std::move(src));
	// A compressed stream must be one of the binary formats: anything else is a bad magic.
	if (src->compression() != Compression::None && !(got > 0 && (magic[0] == '0' || magic[0] == 's')))
		src->fail_at(0, "bad magic: expected \"bostats1\" or \"vrltrace\"");
	if (got > 0 && magic[0] != '0' && magic[0] != 's' && magic[0] != '\n' && magic[0] != ' ')
		src->fail_at(0, "bad magic: not bostats1, vrltrace or a text trace");
	return std::make_unique<TextReader>(std::move(src), std::string(magic, got));
}

} // namespace

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

std::unique_ptr<TraceWriter> make_writer(Format f, const std::string &path, const TraceInfo &info)
{
	switch (f) {
	case Format::Text: return std::make_unique<TextWriter>(path);
	case Format::Bostats1: return std::make_unique<Bostats1Writer>(path, info.declared_buffers);
	case Format::V2: return std::make_unique<V2Writer>(path, info);
	}
	throw TraceError("bad format");
}

} // namespace vramlab
