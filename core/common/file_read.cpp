#include "common/file_read.hpp"

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>

namespace rl {

namespace {
std::atomic<std::int64_t> gMaxFileMb{kDefaultMaxFileMb};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
}  // namespace

std::int64_t maxFileMb() { return gMaxFileMb.load(std::memory_order_relaxed); }

Result<void> setMaxFileMb(std::int64_t mb) {
  if (mb < 1 || mb > kMaxFileMbLimit)
    return invalidArgument("--max-file-mb " + std::to_string(mb) + " is out of range: allowed 1 to " +
                           std::to_string(kMaxFileMbLimit) + " (MB)");
  gMaxFileMb.store(mb, std::memory_order_relaxed);
  return {};
}

Result<void> setMaxFileMbText(std::string_view text) {
  std::int64_t mb = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), mb);
  if (text.empty() || ec != std::errc{} || p != text.data() + text.size())
    return invalidArgument("--max-file-mb: '" + std::string(text) + "' is not valid: allowed an integer 1 to " +
                           std::to_string(kMaxFileMbLimit) + " (MB)");
  return setMaxFileMb(mb);
}

Result<std::string> readWholeFile(const std::string& path, std::string_view shownAs) {
  const std::string what = std::string(shownAs) + " '" + path + "'";
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return invalidArgument(what + ": cannot read it (" + std::strerror(errno) + "): allowed a readable file");
  const std::int64_t mb = maxFileMb();
  const auto cap = static_cast<std::size_t>(mb) * 1024 * 1024;
  std::string out;
  char buf[64 * 1024];
  while (true) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, f.get());
    if (n == 0) break;
    if (out.size() + n > cap)
      return invalidArgument(what + " is larger than the " + std::to_string(mb) +
                             " MB cap: allowed files up to --max-file-mb MB (1 to " +
                             std::to_string(kMaxFileMbLimit) + ")");
    out.append(buf, n);
  }
  if (std::ferror(f.get()))
    return invalidArgument(what + ": read failed (" + std::strerror(errno) + "): allowed a readable file");
  return out;
}

}  // namespace rl
