#include "common/file_write.hpp"

#include <cerrno>
#include <cstring>

namespace rl {

Result<void> writeFileAtomically(const std::string& path, const std::function<bool(std::FILE*)>& write) {
  const std::string partial = path + ".part";
  std::FILE* f = std::fopen(partial.c_str(), "w");
  if (!f) return invalidArgument("cannot write '" + path + "': " + std::strerror(errno));
  const bool written = write(f) && std::ferror(f) == 0;
  if (std::fclose(f) != 0 || !written || std::rename(partial.c_str(), path.c_str()) != 0) {
    const std::string why = errno != 0 ? std::strerror(errno) : "write failed";
    std::remove(partial.c_str());
    return invalidArgument("cannot write '" + path + "': " + why);
  }
  return {};
}

}  // namespace rl
