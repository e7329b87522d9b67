// Shared by the fuzz targets that feed bytes to hiredis's own reply reader.
#pragma once

#include <cstddef>
#include <string_view>

namespace rl::fuzz {

// hiredis 0.14 allocates an array's element table when it reads the header
// ("*961639383" asks calloc for 7.7 GB of address space; Linux gives untouched
// zero pages, the reader then waits for elements that never come, and a
// connection's command timeout ends it). That is hiredis's, not ours: inputs
// declaring more elements than they have bytes are left out. Any '*' counts, not
// only one at a line's start: hiredis skips a bulk string's two closing bytes
// without checking them, so "$1\r\n?\n\x9a*470011122" holds an array header too.
inline bool declaresAtMostItsSize(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '*') continue;
    std::size_t n = 0, j = i + 1;
    for (; j < text.size() && text[j] >= '0' && text[j] <= '9' && n <= text.size(); ++j) n = n * 10 + (text[j] - '0');
    if (n > text.size()) return false;
  }
  return true;
}

}  // namespace rl::fuzz
