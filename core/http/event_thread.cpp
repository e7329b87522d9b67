#include "http/event_thread.hpp"

#include <QCoreApplication>
#include <QMetaObject>

namespace rl {

EventThread::EventThread(const std::string& name) : context_(new QObject) {
  thread_.setObjectName(QString::fromStdString(name));
  context_->moveToThread(&thread_);
  thread_.start();
}

EventThread::~EventThread() {
  runBlocking([this] { delete context_; });
  thread_.quit();
  thread_.wait();
}

void EventThread::runBlocking(const std::function<void()>& f) {
  QMetaObject::invokeMethod(context_, f, Qt::BlockingQueuedConnection);
}

Result<void> requireEventLoops() {
  if (QCoreApplication::instance() != nullptr) return {};
  return Error{ErrorCode::Internal, "HTTP servers need a QCoreApplication: create one before starting them"};
}

}  // namespace rl
