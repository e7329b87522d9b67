#pragma once
// The descriptors a served cluster may hold, against the process's open-file
// limit, so a full cluster never meets EMFILE (acceptor.hpp backs off if
// something else uses them up). With F = --max-connections at the front and
// K replicas, each listener is capped so that:
//
//   builtin front  F client side + F upstream (front_proxy.cpp caps them at F)
//                  + K x (F + 32) at the replicas (one may get every upstream
//                  connection, plus 32 direct ones) + reserve
//   nginx front    K x (F + pool + 32) at the replicas in this process (nginx's
//                  upstream side is at most F + its keep-alive pool when its
//                  worker_connections are 2F + pool), and 2F + pool + 32 in
//                  nginx's own process
//   no front       K x F + reserve: every replica is public
//
// reserve = 64 + 8K: event threads' epoll sets and wakeups, Redis connections,
// the nginx child's pipes, log files.

#include <string>

#include "common/result.hpp"

namespace rl {

enum class FrontKind;

/// Direct (not the front's) connections a replica behind a front keeps room for.
inline constexpr int kDirectPerReplica = 32;

/// Sets the soft open-file limit to the hard one; returns the limit now in force.
long raiseOpenFileLimit();

/// How many descriptors a cluster shape needs; see the file comment.
struct ServeDescriptors {
  long process = 0;            ///< this process at most
  long nginx = 0;              ///< the nginx child at most (0 without it)
  int replicaConnections = 0;  ///< each replica's connection cap
  int nginxConnections = 0;    ///< nginx's worker_connections (0 without it)
};
ServeDescriptors serveDescriptors(FrontKind front, int replicas, int maxConnections, int nginxPool);

/// The largest --max-connections whose cluster fits `openFileLimit` (0 if none does).
int mostConnectionsFitting(FrontKind front, int replicas, int nginxPool, long openFileLimit);

/// `maxConnections` if it fits; else InvalidArgument naming the limit, the formula's
/// share per connection and the most that fits.
Result<void> checkConnectionsFit(FrontKind front, int replicas, int maxConnections, int nginxPool,
                                 long openFileLimit);

}  // namespace rl
