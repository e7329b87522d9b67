#include "ui/workers/worker_controller.hpp"

#include <QPointer>

#include <algorithm>

#include "redis/redis_url.hpp"
#include "store/store.hpp"
#include "storm/compared_runs.hpp"
#include "storm/experiment.hpp"
#include "storm/fault_schedule.hpp"
#include "storm/run_tag.hpp"
#include "storm/quota_schedule.hpp"
#include "ui/qt_text.hpp"
#include "ui/workers/http_audit_worker.hpp"
#include "ui/workers/http_serve_worker.hpp"
#include "ui/workers/redis_worker.hpp"
#include "ui/workers/storm_worker.hpp"

namespace rl::ui {

namespace {
void registerTypes() {
  qRegisterMetaType<rl::StormSpec>("rl::StormSpec");
  qRegisterMetaType<rl::Quota>("rl::Quota");
  qRegisterMetaType<rl::StormProgress>("rl::StormProgress");
  qRegisterMetaType<StormResult>("rl::ui::StormResult");
  qRegisterMetaType<RaceRequest>("rl::ui::RaceRequest");
  qRegisterMetaType<RaceResult>("rl::ui::RaceResult");
  qRegisterMetaType<RedisStatus>("rl::ui::RedisStatus");
  qRegisterMetaType<ServerState>("rl::ui::ServerState");
  qRegisterMetaType<KeyPageResult>("rl::ui::KeyPageResult");
  qRegisterMetaType<rl::AuditSpec>("rl::AuditSpec");
  qRegisterMetaType<rl::AuditCheck>("rl::AuditCheck");
  qRegisterMetaType<rl::AuditReport>("rl::AuditReport");
  qRegisterMetaType<std::shared_ptr<const rl::ExperimentResult>>();
}
}  // namespace

WorkerController::WorkerController(QObject* parent)
    : QObject(parent),
      storm_(new StormWorker(model_)),
      redis_(new RedisWorker),
      race_(new RaceWorker),
      http_(new HttpServeWorker(model_)),
      audit_(new HttpAuditWorker),
      files_(new QObject) {
  registerTypes();
  stormThread_.setObjectName(QStringLiteral("ratelab-storm"));
  redisThread_.setObjectName(QStringLiteral("ratelab-redis"));
  raceThread_.setObjectName(QStringLiteral("ratelab-race"));
  storm_->moveToThread(&stormThread_);
  redis_->moveToThread(&redisThread_);
  race_->moveToThread(&raceThread_);
  httpThread_.setObjectName(QStringLiteral("ratelab-http"));
  http_->moveToThread(&httpThread_);
  auditThread_.setObjectName(QStringLiteral("ratelab-audit"));
  audit_->moveToThread(&auditThread_);
  filesThread_.setObjectName(QStringLiteral("ratelab-files"));
  files_->moveToThread(&filesThread_);
  refresh_.setSingleShot(true);
  refresh_.setInterval(kRefreshMs);
  ttl_.setInterval(kTtlSampleMs);
  wireWorkers();
  stormThread_.start();
  redisThread_.start();
  raceThread_.start();
  httpThread_.start();
  auditThread_.start();
  filesThread_.start();
}

WorkerController::~WorkerController() {
  storm_->requestCancel();
  race_->requestCancel();
  audit_->cancel();
  QMetaObject::invokeMethod(http_, [w = http_] { w->stop(); }, Qt::BlockingQueuedConnection);
  QMetaObject::invokeMethod(files_, [] {}, Qt::BlockingQueuedConnection);  // after every queued export
  for (const Adopted& a : adopted_) a.cancel();
  for (QThread* t : {&stormThread_, &redisThread_, &raceThread_, &httpThread_, &auditThread_, &filesThread_}) {
    t->quit();
    t->wait();
  }
  for (Adopted& a : adopted_) {
    a.thread->quit();
    a.thread->wait();
    delete a.worker;
  }
  delete storm_;
  delete redis_;
  delete race_;
  delete http_;
  delete audit_;
  delete files_;
}

void WorkerController::inBackground(std::function<QString()> work, QObject* receiver,
                                   std::function<void(const QString&)> done) {
  QMetaObject::invokeMethod(files_, [work = std::move(work), to = QPointer<QObject>(receiver), done = std::move(done)] {
    const QString text = work();
    if (to) QMetaObject::invokeMethod(to, [to, done, text] { if (to) done(text); }, Qt::QueuedConnection);
  });
}

void WorkerController::adopt(QObject* worker, const QString& name, std::function<void()> cancel) {
  Adopted a{std::make_unique<QThread>(), worker, std::move(cancel)};
  a.thread->setObjectName(name);
  worker->moveToThread(a.thread.get());
  a.thread->start();
  adopted_.push_back(std::move(a));
}

void WorkerController::wireWorkers() {
  connect(storm_, &StormWorker::dataReady, this, [this] {
    if (!refresh_.isActive()) refresh_.start();
  });
  connect(&refresh_, &QTimer::timeout, this, &WorkerController::refreshDue);
  connect(storm_, &StormWorker::started, this, [this](qint64 span) { spanUs_ = span; });
  connect(storm_, &StormWorker::failoverRunBegins, this, &WorkerController::onFailoverRunBegins);
  connect(storm_, &StormWorker::progressed, this, &WorkerController::stormProgress);
  connect(storm_, &StormWorker::finished, this, &WorkerController::onStormFinished);
  connect(audit_, &HttpAuditWorker::checkDone, this, &WorkerController::httpAuditCheck);
  connect(audit_, &HttpAuditWorker::lanesSoFar, this, &WorkerController::httpAuditLanes);
  connect(audit_, &HttpAuditWorker::finished, this, [this](const AuditReport& r) {
    auditRunning_ = false;
    emit httpAuditFinished(r, QString());
  });
  connect(audit_, &HttpAuditWorker::failed, this, [this](const QString& error) {
    auditRunning_ = false;
    emit httpAuditFinished(AuditReport{}, error);
  });
  connect(storm_, &StormWorker::errorOccurred, this, &WorkerController::errorOccurred);
  connect(storm_, &StormWorker::notice, this, &WorkerController::message);
  connect(race_, &RaceWorker::roundDone, this, &WorkerController::raceRound);
  connect(race_, &RaceWorker::finished, this, [this](const RaceResult& r) {
    raceRunning_ = false;
    emit raceFinished(r);
  });
  connect(race_, &RaceWorker::errorOccurred, this, &WorkerController::errorOccurred);
  connect(redis_, &RedisWorker::statusReady, this, &WorkerController::redisStatus);
  connect(redis_, &RedisWorker::serverChanged, this, &WorkerController::serverChanged);
  connect(redis_, &RedisWorker::serverChanged, this, [this](const ServerState& s) { managedPort_ = s.running ? s.port : 0; });
  connect(redis_, &RedisWorker::keysReady, this, &WorkerController::keysReady);
  connect(redis_, &RedisWorker::keysDeleted, this, &WorkerController::keysDeleted);
  connect(redis_, &RedisWorker::errorOccurred, this, &WorkerController::errorOccurred);
  connect(redis_, &RedisWorker::ttlSampled, this, &WorkerController::onTtlSampled);
  connect(&ttl_, &QTimer::timeout, this, &WorkerController::sampleTtl);
  connect(http_, &HttpServeWorker::dataReady, this, [this] {
    if (!refresh_.isActive()) refresh_.start();
  });
  connect(http_, &HttpServeWorker::serving, this, [this](const QString& front, const QStringList& replicas) {
    serving_ = true;
    emit servingChanged(true, front, replicas);
  });
  connect(http_, &HttpServeWorker::stopped, this, [this] {
    serving_ = false;
    emit servingChanged(false, {}, {});
  });
  connect(http_, &HttpServeWorker::tally, this, &WorkerController::servingTally);
  connect(http_, &HttpServeWorker::errorOccurred, this, &WorkerController::errorOccurred);
}

namespace {
// True when `url` names the managed server on loopback port `port`.
bool namesManagedServer(const std::string& url, int port) {
  const auto ep = parseRedisUrl(url);
  if (!ep || ep->cluster || port <= 0 || ep->port != port) return false;
  return ep->host == "127.0.0.1" || ep->host == "localhost" || ep->host == "::1";
}
}  // namespace

bool WorkerController::isManagedServerUrl(const QString& url) const {
  return namesManagedServer(url.toStdString(), managedPort_);
}

QString WorkerController::faultRefusal(const StormSpec& spec) const {
  if (spec.faults.empty()) return {};
  const QString what = tr("This scenario has a fault schedule (%1): it is done to the window's managed "
                          "redis-server only")
                           .arg(qs(faultScheduleText(spec.faults)));
  const QString headless = tr("ratelab-cli run --redis managed --scenario FILE");
  if (const auto ep = parseRedisUrl(spec.redisUrl); ep && ep->cluster)
    return tr("%1, and this storm would run on a Redis Cluster (connect a single server, or run %2)").arg(what, headless);
  if (managedPort_ == 0)
    return tr("%1; start it in the Connection panel (or run %2)").arg(what, headless);
  if (!namesManagedServer(spec.redisUrl, managedPort_))
    return tr("%1 (127.0.0.1:%2), but this storm would run on %3, which RateLab did not start and never stops: press "
              "Start server in the Connection panel to run it on the managed server")
        .arg(what)
        .arg(managedPort_)
        .arg(qs(withoutPassword(spec.redisUrl)));
  return {};
}

void WorkerController::noteRefreshCost(double ms) {
  refresh_.setInterval(std::clamp(static_cast<int>(3 * ms), kRefreshMs, 1000));
}

void WorkerController::startStorm(const StormSpec& spec) {
  if (stormRunning_ || serving_) {
    emit errorOccurred(stormRunning_ ? tr("A storm is already running: stop it first")
                                     : tr("The lanes show the HTTP replicas: stop serving first"));
    return;
  }
  if (const QString refused = faultRefusal(spec); !refused.isEmpty()) {
    emit errorOccurred(refused);
    return;
  }
  ManagedRedisServer* server = nullptr;  // the fault schedule's server: lent for this storm (stop is refused meanwhile)
  if (!spec.faults.empty()) {
    QMetaObject::invokeMethod(redis_, [w = redis_, &server] { server = w->managedServer(); }, Qt::BlockingQueuedConnection);
    if (!server)
      return emit errorOccurred(tr("The fault schedule needs the window's managed redis-server: Start server in the "
                                   "Connection panel"));
  }
  spec_ = spec;
  // A fresh key space per run, so a storm never meets the previous run's keys.
  spec_.runTag = freshRunTag("r");
  spanUs_ = 0;
  runWallUs_ = -1;
  stormRunning_ = true;
  lanes_ = experimentLanes(spec_);
  std::vector<Algorithm> laneAlgorithms;
  for (const StormLane& lane : lanes_) laneAlgorithms.push_back(lane.algorithm);
  model_.reset(laneAlgorithms, spec_.quota, spec_.cost);
  ttlKeys_.clear();
  const std::string client = spec_.traceData ? spec_.traceData->keys.front() : "client-0";
  if (isRedisBackend(spec_.backend))  // a failover's runs: each on its own set, sampled there
    for (const StormSpec& run : experimentRuns(spec_))
      for (Algorithm a : run.algorithms) ttlKeys_ << qs(limiterKey(run.prefix, a, run.runTag + client));
  ttlUrl_.clear();
  emit runServerChanged(QString(), false);
  runOriginUs_ = 0;
  rememberRunKeys();
  emit stormStarted(spec_);
  clock_.start();
  ttlPending_ = false;
  ttlAskedAt_ = -1;
  if (!ttlKeys_.isEmpty() && !spec_.failover) ttl_.start();  // a failover's: once its first set is up
  storm_->armRun();
  QMetaObject::invokeMethod(storm_, [w = storm_, spec = spec_, server] { w->run(spec, server); }, Qt::QueuedConnection);
}

void WorkerController::stopStorm() { storm_->requestCancel(); }

bool WorkerController::startHttpAudit(const AuditSpec& spec) {
  if (auditRunning_) {
    emit errorOccurred(tr("An audit is already running: stop it first"));
    return false;
  }
  auditRunning_ = true;
  audit_->arm();
  QMetaObject::invokeMethod(audit_, [w = audit_, spec] { w->run(spec); }, Qt::QueuedConnection);
  return true;
}

void WorkerController::stopHttpAudit() { audit_->cancel(); }

void WorkerController::tuneQuota(const Quota& quota) {
  if (!stormRunning_) return;
  if (auto ok = storm_->setQuota(quota); !ok) {
    emit errorOccurred(qs(ok.error().message));
    return;
  }
  if (!runs_.isEmpty()) runs_.back().quota = quota;  // its keys are written under the new quota from now on
  emit quotaTuned(quota);
  emit message(tr("Quota tuned to %1").arg(qs(quota.toString())));
}

void WorkerController::rememberRunKeys() {
  if (spec_.backend == Backend::Memory || spec_.backend == Backend::Http) return;
  Quota last = spec_.quota;
  for (const QuotaChange& c : spec_.quotaChanges) last = appliedTo(c, last);
  runs_.append({qs(spec_.prefix), qs(spec_.runTag), last});
  while (runs_.size() > kRunsRemembered) runs_.removeFirst();
}

void WorkerController::onStormFinished(const StormResult& result) {
  stormRunning_ = false;
  runWallUs_ = runClockUs();
  if (!spec_.faults.empty()) QMetaObject::invokeMethod(redis_, [w = redis_] { w->faultsEnded(); }, Qt::QueuedConnection);
  if (result.experiment)
    for (const ExperimentRun& run : result.experiment->runs)
      if (run.faults && run.firstLane == 0) {
        QStringList steps;
        for (const FaultAction& a : run.faults->actions)
          steps << (a.error.empty() ? tr("%1 at %2 ms").arg(qs(a.what)).arg(a.doneUs / 1000) : tr("%1 failed: %2").arg(qs(a.what), qs(a.error)));
        emit message(tr("Faults done: %1").arg(steps.join(QStringLiteral("; "))));
      }
  // TTL sampling goes on (onTtlSampled): the chart shows the keys the storm left counting down.
  if (!ttlUrl_.isEmpty()) emit runServerChanged(ttlUrl_, false);
  lastResult_ = result;
  refresh_.stop();
  emit refreshDue();
  emit stormFinished(result);
}

void WorkerController::sampleTtl() {
  if (!stormRunning_ && runClockUs() > runWallUs_ + kTtlTailMaxMs * std::int64_t{1000})
    return stopTtlSampling();  // the tail is over (checked here too: a lost sample must not keep it going)
  if (ttlKeys_.isEmpty() || ttlPending_) return;  // one sample in flight at most (outages)
  ttlPending_ = true;
  const qint64 at = runClockUs();
  ttlAskedAt_ = at;
  QMetaObject::invokeMethod(redis_, [w = redis_, keys = ttlKeys_, at, url = ttlUrl_] { w->sampleTtl(keys, at, url); },
                            Qt::QueuedConnection);
}

std::int64_t WorkerController::runClockUs() const { return clock_.nsecsElapsed() / 1000 - runOriginUs_; }

void WorkerController::onFailoverRunBegins(int /*run*/, const QString& url) {
  if (!stormRunning_) return;
  ttlUrl_ = url;  // the run's own cluster: its keys are there
  emit runServerChanged(url, true);
  runOriginUs_ = clock_.nsecsElapsed() / 1000;  // the TTL chart shares the lanes' clock: s since this run started
  ttlPending_ = false;
  ttlAskedAt_ = -1;
  if (!ttlKeys_.isEmpty() && !ttl_.isActive()) ttl_.start();
}

void WorkerController::onTtlSampled(qint64 atUs, const QList<qint64>& pttlMs) {
  if (atUs != ttlAskedAt_) return;  // asked for by an earlier storm's tail: not this chart's
  ttlPending_ = false;
  if (!ttl_.isActive()) return;  // a late answer after sampling stopped
  emit ttlSampled(atUs, pttlMs);
  const bool allExpired = std::all_of(pttlMs.begin(), pttlMs.end(), [](qint64 ms) { return ms < 0; });
  if (!stormRunning_ && allExpired) stopTtlSampling();
}

void WorkerController::stopTtlSampling() {
  if (!ttl_.isActive()) return;
  ttl_.stop();
  emit ttlSamplingStopped();
}

bool WorkerController::startRace(const RaceRequest& request) {
  if (raceRunning_) return false;
  if (request.redisUrl.isEmpty()) {
    emit errorOccurred(tr("The race lab needs Redis: start the managed server or enter a redis:// URL"));
    return false;
  }
  if (auto ok = validate(request.spec); !ok) {
    emit errorOccurred(qs(ok.error().message));
    return false;
  }
  raceRunning_ = true;
  QMetaObject::invokeMethod(race_, [w = race_, request] { w->run(request); }, Qt::QueuedConnection);
  return true;
}

void WorkerController::startServing(const StormSpec& spec, const QString& front) {
  if (stormRunning_ || serving_) {
    emit errorOccurred(tr("Stop the storm (or the serving) first: the lanes show one source at a time"));
    return;
  }
  spec_ = spec;
  spec_.algorithms = {spec.algorithms.front()};  // the replicas run one algorithm
  spec_.compareBackends.clear();                 // and nothing beside them
  spanUs_ = 0;
  lanes_ = stormLanes(spec_);
  model_.reset(spec_.algorithms, spec.quota, spec.cost);
  QMetaObject::invokeMethod(http_, [w = http_, s = spec_, front] { w->start(s, front); }, Qt::QueuedConnection);
}

void WorkerController::stopServing() {
  QMetaObject::invokeMethod(http_, [w = http_] { w->stop(); }, Qt::QueuedConnection);
}

void WorkerController::connectRedis(const QString& url) {
  QMetaObject::invokeMethod(redis_, [w = redis_, url] { w->setUrl(url); }, Qt::QueuedConnection);
}

void WorkerController::startServer() {
  QMetaObject::invokeMethod(redis_, [w = redis_] { w->startServer(); }, Qt::QueuedConnection);
}

void WorkerController::useEmbeddedRedis(int probePort) {
  QMetaObject::invokeMethod(redis_, [w = redis_, probePort] { w->useEmbeddedDefault(probePort); }, Qt::QueuedConnection);
}

void WorkerController::useSavedRedis(const QString& savedUrl, int probePort) {
  QMetaObject::invokeMethod(redis_, [w = redis_, savedUrl, probePort] { w->useSavedOrEmbedded(savedUrl, probePort); },
                            Qt::QueuedConnection);
}

void WorkerController::restartServer() {
  if (stormRunning_ && !spec_.faults.empty())
    return emit errorOccurred(tr("The storm's fault schedule acts on the managed redis-server: stop the storm first"));
  QMetaObject::invokeMethod(redis_, [w = redis_] { w->restartServer(); }, Qt::QueuedConnection);
}

void WorkerController::stopServer() {
  if (stormRunning_ && !spec_.faults.empty())
    return emit errorOccurred(tr("The storm's fault schedule acts on the managed redis-server: stop the storm first"));
  QMetaObject::invokeMethod(redis_, [w = redis_] { w->stopServer(); }, Qt::QueuedConnection);
}

void WorkerController::scanKeys(const QString& prefix, const QString& pattern, quint64 cursor, int count,
                               const QString& assume) {
  QMetaObject::invokeMethod(redis_, [=, w = redis_, runs = runs_] { w->scanKeys(prefix, pattern, cursor, count, assume, runs); },
                            Qt::QueuedConnection);
}

void WorkerController::deleteKeys(const QString& prefix, const QStringList& keys) {
  QMetaObject::invokeMethod(redis_, [=, w = redis_] { w->deleteKeys(prefix, keys); }, Qt::QueuedConnection);
}

void WorkerController::deletePrefix(const QString& prefix) {
  QMetaObject::invokeMethod(redis_, [=, w = redis_] { w->deletePrefix(prefix); }, Qt::QueuedConnection);
}

}  // namespace rl::ui
