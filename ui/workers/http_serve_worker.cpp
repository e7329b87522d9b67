#include "ui/workers/http_serve_worker.hpp"

#include "storm/store_factory.hpp"

#include <chrono>
#include <exception>

#include "http/serve_cluster.hpp"
#include "redis/redis_url.hpp"
#include "ui/workers/storm_worker.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
constexpr int kFlushMs = 30;
constexpr int kTallyEvery = 16;  // flushes

std::int64_t wallUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}
}  // namespace

HttpServeWorker::HttpServeWorker(LaneModel& model) : model_(model), timer_(new QTimer(this)) {
  timer_->setInterval(kFlushMs);
  connect(timer_, &QTimer::timeout, this, &HttpServeWorker::flush);
}

HttpServeWorker::~HttpServeWorker() = default;

void HttpServeWorker::start(const StormSpec& spec, const QString& front) {
  try {
    stop();
    const auto kind = parseFrontKind(front.toStdString());
    if (!kind) return emit errorOccurred(qs(kind.error().message));
    auto factory = storeFactoryFor(spec);
    if (!factory) return emit errorOccurred(qs(factory.error().message));
    ServeOptions options;
    options.algorithm = spec.algorithms.front();
    options.quota = spec.quota;
    options.replicas = spec.replicas;
    const auto endpoint = spec.backend == Backend::Memory ? Result<RedisEndpoint>(RedisEndpoint{})
                                                           : resolveRedisUrl(spec.redisUrl);
    options.replicaThreads = defaultReplicaThreads(spec.backend, endpoint && (endpoint->cluster || endpoint->viaSentinel()), spec.replicas);
    options.onStoreError = spec.resilience.onRedisError;
    options.front = *kind;
    options.observer = [this](const HttpDecisionEvent& e) {
      std::lock_guard lock(mutex_);
      pending_.push_back({e.at.count() - startUs_, static_cast<float>(e.decision.level), e.decision.allowed, e.storeFailed});
    };
    startUs_ = wallUs();
    auto cluster = ServeCluster::start(std::move(options), [f = *factory](int replica) { return f(replica, 0); });
    if (!cluster) return emit errorOccurred(qs(cluster.error().message));
    cluster_ = std::move(*cluster);
    QStringList replicas;
    for (const std::string& url : cluster_->replicaUrls()) replicas << qs(url);
    timer_->start();
    emit serving(qs(cluster_->frontUrl()), replicas);
  } catch (const std::exception& e) {
    emit errorOccurred(tr("Serving over HTTP failed: %1").arg(QString::fromUtf8(e.what())));
  }
}

void HttpServeWorker::stop() {
  try {
    if (!cluster_) return;
    timer_->stop();
    cluster_.reset();  // stops the front, then the replicas
    flush();
    emit stopped();
  } catch (const std::exception& e) {
    emit errorOccurred(tr("Stopping the HTTP replicas failed: %1").arg(QString::fromUtf8(e.what())));
  }
}

void HttpServeWorker::flush() {
  std::vector<LaneSample> batch;
  {
    std::lock_guard lock(mutex_);
    batch.swap(pending_);
  }
  if (!batch.empty()) {
    model_.push(0, std::move(batch));
    emit dataReady();
  }
  if (cluster_ && ++ticks_ % kTallyEvery == 0) emit tally(qs(cluster_->tallyLine()));
}

}  // namespace rl::ui
