#include "trace/event.h"

namespace vramlab {

std::string_view event_name(EventType t)
{
	switch (t) {
	case EventType::Create: return "create";
	case EventType::Read: return "read";
	case EventType::Write: return "write";
	case EventType::Destroy: return "destroy";
	case EventType::Cpu: return "cpu op";
	case EventType::Frame: return "frame";
	case EventType::Score: return "score";
	case EventType::Context: return "context";
	case EventType::Cs: return "command stream";
	}
	return "?";
}

} // namespace vramlab
