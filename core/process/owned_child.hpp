#pragma once
// Owned children: processes RateLab starts (a managed redis-server, the nginx
// front) that die with it and whose temp dirs go with them.
//
// A child gets PR_SET_PDEATHSIG(SIGKILL) and is forked from one internal
// long-lived thread, so it dies when the owning process dies (even by SIGKILL),
// whichever thread asked. A child registered with its dir is stopped and its
// dir removed by installServerSignalCleanup()'s SIGINT/SIGTERM handler (a
// SIGTERMed window or CLI leaves nothing behind). A dir left by an owner
// killed with SIGKILL is swept by the next start of the same kind.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rl {

/// Forks and execs `argv` (NULL-terminated) as a child that dies with this process,
/// even by SIGKILL (PR_SET_PDEATHSIG, forked from one long-lived thread), with
/// stdin/stdout/stderr on /dev/null. With `runAs` (uid, gid) the child drops to that
/// user first (when started as root). Returns the pid, or -errno.
int spawnOwnedChild(std::vector<char*>& argv, std::optional<std::pair<unsigned, unsigned>> runAs = std::nullopt);

/// Registers live child `pid` and its temp `dir` (at most 255 bytes) for the signal handler.
void registerOwnedChild(int pid, const std::string& dir);
/// True while `pid` is registered (false once stopAllManagedServers() killed and reaped it).
bool ownedChildRegistered(int pid);
/// Forgets `pid` (its owner stopped it and removes the dir itself).
void unregisterOwnedChild(int pid);

/// Installs SIGINT and SIGTERM handlers that stop every registered child and
/// remove its dir, then exit with 128 + signal. Idempotent. Programs with
/// their own handlers call stopAllManagedServers() from them instead.
void installServerSignalCleanup();

/// Kills every registered child of this process (managed servers, the nginx
/// front) and removes its dir. Async-signal-safe: callable from a signal
/// handler. Their owning objects count them as stopped afterwards.
void stopAllManagedServers();

}  // namespace rl
