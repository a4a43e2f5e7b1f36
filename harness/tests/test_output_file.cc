// OutputFile (util/output_file.h): what a writer leaves when it fails, is abandoned or forks.
// The command-line cases (devices, symlinks, FIFOs, modes, interrupts) are outputs_test.sh.
#include <filesystem>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "trace/event.h"
#include "trace/format.h"
#include "util/output_file.h"

using namespace vramlab;
namespace fs = std::filesystem;

namespace {

// A directory of the test's own: what is in it after a writer is all the writer left.
struct Dir {
	fs::path p;
	Dir() : p(test::temp_path("outdir")) { fs::remove_all(p), fs::create_directories(p); }
	~Dir() { fs::remove_all(p); }
	std::string operator/(const std::string &n) const { return (p / n).string(); }
	size_t entries() const { return size_t(std::distance(fs::directory_iterator(p), {})); }
};

} // namespace

TEST(OutputFile, NotCommittedLeavesTheOldFileAndNoTemporary)
{
	Dir d;
	test::write_bytes(d / "out", "old");
	{
		OutputFile f(d / "out");
		f.write("new, half", 9);
		EXPECT_EQ(d.entries(), 2u); // the target and the hidden temporary file
	}
	EXPECT_EQ(test::read_bytes(d / "out"), "old");
	EXPECT_EQ(d.entries(), 1u);
}

TEST(OutputFile, CommitReplacesWhole)
{
	Dir d;
	test::write_bytes(d / "out", "old");
	OutputFile f(d / "out");
	f.write("new", 3);
	EXPECT_EQ(test::read_bytes(d / "out"), "old"); // nothing shows before the commit
	f.commit();
	EXPECT_EQ(test::read_bytes(d / "out"), "new");
	EXPECT_EQ(d.entries(), 1u);
}

TEST(OutputFile, ATraceWriterThatThrowsLeavesTheOldTrace)
{
	Dir d;
	test::write_bytes(d / "t.vrl", "old");
	try {
		auto w = make_writer(Format::V2, d / "t.vrl", TraceInfo{});
		Event e{};
		e.type = EventType::Create;
		e.size = 4096;
		w->write(e);
		throw TraceError("an input that fails midway");
	} catch (const TraceError &) {
	}
	EXPECT_EQ(test::read_bytes(d / "t.vrl"), "old");
	EXPECT_EQ(d.entries(), 1u);
}

TEST(OutputFile, AForkedChildNeitherCommitsNorRemoves)
{
	Dir d;
	OutputFile f(d / "out");
	f.write("parent", 6);
	const pid_t child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		f.commit(); // the parent's file: nothing happens
		_exit(fs::exists(d / "out") ? 1 : 0);
	}
	int status = 0;
	ASSERT_EQ(waitpid(child, &status, 0), child);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(d.entries(), 1u); // the temporary file, still the parent's
	f.commit();
	EXPECT_EQ(test::read_bytes(d / "out"), "parent");
}

TEST(OutputFile, ADanglingSymlinkCreatesItsTarget)
{
	Dir d;
	fs::create_symlink("sub/target", d / "link");
	fs::create_directories(d / "sub");
	write_output(d / "link", "x");
	EXPECT_TRUE(fs::is_symlink(d / "link"));
	EXPECT_EQ(test::read_bytes(d / "sub/target"), "x");
}

TEST(OutputFile, RefusedWithTheNameAndWhy)
{
	Dir d;
	auto message = [](const std::string &path) {
		try {
			OutputFile f(path);
		} catch (const TraceError &e) {
			return std::string(e.what());
		}
		return std::string("no error");
	};
	EXPECT_EQ(message(d / "no/such/x"), d / "no/such/x" + ": cannot write: no directory " +
	                                        d / "no/such");
	EXPECT_EQ(message(d.p.string()), d.p.string() + ": cannot write: it is a directory");
	EXPECT_EQ(message(""), "cannot write: an empty file name");
	fs::create_symlink("loop", d / "loop");
	EXPECT_EQ(message(d / "loop"), d / "loop" + ": cannot write: too many levels of symbolic links");
	EXPECT_THROW(check_output_path(d / "no/such/x"), TraceError);
	EXPECT_THROW(check_output_path("/proc/x.json"), TraceError);
	EXPECT_EQ(d.entries(), 1u); // the loop; the checks made nothing
}
