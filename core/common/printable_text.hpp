#pragma once
// Text from outside (trace keys, Redis key names and values, replies) made
// safe to print on a terminal: every byte that is not printable is shown as
// \xHH, so ESC / OSC sequences, BEL, NUL, CR and LF never reach the terminal
// raw, a NUL no longer cuts a name and binary values (HLL, bitmaps) print as
// escapes. Valid UTF-8 above U+009F is kept as is; the C1 controls
// (U+0080..U+009F) and invalid UTF-8 bytes are escaped. A backslash stays.

#include <string>
#include <string_view>

namespace rl {

/// `text` with every non-printable byte as \xHH; see the file comment.
std::string printableText(std::string_view text);

}  // namespace rl
