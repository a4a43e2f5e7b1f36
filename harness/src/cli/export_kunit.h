#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace vramlab {
void cmd_export_kunit(const std::vector<std::string> &inputs, const std::string &out,
                      uint32_t max_cs);
}
