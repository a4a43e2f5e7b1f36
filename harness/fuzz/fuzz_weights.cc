// libFuzzer target: the MLP weights-file parser, then a score from what it accepted.
#include <cstdint>
#include <string>

#include "mlp/mlp.h"
#include "trace/event.h"

using namespace vramlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	try {
		const Mlp m = Mlp::parse(std::string(reinterpret_cast<const char *>(data), size), "fuzz");
		BufferStats s;
		s.size = 1 << 20;
		s.reads = 3;
		m.score(s);
	} catch (const TraceError &) {
	}
	return 0;
}
