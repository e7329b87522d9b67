#pragma once
// Reading a whole file, capped: every file RateLab reads at once (scenarios,
// password files, user scripts) goes through readWholeFile, so `/dev/zero` or
// a multi-GB file is refused promptly with bounded memory instead of read.
// Streamed files (traces) are not read whole and are not capped here.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace rl {

/// The default cap: 4 MiB (`--max-file-mb` changes it).
inline constexpr std::int64_t kDefaultMaxFileMb = 4;
/// The largest cap `--max-file-mb` accepts.
inline constexpr std::int64_t kMaxFileMbLimit = 1024;

/// The cap in force, in MiB (process-wide; set once at startup).
std::int64_t maxFileMb();
/// Sets the cap; InvalidArgument unless 1 <= mb <= kMaxFileMbLimit.
Result<void> setMaxFileMb(std::int64_t mb);
/// Parses and sets `--max-file-mb` text; the error names the flag and the range.
Result<void> setMaxFileMbText(std::string_view text);

/// The whole content of `path`, reading at most the cap + 1 byte. InvalidArgument
/// names `shownAs` (e.g. "--scenario"), the file and what is allowed when it
/// cannot be read or is larger than the cap.
Result<std::string> readWholeFile(const std::string& path, std::string_view shownAs);

}  // namespace rl
