#include "trace/io.h"

#include <cerrno>
#include <cstring>
#include <libdeflate.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include "trace/event.h"
#include "util/output_file.h"

namespace vramlab {

namespace {
constexpr size_t kInSize = 1 << 17;
constexpr size_t kOutSize = 1 << 18;
// A gzip stream up to this size (compressed and decompressed) is inflated whole with
// libdeflate, about three times zlib's speed; larger ones, and anything libdeflate does not
// take as one clean member, stream through zlib as before.
constexpr uint64_t kWholeMax = 64 << 20;
// DEFLATE expands at most about 1032:1; a gzip trailer promising more is not believed.
constexpr uint64_t kDeflateMaxRatio = 1032;
} // namespace

struct ByteSource::Codec {
	z_stream z{};
	bool z_init = false;
	ZSTD_DCtx *zstd = nullptr;
	size_t zstd_hint = 0; // last ZSTD_decompressStream result: 0 = at a frame boundary
	~Codec()
	{
		if (z_init)
			inflateEnd(&z);
		if (zstd)
			ZSTD_freeDCtx(zstd);
	}
};

ByteSource::ByteSource(const std::string &path) : name_(path)
{
	if (path == "-") {
		file_ = stdin;
	} else {
		file_ = std::fopen(path.c_str(), "rb");
		if (!file_)
			throw TraceError(path + ": cannot open: " + std::strerror(errno));
		own_file_ = true;
	}
	detect();
	if (own_file_ && comp_ == Compression::Gzip && inflate_whole_file())
		return;
	// gzip's last four bytes hold the decompressed size mod 2^32 (RFC 1952)
	if (own_file_ && (comp_ == Compression::Gzip || comp_ == Compression::None)) {
		const long here = std::ftell(file_);
		uint8_t t[4];
		if (here >= 0 && std::fseek(file_, comp_ == Compression::Gzip ? -4 : 0, SEEK_END) == 0) {
			if (comp_ == Compression::None) {
				const long end = std::ftell(file_);
				size_hint_ = end > 0 ? uint64_t(end) : 0;
			} else if (std::fread(t, 1, 4, file_) == 4) {
				size_hint_ = t[0] | t[1] << 8 | t[2] << 16 | uint64_t(t[3]) << 24;
			}
			std::fseek(file_, here, SEEK_SET);
		}
	}
}

ByteSource::ByteSource(const uint8_t *data, size_t size, std::string name)
    : name_(std::move(name)), mem_(data), mem_size_(size)
{
	detect();
	if (comp_ == Compression::Gzip)
		inflate_whole(mem_, mem_size_);
}

// The regular gzip file as a whole (inflate_whole()), or false with the stream untouched.
bool ByteSource::inflate_whole_file()
{
	struct stat st;
	const long here = std::ftell(file_);
	if (fstat(fileno(file_), &st) != 0 || !S_ISREG(st.st_mode) || here < 0 ||
	    uint64_t(st.st_size) > kWholeMax || size_t(here) != in_len_ || in_len_ == 0)
		return false;
	std::vector<uint8_t> whole(size_t(st.st_size));
	std::memcpy(whole.data(), in_.data(), in_len_);
	size_t got = in_len_;
	while (got < whole.size()) {
		const size_t r = std::fread(whole.data() + got, 1, whole.size() - got, file_);
		if (r == 0)
			break;
		got += r;
	}
	// A file that changed size, or a failure: back to where detect() left the stream.
	if (got != whole.size() || std::fgetc(file_) != EOF || !inflate_whole(whole.data(), got)) {
		std::clearerr(file_);
		if (std::fseek(file_, here, SEEK_SET) != 0)
			throw TraceError(name_ + ": cannot seek: " + std::strerror(errno));
		raw_eof_ = false;
		return false;
	}
	return true;
}

// One clean gzip member filling data[0, size) (its trailer's size believed, its CRC checked),
// inflated in one call: the source then serves it from memory. Anything else (several
// members, bytes after the member, damage, a large stream) returns false with nothing
// changed, and zlib streams it, with its messages and offsets.
bool ByteSource::inflate_whole(const uint8_t *data, size_t size)
{
	if (size < 18 || size > kWholeMax)
		return false;
	const uint8_t *t = data + size - 4;
	const uint64_t isize = t[0] | t[1] << 8 | t[2] << 16 | uint64_t(t[3]) << 24;
	if (isize > kWholeMax || isize > size * kDeflateMaxRatio)
		return false;
	libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	if (!d)
		return false;
	std::vector<uint8_t> out(isize);
	size_t in_used = 0, out_got = 0;
	const libdeflate_result r =
	    libdeflate_gzip_decompress_ex(d, data, size, out.data(), out.size(), &in_used, &out_got);
	libdeflate_free_decompressor(d);
	if (r != LIBDEFLATE_SUCCESS || in_used != size || out_got != isize)
		return false;
	buf_ = std::move(out);
	pos_ = 0;
	len_ = buf_.size();
	in_pos_ = in_len_ = 0;
	raw_consumed_ = size;
	raw_eof_ = codec_done_ = whole_ = true;
	size_hint_ = isize;
	return true;
}

// Peeks at the first bytes to pick the decoder.
void ByteSource::detect()
{
	in_.resize(kInSize);
	in_len_ = raw_read(in_.data(), in_.size());
	if (in_len_ >= 2 && in_[0] == 0x1f && in_[1] == 0x8b)
		comp_ = Compression::Gzip;
	else if (in_len_ >= 4 && in_[0] == 0x28 && in_[1] == 0xb5 && in_[2] == 0x2f && in_[3] == 0xfd)
		comp_ = Compression::Zstd;
	codec_ = std::make_unique<Codec>();
	if (comp_ == Compression::Gzip) {
		if (inflateInit2(&codec_->z, 15 + 16) != Z_OK)
			throw TraceError(name_ + ": cannot initialise zlib");
		codec_->z_init = true;
		codec_done_ = false;
	} else if (comp_ == Compression::Zstd) {
		codec_->zstd = ZSTD_createDCtx();
		if (!codec_->zstd)
			throw TraceError(name_ + ": cannot initialise zstd");
		codec_done_ = false;
	}
	if (comp_ != Compression::None)
		buf_.resize(kOutSize);
}

ByteSource::~ByteSource()
{
	if (own_file_ && file_)
		std::fclose(file_);
}

size_t ByteSource::raw_read(uint8_t *dst, size_t n)
{
	size_t got;
	if (mem_) {
		got = std::min(n, mem_size_ - mem_pos_);
		std::memcpy(dst, mem_ + mem_pos_, got);
		mem_pos_ += got;
	} else {
		got = std::fread(dst, 1, n, file_);
		if (got < n && std::ferror(file_))
			throw TraceError(name_ + ": read error: " + std::strerror(errno));
	}
	if (got == 0)
		raw_eof_ = true;
	raw_consumed_ += got;
	return got;
}

void ByteSource::fail(const std::string &what) const { fail_at(offset(), what); }

void ByteSource::fail_at(uint64_t off, const std::string &what) const
{
	throw TraceError(name_ + ": byte " + std::to_string(off) + ": " + what);
}

void ByteSource::fail_truncated_at(uint64_t off, const std::string &what) const
{
	throw TruncatedInput(name_ + ": byte " + std::to_string(off) + ": " + what);
}

bool ByteSource::refill()
{
	consumed_ += len_;
	pos_ = len_ = 0;
	if (comp_ == Compression::None) {
		// Plain: hand over the raw buffer directly.
		if (in_pos_ < in_len_) {
			buf_.assign(in_.begin() + in_pos_, in_.begin() + in_len_);
			len_ = buf_.size();
			in_pos_ = in_len_;
			return true;
		}
		if (raw_eof_)
			return false;
		buf_.resize(kInSize);
		len_ = raw_read(buf_.data(), buf_.size());
		return len_ > 0;
	}
	while (len_ == 0) {
		if (in_pos_ == in_len_ && !raw_eof_) {
			in_len_ = raw_read(in_.data(), in_.size());
			in_pos_ = 0;
		}
		const bool no_input = in_pos_ == in_len_;
		if (codec_done_ && no_input)
			return false;
		if (comp_ == Compression::Gzip) {
			z_stream &z = codec_->z;
			if (codec_done_) { // another gzip member follows
				inflateReset(&z);
				codec_done_ = false;
			}
			if (no_input) {
				stream_cut_ = true;
				throw TruncatedInput(name_ + ": truncated gzip stream (ends at compressed byte " +
				                     std::to_string(raw_consumed_) + ", decompressed byte " +
				                     std::to_string(offset()) + ")");
			}
			z.next_in = in_.data() + in_pos_;
			z.avail_in = static_cast<uInt>(in_len_ - in_pos_);
			z.next_out = buf_.data();
			z.avail_out = static_cast<uInt>(buf_.size());
			int r = inflate(&z, Z_NO_FLUSH);
			if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR)
				throw TraceError(name_ + ": corrupt gzip data near compressed byte " +
				                 std::to_string(raw_consumed_ - (in_len_ - in_pos_)) + ": " +
				                 (z.msg ? z.msg : "inflate failed"));
			in_pos_ = in_len_ - z.avail_in;
			len_ = buf_.size() - z.avail_out;
			if (r == Z_STREAM_END)
				codec_done_ = true;
		} else {
			if (no_input) {
				if (codec_->zstd_hint != 0) {
					stream_cut_ = true;
					throw TruncatedInput(name_ + ": truncated zstd stream (ends at compressed byte " +
					                     std::to_string(raw_consumed_) + ", decompressed byte " +
					                     std::to_string(offset()) + ")");
				}
				return false;
			}
			ZSTD_inBuffer in{in_.data(), in_len_, in_pos_};
			ZSTD_outBuffer out{buf_.data(), buf_.size(), 0};
			size_t r = ZSTD_decompressStream(codec_->zstd, &out, &in);
			if (ZSTD_isError(r)) // in.pos: as far as the decoder read before it failed
				throw TraceError(name_ + ": corrupt zstd data near compressed byte " +
				                 std::to_string(raw_consumed_ - (in_len_ - in.pos)) +
				                 " (decompressed byte " + std::to_string(offset() + out.pos) +
				                 "): " + ZSTD_getErrorName(r));
			codec_->zstd_hint = r;
			in_pos_ = in.pos;
			len_ = out.pos;
			codec_done_ = r == 0 && in_pos_ == in_len_ && raw_eof_;
		}
	}
	return true;
}

