// vramlab's v2 format (docs/trace-v2.md).
#include <charconv>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <vector>

#include "trace/format_detail.h"

namespace vramlab {

namespace {

using detail::kV2Magic;
constexpr uint32_t kV2MaxHeader = 1 << 20;
enum : uint8_t { kV2End = 15 };
// v2.0 files have no CS records; v2.1 adds them; v2.2 adds the high-priority-use bit of a
// relocation; v2.3 codes the same records in fewer bytes (docs/trace-v2.md, "Version 2.3").
constexpr uint8_t kV2Major = 2, kV2Minor = 3;
constexpr uint64_t kV2MaxRelocs = 1 << 20;
// A CS relocation's domain byte: read domains, write domain, "a score follows".
constexpr unsigned kRelocWriteShift = 3, kRelocScoreBit = 0x40;
// Its priority byte: the kernel's priority (bits 3..0) and, from 2.2, bit 4: the buffer is a
// depth/stencil or MSAA surface in this submission (Mesa no longer knows it at create).
constexpr uint8_t kRelocPrioMask = 15, kRelocHighPrioUse = 0x10;
// v2.3: a tag with bit 7 has no time field (dt 0); a buffer is named by a code whose bit 0 says
// whether it counts back from the newest buffer, and in a relocation bit 1 says that the
// domain and priority bytes are left out, the same as in the buffer's last relocation (and no
// score follows); a CREATE's size code says whether the size counts 4 KiB pages and whether
// flags follow.
constexpr uint8_t kTagNoDt = 0x80;
constexpr uint64_t kIdBack = 1, kIdRepeat = 2;
constexpr uint64_t kSizeCodeFlags = 1, kSizeCodePages = 2, kPage = 4096;
// last_use_: a buffer's last relocation (domain byte << 8 | priority byte), kNoUse before one.
constexpr uint16_t kNoUse = 0xffff;

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
			                     std::to_string(h[1]) + " (this reader knows 2.0 to 2.3)");
		minor_ = info_.v2_minor = h[1];
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
		if (at_ == pending_.size()) {
			if (unconfirmed_ && !done_)
				return next_unconfirmed(e);
			if (!fill())
				return false;
		}
		const Pending &p = pending_[at_++];
		e = p.e;
		if (e.type == EventType::Cs)
			e.relocs = pool_.data() + p.first;
		emitted_++;
		return true;
	}

