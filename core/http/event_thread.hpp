#pragma once
// EventThread: a QThread running its own event loop, and a way to run code on
// it synchronously. Each HTTP replica and the front live on one, so a
// replica's limiter calls (and its own Redis connection) never run on the
// caller's or the GUI's thread and never share a connection across threads.

#include <QObject>
#include <QThread>

#include <functional>
#include <string>

#include "common/result.hpp"

namespace rl {

/// A started thread with an event loop; stopped and joined by the destructor.
class EventThread {
 public:
  /// Starts the thread; `name` shows in debuggers and `top -H`.
  explicit EventThread(const std::string& name);
  /// Quits the event loop and joins the thread. Destroy the objects living on it first.
  ~EventThread();
  EventThread(const EventThread&) = delete;
  EventThread& operator=(const EventThread&) = delete;

  /// Runs `f` on the thread and waits for it to return.
  void runBlocking(const std::function<void()>& f);

 private:
  QThread thread_;     ///< the thread and its event loop
  QObject* context_;   ///< lives on thread_: the target of runBlocking()
};

/// Internal error unless a QCoreApplication exists (Qt runs no thread event loop without one).
Result<void> requireEventLoops();

}  // namespace rl
