// Byte streams under the trace formats: transparent gzip / zstd / plain reading with the offset
// of every byte known (for error messages), and compressed writing. Nothing is held whole but a
// small gzip stream (up to 64 MiB), inflated in one call.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace vramlab {

enum class Compression { None, Gzip, Zstd };

// How a writer reaches its file (util/output_file.h, docs/cli.md):
// - Replace: the whole output or nothing: a temporary file renamed over the target at close();
//   a writer destroyed without close() (an error, an exception) leaves the old file;
// - Live: a recording written in place as it goes (the virtual radeon's kernel view), so that
//   a program killed while recording leaves a readable prefix (flush()).
enum class Output { Replace, Live };
class OutputFile;

class ByteSource {
public:
	// Opens path ("-" = stdin) and detects the compression from its first bytes.
	explicit ByteSource(const std::string &path);
	// Reads from memory (fuzzers, tests); the data must outlive the source.
	ByteSource(const uint8_t *data, size_t size, std::string name);
	~ByteSource();
	ByteSource(const ByteSource &) = delete;
	ByteSource &operator=(const ByteSource &) = delete;

	// One byte; false at the clean end of the stream.
	bool get(uint8_t &b)
	{
		if (pos_ == len_ && !refill())
			return false;
		b = buf_[pos_++];
		return true;
	}
	// Fast path for parsers: a pointer to the next n bytes if they are already buffered
	// contiguously (else nullptr: use get/read), and skip() to consume them.
	const uint8_t *peek(size_t n) const { return len_ - pos_ >= n ? buf_.data() + pos_ : nullptr; }
	void skip(size_t n) { pos_ += n; }
	// How many bytes peek() can give now (0: the next read refills).
	size_t buffered() const { return len_ - pos_; }
	// Exactly n bytes or false (the stream ended first).
	bool read(void *dst, size_t n);
	// Offset of the next byte in the decompressed stream.
	uint64_t offset() const { return consumed_ + pos_; }
	const std::string &name() const { return name_; }
	Compression compression() const { return comp_; }
	// The decompressed size if known up front (a plain file's size, a gzip file's ISIZE
	// trailer, which is the size mod 2^32), else 0. Only a hint for reserving memory.
	uint64_t size_hint() const { return size_hint_; }
	[[noreturn]] void fail(const std::string &what) const; // "<file>: byte <offset>: <what>"
	[[noreturn]] void fail_at(uint64_t off, const std::string &what) const;
	// The same message, thrown as TruncatedInput (the data stops at `off`).
	[[noreturn]] void fail_truncated_at(uint64_t off, const std::string &what) const;
	// Whether the compressed stream itself was cut (TruncatedInput from the codec).
	bool stream_cut() const { return stream_cut_; }
	// Compressed (raw) bytes read so far.
	uint64_t raw_offset() const { return raw_consumed_; }
	// Whether the whole stream was inflated in one call (a small single-member gzip stream).
	bool whole() const { return whole_; }

private:
	void detect();
	bool inflate_whole_file();
	bool inflate_whole(const uint8_t *data, size_t size);
	bool refill();
	size_t raw_read(uint8_t *dst, size_t n);

	std::string name_;
	FILE *file_ = nullptr;
	bool own_file_ = false;
	const uint8_t *mem_ = nullptr;
	size_t mem_size_ = 0, mem_pos_ = 0;
	Compression comp_ = Compression::None;
	struct Codec;
	std::unique_ptr<Codec> codec_;
	std::vector<uint8_t> in_, buf_;
	size_t in_pos_ = 0, in_len_ = 0;
	uint64_t raw_consumed_ = 0; // compressed bytes read so far
	uint64_t size_hint_ = 0;
	size_t pos_ = 0, len_ = 0;
	uint64_t consumed_ = 0; // decompressed bytes before buf_
	bool raw_eof_ = false, codec_done_ = true, stream_cut_ = false, whole_ = false;
};

class ByteSink {
public:
	ByteSink(const std::string &path, Compression comp, int level = 0,
	         Output mode = Output::Replace);
	// Live: closes (errors are only reported by close()); Replace: without close(), nothing
	// replaces the target
	~ByteSink();
	ByteSink(const ByteSink &) = delete;
	ByteSink &operator=(const ByteSink &) = delete;
	void put(uint8_t b)
	{
		if (buf_.size() == buf_.capacity())
			flush_buffer(Mode::Continue);
		buf_.push_back(b);
	}
	void write(const void *p, size_t n);
	// Everything so far reaches the file in a form a reader can decompress on its own (a zstd
	// or zlib flush), so that a writer killed later leaves a readable prefix.
	void flush();
	void close();

private:
	enum class Mode { Continue, Flush, End };
	void flush_buffer(Mode mode);
	std::string path_;
	FILE *file_ = nullptr;
	std::unique_ptr<OutputFile> out_file_; // Replace
	Compression comp_;
	struct Codec;
	std::unique_ptr<Codec> codec_;
	std::vector<uint8_t> buf_, out_;
	bool closed_ = false;
};

} // namespace vramlab
