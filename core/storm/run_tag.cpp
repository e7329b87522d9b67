#include "storm/run_tag.hpp"

#include <atomic>
#include <chrono>

namespace rl {

std::string freshRunTag(std::string_view word) {
  static std::atomic<unsigned> made{0};
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch()).count();
  return std::string(word) + std::to_string(ms) + "-" + std::to_string(++made) + "-";
}

}  // namespace rl
