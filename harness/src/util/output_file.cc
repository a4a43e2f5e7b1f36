// The one writer of every vramlab output (output_file.h has the rules, docs/cli.md the why).
#include "util/output_file.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <vector>

#include "trace/event.h"

namespace vramlab {
namespace {

// The temporary files being written, for the signal handler: fixed storage and atomics only,
// since a handler may not allocate or lock. A writer that finds no free slot still works; only
// an interrupt would then leave its temporary file behind.
constexpr int kSlots = 64;
struct Slot {
	std::atomic<int> state{0}; // 0 free, 1 being filled, 2 holds a path
	char path[PATH_MAX];
};
Slot g_slots[kSlots];
const char *g_prog = "vramlab";

int register_tmp(const std::string &path)
{
	if (path.size() >= PATH_MAX)
		return -1;
	for (int i = 0; i < kSlots; i++) {
		int expect = 0;
		if (g_slots[i].state.compare_exchange_strong(expect, 1)) {
			std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
			g_slots[i].state.store(2, std::memory_order_release);
			return i;
		}
	}
	return -1;
}

void unregister_tmp(int &slot)
{
	if (slot >= 0)
		g_slots[slot].state.store(0, std::memory_order_release);
	slot = -1;
}

void on_signal(int sig)
{
	for (Slot &s : g_slots)
		if (s.state.load(std::memory_order_acquire) == 2)
			::unlink(s.path);
	const char *what = ": interrupted\n";
	ssize_t r = ::write(STDERR_FILENO, g_prog, std::strlen(g_prog));
	r = ::write(STDERR_FILENO, what, std::strlen(what));
	(void)r;
	::_exit(128 + sig);
}

mode_t process_umask()
{
	// umask() can only be read by setting it: done once, before any file is created
	static const mode_t m = [] {
		const mode_t old = ::umask(022);
		::umask(old);
		return old;
	}();
	return m;
}

std::string dir_of(const std::string &p)
{
	const size_t slash = p.rfind('/');
	if (slash == std::string::npos)
		return ".";
	return slash == 0 ? "/" : p.substr(0, slash);
}

std::string base_of(const std::string &p)
{
	const size_t slash = p.rfind('/');
	return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The file a write to PATH replaces: PATH itself, or the final target of its symlinks (which
// need not exist yet).
std::string resolve_links(const std::string &path)
{
	std::string p = path;
	for (int depth = 0; depth < 40; depth++) { // the kernel's own limit (ELOOP)
		struct stat st;
		if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
			return p;
		std::vector<char> buf(size_t(st.st_size > 0 ? st.st_size : PATH_MAX) + 1);
		const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
		if (n < 0)
			return p;
		std::string next(buf.data(), size_t(n));
		if (next.empty())
			return p;
		p = next[0] == '/' ? next : dir_of(p) + "/" + next;
	}
	throw TraceError(path + ": cannot write: too many levels of symbolic links");
}

[[noreturn]] void fail(const std::string &path, const std::string &why)
{
	throw TraceError(path + ": cannot write: " + why);
}

} // namespace

OutputFile::OutputFile(const std::string &path) : path_(path), owner_(::getpid())
{
	if (path.empty())
		throw TraceError("cannot write: an empty file name");
	if (path == "-") {
		target_ = path;
		file_ = stdout;
		direct_ = true;
		return;
	}
	target_ = resolve_links(path);
	struct stat st;
	const bool exists = ::stat(target_.c_str(), &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		fail(path, "it is a directory");
	int fd;
	if (exists && !S_ISREG(st.st_mode)) {
		// a device, FIFO or socket is written where it is: renaming over it would replace it
		fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			fail(path, std::strerror(errno));
		direct_ = true;
	} else {
		process_umask();
		const std::string dir = dir_of(target_);
		// a hidden name of the target's own, cut to fit NAME_MAX with ".XXXXXX"
		std::string tmpl = dir + "/." + base_of(target_).substr(0, 200) + ".XXXXXX";
		std::vector<char> name(tmpl.begin(), tmpl.end());
		name.push_back('\0');
		fd = ::mkostemp(name.data(), O_CLOEXEC);
		if (fd < 0)
			fail(path, errno == ENOENT ? "no directory " + dir : std::string(std::strerror(errno)));
		tmp_ = name.data();
		slot_ = register_tmp(tmp_);
		// the file replaced keeps its mode (and, as root, its owner); a new one gets the umask's
		bool ok = true;
		if (exists) {
			if (::geteuid() == 0)
				ok = ::fchown(fd, st.st_uid, st.st_gid) == 0;
			ok = ok && ::fchmod(fd, st.st_mode & 07777) == 0;
		} else {
			ok = ::fchmod(fd, 0666 & ~process_umask()) == 0;
		}
		if (!ok) {
			const int e = errno;
			::close(fd);
			discard();
			fail(path, std::strerror(e));
		}
	}
	file_ = ::fdopen(fd, "wb");
	if (!file_) {
		const int e = errno;
		::close(fd);
		discard();
		fail(path, std::strerror(e));
	}
	// unbuffered: callers write whole chunks, and a forked child has nothing left to flush
	std::setvbuf(file_, nullptr, _IONBF, 0);
}

OutputFile::~OutputFile()
{
	if (!done_)
		discard();
}

void OutputFile::write(const void *p, size_t n)
{
	if (n && std::fwrite(p, 1, n, file_) != n)
		throw TraceError(path_ + ": write error: " + std::strerror(errno));
}

void OutputFile::discard() noexcept
{
	if (file_ && file_ != stdout)
		std::fclose(file_);
	file_ = nullptr;
	if (!tmp_.empty() && ::getpid() == owner_)
		::unlink(tmp_.c_str());
	unregister_tmp(slot_);
	done_ = true;
}

void OutputFile::commit()
{
	if (done_)
		return;
	if (::getpid() != owner_) { // the parent's file: a child leaves it alone
		done_ = true;
		return;
	}
	if (file_ == stdout) {
		done_ = true;
		if (std::fflush(stdout) != 0)
			throw TraceError("stdout: write error: " + std::string(std::strerror(errno)));
		return;
	}
	bool ok = std::fflush(file_) == 0;
	int e = errno;
	if (ok && !direct_ && ::fsync(fileno(file_)) != 0)
		ok = false, e = errno;
	if (std::fclose(file_) != 0 && ok)
		ok = false, e = errno;
	file_ = nullptr;
	if (ok && !direct_ && ::rename(tmp_.c_str(), target_.c_str()) != 0)
		ok = false, e = errno;
	if (!ok) {
		discard();
		fail(path_, std::strerror(e));
	}
	unregister_tmp(slot_); // after the rename: an interrupt before it removes the file
	done_ = true;
	if (!direct_) {
		// the rename itself survives a crash
		const int dfd = ::open(dir_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			::fsync(dfd);
			::close(dfd);
		}
	}
}

void write_output(const std::string &path, const std::string &text)
{
	OutputFile f(path);
	f.write(text.data(), text.size());
	f.commit();
}

void check_output_path(const std::string &path)
{
	if (path == "-")
		return;
	if (path.empty())
		throw TraceError("cannot write: an empty file name");
	const std::string target = resolve_links(path);
	struct stat st;
	if (::stat(target.c_str(), &st) == 0) {
		if (S_ISDIR(st.st_mode))
			fail(path, "it is a directory");
		if (!S_ISREG(st.st_mode)) // written in place
			return ::access(target.c_str(), W_OK) == 0 ? void()
			                                           : fail(path, std::strerror(errno));
	}
	const std::string dir = dir_of(target);
	if (::stat(dir.c_str(), &st) != 0)
		fail(path, "no directory " + dir);
	if (!S_ISDIR(st.st_mode))
		fail(path, dir + " is not a directory");
	if (::access(dir.c_str(), W_OK | X_OK) != 0)
		fail(path, dir + ": " + std::strerror(errno));
	struct statvfs vfs;
	if (::statvfs(dir.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
		fail(path, dir + ": " + std::strerror(EROFS));
	// proc and sysfs take no new file even from root, whom access() lets through
	struct statfs fs;
	constexpr long kProc = 0x9fa0, kSysfs = 0x62656572;
	if (::statfs(dir.c_str(), &fs) == 0 && (fs.f_type == kProc || fs.f_type == kSysfs))
		fail(path, dir + " takes no new files (proc or sysfs)");
}

bool written_in_place(const std::string &path)
{
	struct stat st;
	return path == "-" ||
	       (::stat(resolve_links(path).c_str(), &st) == 0 && !S_ISREG(st.st_mode) &&
	        !S_ISDIR(st.st_mode));
}

void install_interrupt_cleanup(const char *prog)
{
	g_prog = prog;
	process_umask(); // read now, while there is one thread
	struct sigaction sa {};
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (int sig : {SIGINT, SIGTERM}) {
		struct sigaction old {};
		// a signal the caller ignores (nohup, a shell's background job) stays ignored
		if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN)
			::sigaction(sig, &sa, nullptr);
	}
}

} // namespace vramlab
