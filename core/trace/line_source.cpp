#include "trace/line_source.hpp"

#include <zlib.h>

#include <cstring>

namespace rl {

Result<LineSource> LineSource::open(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr)
    return invalidArgument("--trace: cannot read '" + path + "': " + std::strerror(errno) +
                           ": allowed a readable file (plain or .gz)");
  gzbuffer(f, 1 << 18);
  return LineSource(f, path);
}

LineSource::LineSource(void* file, std::string path) : file_(file), path_(std::move(path)), buf_(kBufferBytes) {}

LineSource::LineSource(LineSource&& o) noexcept
    : file_(o.file_), path_(std::move(o.path_)), buf_(std::move(o.buf_)), begin_(o.begin_), end_(o.end_),
      eof_(o.eof_), error_(std::move(o.error_)) {
  o.file_ = nullptr;
}

LineSource::~LineSource() {
  if (file_ != nullptr) gzclose(static_cast<gzFile>(file_));
}

std::int64_t LineSource::bytesRead() const {
  return file_ != nullptr ? static_cast<std::int64_t>(gzoffset(static_cast<gzFile>(file_))) : 0;
}

std::int64_t LineSource::bytesDecompressed() const {
  return file_ != nullptr ? static_cast<std::int64_t>(gztell(static_cast<gzFile>(file_))) : 0;
}

// Moves the unread tail to the front and reads more; false at the end or on error.
bool LineSource::refill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buf_.size()) return false;
  const int n = gzread(static_cast<gzFile>(file_), buf_.data() + end_, static_cast<unsigned>(buf_.size() - end_));
  if (n < 0) {
    int code = 0;
    error_ = "--trace: cannot read '" + path_ + "': " + gzerror(static_cast<gzFile>(file_), &code);
    eof_ = true;
    return false;
  }
  if (n == 0) {
    eof_ = true;
    int code = 0;
    const char* msg = gzerror(static_cast<gzFile>(file_), &code);
    if (code != Z_OK) {  // a truncated gzip ends with Z_BUF_ERROR, not a quiet end
      error_ = "--trace: cannot read '" + path_ + "': " + msg + ": allowed a complete gzip file";
      return false;
    }
  }
  end_ += static_cast<std::size_t>(n);
  return n > 0;
}

LineSource::Status LineSource::next(std::string_view& line) {
  bool skipping = false;  // inside a line longer than the buffer
  while (true) {
    const char* start = buf_.data() + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl != nullptr) {
      const auto len = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
      begin_ += len + 1;
      if (skipping) return Status::TooLong;
      line = std::string_view(start, len > 0 && start[len - 1] == '\r' ? len - 1 : len);
      return Status::Line;
    }
    if (begin_ == 0 && end_ == buf_.size()) {  // no newline in a full buffer: drop it, keep skipping
      skipping = true;
      end_ = 0;
    }
    if (!refill()) {
      if (!error_.empty()) return Status::Error;
      if (end_ == begin_) return skipping ? Status::TooLong : Status::End;
      const std::size_t len = end_ - begin_;  // the last line has no newline
      line = std::string_view(buf_.data() + begin_, len > 0 && buf_[begin_ + len - 1] == '\r' ? len - 1 : len);
      begin_ = end_;
      if (skipping) return Status::TooLong;
      return Status::Line;
    }
  }
}

}  // namespace rl
