#pragma once
// LineSource: the lines of a plain or gzip-compressed file, streamed through
// one fixed buffer (zlib's gzread reads both kinds). Memory stays bounded
// whatever the file's size: a line longer than the buffer is reported as
// too long and skipped, never grown into.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace rl {

/// Streams the lines of one file; see the file comment.
class LineSource {
 public:
  /// Bytes held at once (the longest line that can be read).
  static constexpr std::size_t kBufferBytes = 1 << 20;

  /// Opens `path` (plain or gzip). The error names the file.
  static Result<LineSource> open(const std::string& path);
  LineSource(LineSource&& other) noexcept;
  LineSource& operator=(LineSource&&) = delete;
  LineSource(const LineSource&) = delete;
  LineSource& operator=(const LineSource&) = delete;
  ~LineSource();

  /// The outcome of next().
  enum class Status { Line, TooLong, End, Error };
  /// The next line without its "\n" (and "\r"), valid until the next call.
  /// TooLong: a line over kBufferBytes was skipped. Error: see error().
  Status next(std::string_view& line);
  /// Bytes of the file consumed so far (compressed bytes for gzip).
  std::int64_t bytesRead() const;
  /// Bytes of content read so far (after decompression for gzip).
  std::int64_t bytesDecompressed() const;
  /// Why next() returned Error.
  const std::string& error() const { return error_; }

 private:
  explicit LineSource(void* file, std::string path);
  bool refill();

  void* file_ = nullptr;    ///< gzFile
  std::string path_;        ///< for messages
  std::vector<char> buf_;   ///< kBufferBytes
  std::size_t begin_ = 0;   ///< first unread byte in buf_
  std::size_t end_ = 0;     ///< one past the last valid byte
  bool eof_ = false;        ///< gzread reached the end
  std::string error_;       ///< read error
};

}  // namespace rl