bool ByteSource::read(void *dst, size_t n)
{
	auto *d = static_cast<uint8_t *>(dst);
	while (n) {
		if (pos_ == len_ && !refill())
			return false;
		size_t k = std::min(n, len_ - pos_);
		std::memcpy(d, buf_.data() + pos_, k);
		pos_ += k;
		d += k;
		n -= k;
	}
	return true;
}

struct ByteSink::Codec {
	z_stream z{};
	bool z_init = false;
	ZSTD_CCtx *zstd = nullptr;
	~Codec()
	{
		if (z_init)
			deflateEnd(&z);
		if (zstd)
			ZSTD_freeCCtx(zstd);
	}
};

ByteSink::ByteSink(const std::string &path, Compression comp, int level, Output mode)
    : path_(path), comp_(comp)
{
	if (mode == Output::Replace) {
		out_file_ = std::make_unique<OutputFile>(path); // unbuffered, as below
		file_ = out_file_->stream();
	} else {
		file_ = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
		if (!file_)
			throw TraceError(path + ": cannot create: " + std::strerror(errno));
		// The sink writes whole chunks itself: stdio keeps none of them. A process that
		// forks while recording (the virtual radeon's kernel view) then leaves nothing in the
		// child for its exit() to flush into the parent's file.
		if (file_ != stdout)
			std::setvbuf(file_, nullptr, _IONBF, 0);
	}
	codec_ = std::make_unique<Codec>();
	if (comp == Compression::Gzip) {
		if (deflateInit2(&codec_->z, level ? level : 9, Z_DEFLATED, 15 + 16, 9,
		                 Z_DEFAULT_STRATEGY) != Z_OK)
			throw TraceError(path + ": cannot initialise zlib");
		codec_->z_init = true;
	} else if (comp == Compression::Zstd) {
		codec_->zstd = ZSTD_createCCtx();
		ZSTD_CCtx_setParameter(codec_->zstd, ZSTD_c_compressionLevel, level ? level : 9);
	}
	buf_.reserve(kOutSize);
	out_.resize(kOutSize);
}

