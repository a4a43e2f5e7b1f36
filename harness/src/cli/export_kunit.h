#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace vramlab {
// kernel: "6.12" (the 6.12 lab's suite: every placement, order and mechanism, 6.14's path
// emulated) or "7.2" (the 7.2 lab's suite: LRU and bottom-up, stock 7.2 and 7.2 with the fixes)
void cmd_export_kunit(const std::vector<std::string> &inputs, const std::string &out,
                      uint32_t max_cs, const std::string &kernel = "6.12");
}
