// How vramlab writes every file it is asked to write (docs/cli.md, "How outputs are written").
//
// vramlab runs as root (CI, kernel and Mesa work), so an output must never replace what was
// not named, and an interrupted or failed run must leave the old file or none:
// - a regular file (or a name that does not exist yet) is written to a temporary file created
//   exclusively (mkstemp: a random name in the target's directory, so nothing planted there can
//   be followed), fsynced, renamed over the target, and the directory is fsynced; an existing
//   file's mode, and as root its owner, are kept;
// - a symlink is resolved: its final target is replaced and the link kept;
// - an existing target that is not a regular file (a character device such as /dev/null or
//   /dev/stdout, a FIFO, a socket) is opened and written directly, never renamed over;
// - a directory is refused.
// The temporary files are registered, so that SIGINT and SIGTERM (install_interrupt_cleanup())
// remove them before the process exits.
#pragma once
#include <cstdio>
#include <string>
#include <sys/types.h>

namespace vramlab {

class OutputFile {
public:
	// Opens PATH for writing as above. TraceError naming PATH when it cannot be.
	explicit OutputFile(const std::string &path);
	// Without commit(): the temporary file is removed, the target left as it was.
	~OutputFile();
	OutputFile(const OutputFile &) = delete;
	OutputFile &operator=(const OutputFile &) = delete;

	// The stream to write to (unbuffered: callers write whole chunks; see ByteSink).
	std::FILE *stream() const { return file_; }
	void write(const void *p, size_t n);
	// Flushes, fsyncs and renames into place (a direct target: flushes and closes). TraceError
	// naming the target when any step fails; the temporary file is then removed.
	void commit();
	// The target is written in place (a device, a FIFO, a socket)
	bool direct() const { return direct_; }
	// The name given, and the file that is replaced (the symlink's final target)
	const std::string &path() const { return path_; }
	const std::string &target() const { return target_; }

private:
	void discard() noexcept;

	std::string path_, target_, tmp_;
	std::FILE *file_ = nullptr;
	bool direct_ = false, done_ = false;
	pid_t owner_ = 0; // a forked child neither commits nor removes its parent's file
	int slot_ = -1;   // in the interrupt registry
};

// TEXT into PATH through an OutputFile ("-" is stdout).
void write_output(const std::string &path, const std::string &text);
// Can PATH be written as an output? Checks without creating, truncating or following
// anything but PATH's own symlinks: the target is not a directory, and its directory exists
// and is writable. TraceError naming PATH when not. "-" is always fine.
void check_output_path(const std::string &path);
// PATH would be written in place, not replaced: "-" (stdout), or an existing device, FIFO
// or socket (through its symlinks). Such an output cannot be read back afterwards.
bool written_in_place(const std::string &path);
// SIGINT and SIGTERM: remove every temporary file an OutputFile holds, print one line
// ("PROG: interrupted") and exit 130 or 143, as a shell reports a signal's death.
void install_interrupt_cleanup(const char *prog);

} // namespace vramlab