private:
	// Records are read ahead up to the next FRAME (or END) before any of them is handed out, so
	// that a file that stops early can still end at its last complete FRAME (trace-v2.md,
	// "Truncated files"). After more than kKeepBack records without a FRAME (a converted trace
	// has none) records go out one by one, unconfirmed, until the next FRAME: a cut among them
	// is an error.
	static constexpr size_t kKeepBack = 1 << 16, kKeepBackRelocs = 1 << 20;
	struct Pending {
		Event e;
		size_t first = 0; // a CS record's relocations in pool_
	};

	// Past kKeepBack records without a FRAME: straight through, up to the next FRAME.
	bool next_unconfirmed(Event &e)
	{
		pool_.clear();
		size_t first = 0;
		try {
			if (!read_record(e, first)) {
				end_of_stream();
				return false;
			}
		} catch (const TruncatedInput &t) {
			cut(t);
		}
		if (e.type == EventType::Cs)
			e.relocs = pool_.data() + first;
		else if (e.type == EventType::Frame)
			frames_++, unconfirmed_ = false;
		emitted_++;
		return true;
	}

	bool fill()
	{
		pending_.clear();
		pool_.clear();
		at_ = 0;
		if (done_)
			return false;
		try {
			for (;;) {
				Pending &p = pending_.emplace_back();
				if (!read_record(p.e, p.first)) {
					pending_.pop_back();
					end_of_stream();
					break;
				}
				if (p.e.type == EventType::Frame) {
					frames_++;
					unconfirmed_ = false;
					break;
				}
				if (pending_.size() >= kKeepBack || pool_.size() >= kKeepBackRelocs) {
					unconfirmed_ = true;
					break;
				}
			}
		} catch (const TruncatedInput &t) {
			pending_.pop_back(); // the record that was being read
			cut(t);
		}
		return !pending_.empty();
	}

	// The stream stopped early: end at the last complete FRAME, or fail as before.
	void cut(const TruncatedInput &t)
	{
		if (!frames_)
			throw TraceError(std::string(t.what()) + " (no complete FRAME record to end at)");
		if (unconfirmed_)
			throw TraceError(std::string(t.what()) + " (its last FRAME is more than " +
			                 std::to_string(kKeepBack) + " records back, too far to end there)");
		const uint64_t end = src_->offset();
		std::string why = "no END record";
		if (src_->stream_cut())
			why += std::string("; the ") +
			       (src_->compression() == Compression::Gzip ? "gzip" : "zstd") +
			       " stream is cut at compressed byte " + std::to_string(src_->raw_offset());
		if (end > rec_start_)
			why += "; the last record is incomplete";
		warn(src_->name() + ": truncated at decompressed byte " + std::to_string(end) + " (" +
		     why + "): using the " + std::to_string(emitted_) + " records up to frame " +
		     std::to_string(frames_) + ", dropping " + std::to_string(pending_.size()) +
		     " records after it");
		info_.truncated = true;
		pending_.clear();
		done_ = true;
	}

	// After END: nothing may follow. A compressed stream cut right after END lost nothing.
	void end_of_stream()
	{
		done_ = true;
		uint8_t extra;
		try {
			if (src_->get(extra))
				src_->fail_at(src_->offset() - 1, "data after the END record");
		} catch (const TruncatedInput &) {
			warn(src_->name() + ": the compressed stream is cut after the END record (all " +
			     std::to_string(records_) + " records are there)");
		}
	}

	// One record into e (a CS's relocations at pool_[first]); false at END. A stream that
	// stops throws TruncatedInput.
	bool read_record(Event &e, size_t &first)
	{
		const uint64_t off = rec_start_ = src_->offset();
		uint8_t tag;
		if (!src_->get(tag))
			src_->fail_truncated_at(off, "truncated trace: the stream stops without an END record");
		const bool no_dt = minor_ >= 3 && (tag & kTagNoDt);
		const unsigned type = tag & 15, domain = (no_dt ? tag & 0x7f : tag) >> 4;
		if (domain > 7)
			src_->fail_at(off, "domain bits " + std::to_string(domain) + " out of range");
		const uint64_t dt = no_dt ? 0 : uleb(off);
		if (type == kV2End) {
			const uint64_t count = uleb(off);
			if (count != records_)
				src_->fail_at(off, "END count " + std::to_string(count) + " but " +
				                       std::to_string(records_) + " records were read");
			return false;
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
			// 2.3: the id is implicit, the next one
			const uint64_t id = minor_ >= 3 ? created_.size() : uleb(off);
			if (id != created_.size())
				src_->fail_at(off, "create of buffer " + std::to_string(id) +
				                       " out of order (expected " + std::to_string(created_.size()) +
				                       ")");
			if (id >= (1u << 29))
				src_->fail_at(off, "too many buffers");
			e.id = static_cast<uint32_t>(id);
			uint64_t flags;
			if (minor_ >= 3) {
				const uint64_t code = uleb(off), value = code >> 2;
				if ((code & kSizeCodePages) && value > UINT64_MAX / kPage)
					src_->fail_at(off, "size of " + std::to_string(value) +
					                       " pages overflows 64 bits");
				e.size = code & kSizeCodePages ? value * kPage : value;
				flags = code & kSizeCodeFlags ? uleb(off) : 0;
			} else {
				e.size = uleb(off);
				flags = uleb(off);
			}
			// bit 1 (imported) is new in 2.1
			if (flags > (minor_ >= 1 ? 3u : 1u))
				src_->fail_at(off, "unknown create flags " + std::to_string(flags) +
				                       (flags <= 3 ? " (the imported flag needs version 2.1)" : ""));
			e.high_prio = flags & 1;
			e.imported = flags & 2;
			created_.push_back(false);
			break;
		}
		case EventType::Frame: break;
		case EventType::Cs: read_cs(off, e, first); break;
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

	void read_cs(uint64_t off, Event &e, size_t &first)
	{
		if (e.domain)
			src_->fail_at(off, "domain bits on a CS record");
		const uint64_t ring = uleb(off), flags = uleb(off), n = uleb(off);
		if (ring > 255)
			src_->fail_at(off, "ring " + std::to_string(ring) + " out of range");
		if (flags > 3)
			src_->fail_at(off, "unknown CS flags " + std::to_string(flags));
		if (n > kV2MaxRelocs)
			src_->fail_at(off, "CS with " + std::to_string(n) + " buffers (at most 2^20)");
		e.ring = static_cast<uint8_t>(ring);
		e.cs_scores = flags & 1;
		e.cs_untracked = flags & 2;
		first = pool_.size();
		pool_.resize(first + n);
		// Per-buffer state for every buffer created so far (none is created inside a CS).
		if (last_score_.size() < created_.size())
			last_score_.resize(created_.size(), kScoreNeutral);
		if (minor_ >= 3 && last_use_.size() < created_.size())
			last_use_.resize(created_.size(), kNoUse);
		for (size_t i = 0; i < n; i++) {
			CsReloc &r = pool_[first + i];
			bool repeat = false;
			r.id = live_id(off, EventType::Cs, &repeat);
			uint8_t dom, prio;
			if (repeat) {
				if (last_use_[r.id] == kNoUse)
					src_->fail_at(off, "a CS repeats the last use of buffer " +
					                       std::to_string(r.id) + ", which has none");
				dom = static_cast<uint8_t>(last_use_[r.id] >> 8);
				prio = static_cast<uint8_t>(last_use_[r.id]);
			} else {
				if (!src_->get(dom) || !src_->get(prio))
					src_->fail_truncated_at(off, "truncated record");
				if (dom & 0x80)
					src_->fail_at(off, "unknown relocation bits in CS record");
				if (minor_ >= 3)
					last_use_[r.id] = static_cast<uint16_t>((dom & ~kRelocScoreBit) << 8 | prio);
			}
			if (minor_ < 2 && prio > kRelocPrioMask)
				src_->fail_at(off, "relocation priority " + std::to_string(prio) + " above 15" +
				                       (prio < 32 ? " (bit 4, high-priority use, needs version 2.2)"
				                                  : ""));
			if (prio > (kRelocPrioMask | kRelocHighPrioUse))
				src_->fail_at(off, "relocation priority byte " + std::to_string(prio) +
				                       ": unknown bits (bits 7..5 must be 0)");
			r.read_domains = dom & 7;
			r.write_domain = dom >> kRelocWriteShift & 7;
			r.prio = prio & kRelocPrioMask;
			r.high_prio_use = prio & kRelocHighPrioUse;
			if (dom & kRelocScoreBit) {
				if (!e.cs_scores)
					src_->fail_at(off, "a score in a CS record without a score chunk");
				uint64_t sc = uleb(off);
				if (minor_ >= 3) {
					// 2.3: the difference from the previous score written, zigzag
					if (sc > (uint64_t(UINT32_MAX) << 1 | 1))
						src_->fail_at(off, "score difference code " + std::to_string(sc) +
						                       " out of range");
					const int64_t d = sc & 1 ? -int64_t(sc >> 1) - 1 : int64_t(sc >> 1);
					const int64_t v = int64_t(prev_score_) + d;
					if (v < 0 || v > int64_t(UINT32_MAX))
						src_->fail_at(off, "score " + std::to_string(v) + " out of range (" +
						                       std::to_string(prev_score_) + " and the difference " +
						                       std::to_string(d) + ")");
					sc = uint64_t(v);
					prev_score_ = static_cast<uint32_t>(v);
				}
				if (sc > UINT32_MAX)
					src_->fail_at(off, "score " + std::to_string(sc) + " exceeds 2^32-1");
				last_score_[r.id] = static_cast<uint32_t>(sc);
			}
			r.score = e.cs_scores ? last_score_[r.id] : kScoreNeutral;
		}
		e.nrelocs = static_cast<uint32_t>(n);
	}

	// 2.3 names a buffer by its id or by how many were created after it (0: the newest),
	// whichever is shorter: bit 0 says which; in a relocation ("repeat" given), bit 1 says that
	// it repeats the buffer's last domains and priority.
	uint32_t live_id(uint64_t off, EventType t, bool *repeat = nullptr)
	{
		uint64_t v = uleb(off);
		const bool back = minor_ >= 3 && (v & kIdBack);
		if (minor_ >= 3) {
			if (repeat)
				*repeat = v & kIdRepeat;
			v >>= repeat ? 2 : 1;
		}
		if (back && v >= created_.size()) {
			const std::string what = t == EventType::Cs ? "a CS names" : std::string(event_name(t)) + " of";
			src_->fail_at(off, what + " the buffer created " + std::to_string(v) +
			                       " before the newest, but only " +
			                       std::to_string(created_.size()) + " were created");
		}
		const uint64_t id = back ? created_.size() - 1 - v : v;
		if (id < created_.size() && !created_[id]) [[likely]]
			return static_cast<uint32_t>(id);
		const std::string what = t == EventType::Cs ? "a CS names buffer " + std::to_string(id)
		                                            : std::string(event_name(t)) + " of buffer " +
		                                                      std::to_string(id);
		src_->fail_at(off, what + (id >= created_.size() ? " that was not created"
		                                                 : " after its destroy"));
	}

	uint64_t uleb(uint64_t rec_off)
	{
		uint64_t v = 0;
		for (unsigned shift = 0; shift < 70; shift += 7) {
			uint8_t b;
			if (!src_->get(b))
				src_->fail_truncated_at(rec_off, "truncated record");
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
	std::vector<uint32_t> last_score_; // per id: the last score sent (CS records)
	std::vector<uint16_t> last_use_;   // per id, 2.3: its last relocation's bytes (kNoUse)
	uint32_t prev_score_ = 0;          // 2.3: the last score written in a relocation
	std::vector<Pending> pending_;     // read, not yet handed out (up to a FRAME)
	std::vector<CsReloc> pool_;        // their CS records' relocations
	size_t at_ = 0;                    // next of pending_ to hand out
	uint64_t time_us_ = 0, records_ = 0, emitted_ = 0, frames_ = 0, rec_start_ = 0;
	uint8_t minor_ = 0;
	bool done_ = false, unconfirmed_ = false;
};

class V2Writer : public TraceWriter {
public:
	// The version goes first, before any record says what the file needs: the caller's
	// (info.v2_minor, as a reader of a 2.2 or 2.3 file sets it) when it is 2.2 or 2.3, else 2.1,
	// which every older reader of CS records knows. A high-priority-use bit in a 2.1 file is an
	// error.
	V2Writer(const std::string &path, const TraceInfo &info, Output mode)
	    : sink_(path, Compression::Zstd, 0, mode),
	      minor_(info.v2_minor >= 3 ? 3 : info.v2_minor == 2 ? 2 : 1)
	{
		std::string hdr;
		for (auto &[k, v] : info.meta) {
			if (k.empty() || k.find_first_of("=\n") != std::string::npos ||
			    v.find('\n') != std::string::npos)
				throw TraceError("v2 writer: bad header entry \"" + k + "\"");
			hdr += k + "=" + v + "\n";
		}
		sink_.write(kV2Magic, 8);
		const uint8_t h[6] = {kV2Major, minor_, uint8_t(hdr.size()), uint8_t(hdr.size() >> 8),
		                      uint8_t(hdr.size() >> 16), uint8_t(hdr.size() >> 24)};
		sink_.write(h, 6);
		sink_.write(hdr.data(), hdr.size());
	}
	void write(const Event &e) override
	{
		if (e.type == EventType::Create && e.id != creates_)
			throw TraceError("v2 writer: create of buffer " + std::to_string(e.id) +
			                 " out of order (expected " + std::to_string(creates_) + ")");
		// 2.3 cannot even write the id of a buffer not yet created (2.1 and 2.2 can, for tests of
		// readers)
		if (minor_ >= 3 && e.type != EventType::Create && e.type != EventType::Frame &&
		    e.type != EventType::Cs && e.type != EventType::Context && e.id >= creates_)
			throw TraceError("v2 writer: " + std::string(event_name(e.type)) + " of buffer " +
			                 std::to_string(e.id) + " that was not created");
		const uint64_t dt = e.time_us >= last_us_ ? e.time_us - last_us_ : 0;
		const uint8_t tag = static_cast<uint8_t>(static_cast<unsigned>(e.type) | (e.domain & 7) << 4);
		if (minor_ >= 3 && dt == 0) {
			sink_.put(tag | kTagNoDt);
		} else {
			sink_.put(tag);
			uleb(dt);
		}
		if (e.time_us > last_us_)
			last_us_ = e.time_us;
		const uint64_t flags = (e.high_prio ? 1 : 0) | (e.imported ? 2 : 0);
		switch (e.type) {
		case EventType::Create:
			creates_++;
			if (minor_ >= 3) {
				const bool pages = e.size && e.size % kPage == 0;
				if (!pages && e.size >> 62)
					throw TraceError("v2 writer: buffer " + std::to_string(e.id) + " of " +
					                 std::to_string(e.size) +
					                 " bytes, not whole pages, is too large for version 2.3");
				uleb((pages ? e.size / kPage : e.size) << 2 | (pages ? kSizeCodePages : 0) |
				     (flags ? kSizeCodeFlags : 0));
				if (flags)
					uleb(flags);
			} else {
				uleb(e.id);
				uleb(e.size);
				uleb(flags);
			}
			break;
		case EventType::Frame: break;
		case EventType::Score:
			id(e.id);
			uleb(e.score);
			break;
		case EventType::Cs: write_cs(e); break;
		case EventType::Context: uleb(e.id); break;
		default: id(e.id);
		}
		records_++;
		// As Mesa does: a writer killed later leaves a file readable up to here.
		if (e.type == EventType::Frame)
			sink_.flush();
	}
	void close() override
	{
		if (!closed_) {
			closed_ = true;
			// END's time means nothing to a reader: 0, which 2.3 leaves out (as Mesa does)
			if (minor_ >= 3) {
				sink_.put(kV2End | kTagNoDt);
			} else {
				sink_.put(kV2End);
				uleb(0);
			}
			uleb(records_);
		}
		sink_.close();
	}

private:
	// Only scores that differ from the last one sent for the buffer are written.
	void write_cs(const Event &e)
	{
		uleb(e.ring);
		uleb((e.cs_scores ? 1 : 0) | (e.cs_untracked ? 2 : 0));
		uleb(e.nrelocs);
		if (last_score_.size() < creates_)
			last_score_.resize(creates_, kScoreNeutral);
		if (minor_ >= 3 && last_use_.size() < creates_)
			last_use_.resize(creates_, kNoUse);
		for (uint32_t i = 0; i < e.nrelocs; i++) {
			const CsReloc &r = e.relocs[i];
			if (r.id >= creates_)
				throw TraceError("v2 writer: CS names buffer " + std::to_string(r.id) +
				                 " that was not created");
			if (r.prio > kRelocPrioMask || r.read_domains > 7 || r.write_domain > 7)
				throw TraceError("v2 writer: bad relocation of buffer " + std::to_string(r.id));
			if (r.high_prio_use && minor_ < 2)
				throw TraceError("v2 writer: relocation of buffer " + std::to_string(r.id) +
				                 " has the high-priority-use bit, which needs version 2.2 "
				                 "(this file is written as 2.1: TraceInfo::v2_minor)");
			const bool changed = e.cs_scores && r.score != last_score_[r.id];
			const uint8_t prio = static_cast<uint8_t>(r.prio | (r.high_prio_use ? kRelocHighPrioUse : 0));
			const uint8_t dom = static_cast<uint8_t>(r.read_domains | r.write_domain << kRelocWriteShift);
			const uint16_t use = static_cast<uint16_t>(dom << 8 | prio);
			const bool repeat = minor_ >= 3 && !changed && last_use_[r.id] == use;
			id(r.id, repeat);
			if (!repeat) {
				sink_.put(static_cast<uint8_t>(dom | (changed ? kRelocScoreBit : 0)));
				sink_.put(prio);
				if (minor_ >= 3)
					last_use_[r.id] = use;
			}
			if (changed) {
				if (minor_ >= 3) {
					const int64_t d = int64_t(r.score) - int64_t(prev_score_);
					uleb(d < 0 ? uint64_t(-d - 1) << 1 | 1 : uint64_t(d) << 1);
					prev_score_ = r.score;
				} else {
					uleb(r.score);
				}
				last_score_[r.id] = r.score;
			}
		}
	}

	// A buffer id: 2.3 writes the id or its distance back from the newest buffer, the smaller,
	// with bit 0 saying which.
	// A relocation's ("reloc") has bit 1 as well: it repeats the buffer's last use.
	void id(uint32_t v, std::optional<bool> repeat = std::nullopt)
	{
		if (minor_ < 3)
			return uleb(v);
		const uint32_t back = creates_ - 1 - v;
		uint64_t code = back < v ? uint64_t(back) << 1 | kIdBack : uint64_t(v) << 1;
		if (repeat)
			code = (code & ~kIdBack) << 1 | (code & kIdBack) | (*repeat ? kIdRepeat : 0);
		uleb(code);
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
	std::vector<uint16_t> last_use_; // 2.3: per buffer, its last relocation's bytes
	uint32_t prev_score_ = 0;        // 2.3: the last score written in a relocation
	uint64_t last_us_ = 0, records_ = 0;
	uint32_t creates_ = 0;
	uint8_t minor_;
	bool closed_ = false;
};


} // namespace

namespace detail {

std::unique_ptr<TraceReader> v2_reader(std::unique_ptr<ByteSource> src)
{
	return std::make_unique<V2Reader>(std::move(src));
}

std::unique_ptr<TraceWriter> v2_writer(const std::string &path, const TraceInfo &info, Output mode)
{
	return std::make_unique<V2Writer>(path, info, mode);
}

} // namespace detail

} // namespace vramlab
