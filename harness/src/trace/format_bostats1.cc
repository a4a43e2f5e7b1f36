// bostats1, the thesis's binary format (shared/docs/trace-format.md): gzip, magic, u32 N, packed entries.
#include <charconv>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "trace/format_detail.h"

namespace vramlab {

namespace {

using detail::kBostatsMagic;

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

	bool next(Event &e) override { return parse(e); }
	// The replay's load path: whole entries decoded straight from the buffered bytes;
	// anything unusual (an error to report, an entry across a refill) goes through parse().
	size_t next_batch(Event *out, size_t n) override
	{
		rethrow_deferred();
		size_t got = 0;
		try {
			while (got < n) {
				if (const uint8_t *const start = src_->peek(kLongest)) {
					const uint8_t *p = start;
					const uint8_t *const end = start + src_->buffered() - kLongest;
					for (const uint8_t *q; got < n && p <= end && (q = decode(p, out[got])); got++)
						p = q;
					src_->skip(size_t(p - start));
					if (got == n)
						break;
				}
				if (!parse(out[got]))
					break;
				got++;
			}
		} catch (...) {
			return defer_error(got);
		}
		return got;
	}

private:
	static constexpr size_t kLongest = 1 + 3 + 4; // a create with a 3-byte index

	bool valid(unsigned id, uint32_t index) const
	{
		if (id == unsigned(EventType::Create))
			return index == creates_ && index < info_.declared_buffers;
		return id <= 4 && index < creates_;
	}
	// The event of an entry: its head byte, buffer index and, for a create, its size bytes.
	void fill(Event &e, uint8_t head, uint32_t index, const uint8_t *size)
	{
		time_ms_ += head & 31;
		e = Event{};
		e.type = static_cast<EventType>(head >> 5);
		e.id = index;
		e.time_us = time_ms_ * 1000;
		if (size) {
			const uint32_t v = size[0] | size[1] << 8 | size[2] << 16 | uint32_t(size[3]) << 24;
			e.high_prio = v >> 31;
			e.size = v & 0x7fffffffu;
			creates_++;
		}
	}
	// The valid entry at p, with kLongest bytes buffered there, into e: the byte after it, or
	// nullptr (nothing read) when the entry is not valid, for parse() to say why.
	const uint8_t *decode(const uint8_t *p, Event &e)
	{
		uint32_t index = p[1];
		if (index_bytes_ > 1)
			index |= uint32_t(p[2]) << 8;
		if (index_bytes_ > 2)
			index |= uint32_t(p[3]) << 16;
		if (!valid(p[0] >> 5, index))
			return nullptr;
		const bool create = p[0] >> 5 == unsigned(EventType::Create);
		fill(e, p[0], index, create ? p + 1 + index_bytes_ : nullptr);
		return p + 1 + index_bytes_ + (create ? 4 : 0);
	}

	bool parse(Event &e)
	{
		if (const uint8_t *p = src_->peek(kLongest)) {
			if (const uint8_t *q = decode(p, e)) {
				src_->skip(size_t(q - p));
				return true;
			}
		}
		// byte by byte: near the end of the buffer, and to report an error
		const uint64_t off = src_->offset();
		uint8_t head;
		if (!src_->get(head))
			return false;
		uint8_t idx[3] = {0, 0, 0};
		if (!src_->read(idx, index_bytes_))
			src_->fail_at(off, "truncated entry");
		const uint32_t index = idx[0] | idx[1] << 8 | idx[2] << 16;
		const unsigned id = head >> 5;
		if (id > 4)
			src_->fail_at(off, "unknown event id " + std::to_string(id));
		if (index >= info_.declared_buffers)
			src_->fail_at(off, "buffer index " + std::to_string(index) +
			                       " >= buffer count " + std::to_string(info_.declared_buffers));
		if (id == unsigned(EventType::Create)) {
			if (index != creates_)
				src_->fail_at(off, "create of buffer " + std::to_string(index) +
				                       " out of order (expected " + std::to_string(creates_) + ")");
			uint8_t size[4];
			if (!src_->read(size, 4))
				src_->fail_at(off, "truncated create entry");
			fill(e, head, index, size);
		} else {
			if (index >= creates_)
				src_->fail_at(off, std::string(event_name(EventType(id))) + " of buffer " +
				                       std::to_string(index) + " before its create");
			fill(e, head, index, nullptr);
		}
		return true;
	}

	std::unique_ptr<ByteSource> src_;
	unsigned index_bytes_;
	uint32_t creates_ = 0;
	uint64_t time_ms_ = 0;
};

class Bostats1Writer : public TraceWriter {
public:
	Bostats1Writer(const std::string &path, uint32_t n, Output mode)
	    : sink_(path, Compression::Gzip, 0, mode), n_(n)
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


} // namespace

namespace detail {

std::unique_ptr<TraceReader> bostats1_reader(std::unique_ptr<ByteSource> src)
{
	return std::make_unique<Bostats1Reader>(std::move(src));
}

std::unique_ptr<TraceWriter> bostats1_writer(const std::string &path, uint32_t buffers, Output mode)
{
	return std::make_unique<Bostats1Writer>(path, buffers, mode);
}

} // namespace detail

} // namespace vramlab
