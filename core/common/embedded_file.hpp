#pragma once
// A file of resources/ embedded at build time by cmake/RateLabEmbed.cmake
// (rl_embed_files): Lua scripts in rl_redis, scenario files in rl_storm.

#include <string_view>

namespace rl {

/// One embedded file: its name without extension and its text, byte for byte.
struct EmbeddedFile {
  std::string_view name;    ///< e.g. "token_bucket", "boundary"
  std::string_view source;  ///< the file's text
};

}  // namespace rl
