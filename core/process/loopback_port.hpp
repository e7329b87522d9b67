#pragma once
// Ports for the children RateLab starts (redis-server, a Cluster, Sentinels,
// nginx) and for tests: a port nobody listens on, whether one is still free,
// and whether something accepts on one. Qt-free, POSIX sockets.

#include <string>

#include "common/result.hpp"

namespace rl {

/// A port nobody listens on right now at `address` (an IPv4 or IPv6 literal):
/// bind port 0, read the kernel's choice, close. Unavailable when none can be bound.
Result<int> freePort(const std::string& address = "127.0.0.1");

/// True when `port` on `address` can be bound right now (a Cluster node needs
/// its bus port, port + 10000, free as well).
bool portFree(const std::string& address, int port);

/// True when something on `address`:`port` accepts a TCP connection now
/// (0.0.0.0 and :: are asked on their loopback address).
bool accepts(const std::string& address, int port);

}  // namespace rl
