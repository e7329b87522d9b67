#include "http/serve_descriptors.hpp"

#include <sys/resource.h>

#include <algorithm>

#include "http/serve_cluster.hpp"

namespace rl {
namespace {

long reserveFor(int replicas) { return 64 + 8L * replicas; }

}  // namespace

long raiseOpenFileLimit() {
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0) return 1024;
  if (r.rlim_cur < r.rlim_max) {
    rlimit raised = r;
    raised.rlim_cur = r.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) r = raised;
  }
  return r.rlim_cur == RLIM_INFINITY ? (1L << 30) : static_cast<long>(std::min<rlim_t>(r.rlim_cur, 1UL << 30));
}

ServeDescriptors serveDescriptors(FrontKind front, int replicas, int maxConnections, int nginxPool) {
  const long f = maxConnections, k = replicas;
  ServeDescriptors d;
  switch (front) {
    case FrontKind::Builtin:
      d.replicaConnections = static_cast<int>(f + kDirectPerReplica);
      d.process = 2 * f + k * d.replicaConnections + reserveFor(replicas);
      break;
    case FrontKind::Nginx:
      d.nginxConnections = static_cast<int>(2 * f + nginxPool);
      d.replicaConnections = static_cast<int>(f + nginxPool + kDirectPerReplica);
      d.process = k * d.replicaConnections + reserveFor(replicas);
      d.nginx = d.nginxConnections + 32;
      break;
    case FrontKind::None:
      d.replicaConnections = maxConnections;
      d.process = k * f + reserveFor(replicas);
      break;
  }
  return d;
}

int mostConnectionsFitting(FrontKind front, int replicas, int nginxPool, long openFileLimit) {
  const auto fits = [&](int f) {
    const auto d = serveDescriptors(front, replicas, f, nginxPool);
    return d.process <= openFileLimit && d.nginx <= openFileLimit;
  };
  int lo = 0, hi = 1'000'000;
  while (lo < hi) {  // the largest f that fits (need grows with f)
    const int mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

Result<void> checkConnectionsFit(FrontKind front, int replicas, int maxConnections, int nginxPool,
                                 long openFileLimit) {
  const int most = mostConnectionsFitting(front, replicas, nginxPool, openFileLimit);
  if (maxConnections <= most) return {};
  const auto d = serveDescriptors(front, replicas, maxConnections, nginxPool);
  const char* per = front == FrontKind::Builtin ? "each may hold a client, an upstream and a replica socket"
                    : front == FrontKind::Nginx ? "each may hold two sockets in nginx and one at a replica"
                                                : "each replica may hold that many";
  std::string text = "--max-connections " + std::to_string(maxConnections) + " needs about " +
                     std::to_string(std::max(d.process, d.nginx)) + " open files with --front " +
                     std::string(frontKindName(front)) + " and " + std::to_string(replicas) + " replica" +
                     (replicas == 1 ? "" : "s") + " (" + per + "), but this process may open " +
                     std::to_string(openFileLimit) + " (ulimit -n): ";
  text += most > 0 ? "allowed up to " + std::to_string(most) + ", or raise ulimit -n"
                   : "no connection count fits: raise ulimit -n";
  return invalidArgument(text);
}

}  // namespace rl