ByteSink::~ByteSink()
{
	if (out_file_) // not closed: out_file_'s own destructor removes what was written
		return;
	try {
		close();
	} catch (...) {
	}
}

void ByteSink::write(const void *p, size_t n)
{
	auto *s = static_cast<const uint8_t *>(p);
	for (size_t i = 0; i < n; i++)
		put(s[i]);
}

void ByteSink::flush_buffer(Mode mode)
{
	auto emit = [&](const uint8_t *d, size_t n) {
		if (n && std::fwrite(d, 1, n, file_) != n)
			throw TraceError(path_ + ": write error: " + std::strerror(errno));
	};
	const bool end = mode == Mode::End, flush = mode == Mode::Flush;
	if (comp_ == Compression::None) {
		emit(buf_.data(), buf_.size());
	} else if (comp_ == Compression::Gzip) {
		z_stream &z = codec_->z;
		z.next_in = buf_.data();
		z.avail_in = static_cast<uInt>(buf_.size());
		const int how = end ? Z_FINISH : flush ? Z_SYNC_FLUSH : Z_NO_FLUSH;
		int r;
		do {
			z.next_out = out_.data();
			z.avail_out = static_cast<uInt>(out_.size());
			r = deflate(&z, how);
			emit(out_.data(), out_.size() - z.avail_out);
		} while (z.avail_in || (end && r != Z_STREAM_END) || (flush && z.avail_out == 0));
	} else {
		ZSTD_inBuffer in{buf_.data(), buf_.size(), 0};
		const ZSTD_EndDirective how = end ? ZSTD_e_end : flush ? ZSTD_e_flush : ZSTD_e_continue;
		size_t r;
		do {
			ZSTD_outBuffer out{out_.data(), out_.size(), 0};
			r = ZSTD_compressStream2(codec_->zstd, &out, &in, how);
			if (ZSTD_isError(r))
				throw TraceError(path_ + ": zstd: " + ZSTD_getErrorName(r));
			emit(out_.data(), out.pos);
		} while (in.pos < in.size || (how != ZSTD_e_continue && r != 0));
	}
	buf_.clear();
}

void ByteSink::flush()
{
	if (closed_)
		return;
	flush_buffer(Mode::Flush);
	if (std::fflush(file_) != 0)
		throw TraceError(path_ + ": write error: " + std::strerror(errno));
}

void ByteSink::close()
{
	if (closed_)
		return;
	closed_ = true;
	flush_buffer(Mode::End);
	if (out_file_) {
		file_ = nullptr;
		out_file_->commit(); // flushes, fsyncs and renames; stdout only flushed
		return;
	}
	if (file_ != stdout) {
		if (std::fclose(file_) != 0)
			throw TraceError(path_ + ": close failed: " + std::strerror(errno));
	} else {
		std::fflush(stdout);
	}
	file_ = nullptr;
}

} // namespace vramlab
