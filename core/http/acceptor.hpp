#pragma once
// Acceptor: a listening TCP socket on the Qt event loop of its thread that
// hands each accepted descriptor (non-blocking, close-on-exec) to a function.
//
// QTcpServer retries a failing accept() at once when the process is out of
// descriptors (EMFILE, ENFILE) or kernel memory (ENOBUFS, ENOMEM): the
// pending connection keeps the socket readable, so the loop spins on
// accept4 (a review counted 88,802 calls). Here such a failure stops
// accepting, calls `onExhausted` (the listener frees an idle connection if
// it has one) and tries again after a back-off that doubles from 10 ms to
// 1 s and resets on the next accepted connection. Clients wait in the
// kernel's backlog meanwhile.

#include <QObject>
#include <QTimer>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/result.hpp"

class QSocketNotifier;

namespace rl {

class Acceptor final : public QObject {
 public:
  /// `accept` takes ownership of each accepted descriptor; `onExhausted` is called on
  /// each accept() that failed for want of descriptors or memory.
  Acceptor(std::function<void(int)> accept, std::function<void()> onExhausted);
  ~Acceptor() override;

  /// Binds `address` (an IP address) and `port` (0 = any free port) and listens.
  /// Returns the bound port; InvalidArgument for a bad address, Unavailable when binding fails.
  Result<int> listen(const std::string& address, int port);
  /// Stops listening (pending connections are refused by the kernel).
  void close();
  /// accept() calls that failed for want of descriptors or memory (any thread).
  std::int64_t exhausted() const { return exhausted_.load(); }

 private:
  void onReadable();
  void backOff();

  std::function<void(int)> accept_;             ///< takes each descriptor
  std::function<void()> onExhausted_;           ///< see the constructor
  int fd_ = -1;                                 ///< the listening socket
  std::unique_ptr<QSocketNotifier> notifier_;   ///< readable: connections are waiting
  QTimer retry_;                                ///< re-enables the notifier after a back-off
  int backOffMs_ = 0;                           ///< current back-off; 0 after a success
  std::atomic<std::int64_t> exhausted_{0};      ///< see exhausted()
};

}  // namespace rl
