#pragma once
// A size for people: "812 B", "15.3 KiB", "42.0 MiB". The one place the CLI,
// the window and the report turn MEMORY USAGE bytes into words.

#include <cstdint>
#include <string>

namespace rl {

/// `bytes` in B under 10,000, KiB under 10,000,000, else MiB (one decimal).
std::string bytesText(std::int64_t bytes);

}  // namespace rl
