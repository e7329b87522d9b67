#pragma once
// WorkerController: owns the worker threads of the window and everything
// that runs on them.
//
// Threads: a storm thread (StormWorker: runs rl::StormRunner, which has its
// own worker threads), a Redis thread (RedisWorker: status, managed server,
// inspector, TTL sampling), a race thread (RaceWorker), an HTTP thread
// (HttpServeWorker: limiter replicas that curl and wrk can hit), an audit
// thread (HttpAuditWorker: probes of a foreign HTTP limiter), a files
// thread (inBackground: CSV and report exports, joined at close after every
// queued one), and one thread per panel worker it adopts (the Tune panel's
// sweeps, the inspector's key audit). The controller
// lives on the GUI thread; it only posts queued calls to the workers and
// relays their signals, so no Redis call and no storm work ever runs on the
// GUI thread. Workers put decisions into the LaneModel and emit a cheap
// signal; the controller arms a single-shot timer (kRefreshMs, 30 Hz; longer
// when a refresh costs more than a third of that, see noteRefreshCost) and
// emits refreshDue() once per tick, never once per decision.

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QThread>

#include <functional>
#include <memory>
#include <vector>
#include <QTimer>
#include <optional>

#include "audit/audit_spec.hpp"
#include "storm/compared_runs.hpp"
#include "storm/storm_spec.hpp"
#include "ui/charts/lane_model.hpp"
#include "ui/presets.hpp"
#include "ui/workers/race_worker.hpp"
#include "ui/workers/redis_types.hpp"
#include "ui/workers/storm_types.hpp"

namespace rl::ui {

class StormWorker;
class RedisWorker;
class HttpServeWorker;
class HttpAuditWorker;

/// Owns the worker threads; see the file comment.
class WorkerController : public QObject {
  Q_OBJECT
 public:
  /// Chart refresh period: one refresh at most every 33 ms (30 Hz).
  static constexpr int kRefreshMs = 33;
  /// TTL sampling period during a storm.
  static constexpr int kTtlSampleMs = 100;
  /// TTL sampling goes on after a storm until every sampled key expired, at most this long.
  static constexpr int kTtlTailMaxMs = 5000;
  /// The inspector reads the keys of this many of the latest storms with their own quota.
  static constexpr int kRunsRemembered = 32;

  explicit WorkerController(QObject* parent = nullptr);
  /// Cancels what runs and joins the threads.
  ~WorkerController() override;

  /// The decisions of the current (or last) storm.
  LaneModel& model() { return model_; }
  /// Runs `work` (an export too long for the GUI thread) on the controller's files thread, one at a
  /// time in the order given, then hands its sentence to `done` on `receiver`'s thread (skipped when
  /// `receiver` is gone). The destructor waits for every queued one: nothing asked for is lost.
  void inBackground(std::function<QString()> work, QObject* receiver, std::function<void(const QString&)> done);
  /// Moves `worker` (a panel's own worker, without a parent: the tune sweeps, the key audit) to a
  /// thread of its own named `name`, owned here like every other worker thread: at close `cancel`
  /// is called, the thread joined and `worker` deleted.
  void adopt(QObject* worker, const QString& name, std::function<void()> cancel);
  /// True while a storm runs.
  bool stormRunning() const { return stormRunning_; }
  /// Why startStorm() would refuse `spec`'s fault schedule ("" = it would not):
  /// faults are done to the window's managed redis-server only, when the storm runs on it
  /// (its URL names it), and a fault schedule with one storm.
  QString faultRefusal(const rl::StormSpec& spec) const;
  /// True while the configuration is served over HTTP.
  bool serving() const { return serving_; }
  /// True while the race lab runs.
  bool raceRunning() const { return raceRunning_; }
  /// True while an HTTP audit runs.
  bool httpAuditRunning() const { return auditRunning_; }
  /// The spec of the current (or last) storm.
  const StormSpec& spec() const { return spec_; }
  /// The lanes of the current (or last) storm: stormLanes(spec()), or one set per compared policy.
  const std::vector<StormLane>& lanes() const { return lanes_; }
  /// Planned span of the current storm's timeline (us; 0 = unknown).
  std::int64_t spanUs() const { return spanUs_; }
  /// Tells how long the last lane refresh took: the next one waits at least
  /// 3x that (33 ms to 1 s), so huge storms never keep the GUI thread busy.
  void noteRefreshCost(double ms);
  /// The wait between lane refreshes now (ms).
  int refreshIntervalMs() const { return refresh_.interval(); }
  /// The last finished storm's result.
  const StormResult& lastResult() const { return lastResult_; }
  /// True when `url` names the window's managed redis-server (it stops with the window).
  bool isManagedServerUrl(const QString& url) const;
  /// Wall time from the start of the last storm to its end (us, the TTL chart's clock; -1 while it runs).
  /// A failover storm's runs follow each other: from the start of its last run.
  std::int64_t runWallUs() const { return runWallUs_; }
  /// True while the TTL of the storm's keys is sampled (during the storm and its tail).
  bool ttlSampling() const { return ttl_.isActive(); }

 public slots:
  /// Starts `spec`'s experiment (already validated), as ratelab-cli run would: its
  /// variants (compare_backend, compare_policies side by side, compare_wait_replicas in
  /// turn, each failover run on a fresh private set), its fault schedule on the managed
  /// server, its quota changes.
  void startStorm(const rl::StormSpec& spec);
  /// Asks the running storm to stop.
  void stopStorm();
  /// Applies a quota to the running storm's next decisions (marked on the timeline).
  void tuneQuota(const rl::Quota& quota);
  /// Runs the race lab; false (with errorOccurred) when it cannot start: no Redis, a bad spec, or already racing.
  bool startRace(const rl::ui::RaceRequest& request);
  /// Serves `spec` (first algorithm) over HTTP; the lanes show the HTTP decisions.
  void startServing(const rl::StormSpec& spec, const QString& front);
  /// Stops serving over HTTP.
  void stopServing();
  /// Audits a foreign HTTP limiter (ratelab-cli audit's probes); false (with errorOccurred) when one runs.
  bool startHttpAudit(const rl::AuditSpec& spec);
  /// Stops the running audit: nothing more is sent, its report still comes (interrupted).
  void stopHttpAudit();
  /// Connects the Redis worker to `url` and checks it.
  void connectRedis(const QString& url);
  /// Starts (or restarts) the managed redis-server.
  void startServer();
  /// Stops the managed redis-server.
  void stopServer();
  /// Restarts the stopped managed redis-server on its port (the server talked to stays).
  void restartServer();
  /// The embedded default: 127.0.0.1:`probePort` if it answers, else a private redis-server.
  void useEmbeddedRedis(int probePort = 6379);
  /// The Redis the window used last when it answers, else the embedded default (see RedisWorker).
  void useSavedRedis(const QString& savedUrl, int probePort = 6379);
  /// One inspector page; RateLab's keys of the storms run here are read with their run's quota.
  void scanKeys(const QString& prefix, const QString& pattern, quint64 cursor, int count, const QString& assume = {});
  /// Deletes keys within prefix.
  void deleteKeys(const QString& prefix, const QStringList& keys);
  /// Deletes every key under prefix.
  void deletePrefix(const QString& prefix);

 signals:
  /// A storm started (the lanes reset for its algorithms).
  void stormStarted(const rl::StormSpec& spec);
  /// Progress of the running storm.
  void stormProgress(const rl::StormProgress& progress);
  /// Time to redraw the lanes from model() (at most every kRefreshMs).
  void refreshDue();
  /// The storm is over.
  void stormFinished(const rl::ui::StormResult& result);
  /// A quota change was applied at `atUs` of the storm's timeline.
  void quotaTuned(const rl::Quota& quota);
  /// Serving over HTTP started (front URL and replica URLs) or stopped (empty).
  void servingChanged(bool serving, const QString& frontUrl, const QStringList& replicaUrls);
  /// The HTTP cluster's tally line.
  void servingTally(const QString& line);
  /// One race round.
  void raceRound(const QString& variant, int round, qint64 admitted);
  /// The race is over.
  void raceFinished(const rl::ui::RaceResult& result);
  /// One probe of the HTTP audit was judged.
  void httpAuditCheck(const rl::AuditCheck& check);
  /// The running HTTP audit's arrivals so far as lanes (after each probe).
  void httpAuditLanes(const std::shared_ptr<const rl::ExperimentResult>& experiment);
  /// The HTTP audit is over (its report), or could not start (`error`, report empty).
  void httpAuditFinished(const rl::AuditReport& report, const QString& error);
  /// Redis status checked.
  void redisStatus(const rl::ui::RedisStatus& status);
  /// The managed server changed.
  void serverChanged(const rl::ui::ServerState& state);
  /// A failover preset's run uses its own private set at `url` (`running`), or did (the storm
  /// ended); "" when a storm starts: it uses the URL field's server.
  void runServerChanged(const QString& url, bool running);
  /// An inspector page.
  void keysReady(const rl::ui::KeyPageResult& page);
  /// Keys deleted.
  void keysDeleted(qint64 count);
  /// A TTL sample (ms per lane) at `atUs` wall time since the storm started.
  void ttlSampled(qint64 atUs, const QList<qint64>& pttlMs);
  /// TTL sampling stopped: every sampled key expired, or kTtlTailMaxMs after the storm.
  void ttlSamplingStopped();
  /// Something happened worth one line in the status bar.
  void message(const QString& text);
  /// Something failed: one sentence for the user.
  void errorOccurred(const QString& message);

 private:
  void wireWorkers();
  void onStormFinished(const StormResult& result);
  void sampleTtl();
  void onTtlSampled(qint64 atUs, const QList<qint64>& pttlMs);
  void stopTtlSampling();
  void rememberRunKeys();
  void onFailoverRunBegins(int run, const QString& url);
  std::int64_t runClockUs() const;  ///< us since the storm (a failover: its current run) started

  LaneModel model_;
  QThread stormThread_;
  QThread redisThread_;
  QThread raceThread_;
  QThread httpThread_;
  QThread auditThread_;
  QThread filesThread_;
  /// adopt()'s: a panel's worker, its thread and how to cancel it.
  struct Adopted {
    std::unique_ptr<QThread> thread;
    QObject* worker = nullptr;
    std::function<void()> cancel;
  };
  std::vector<Adopted> adopted_;
  StormWorker* storm_;
  RedisWorker* redis_;
  RaceWorker* race_;
  HttpServeWorker* http_;
  HttpAuditWorker* audit_;
  QObject* files_;  ///< lives on filesThread_: what inBackground's work runs in
  QTimer refresh_;
  QTimer ttl_;
  QElapsedTimer clock_;
  QStringList ttlKeys_;
  QString ttlUrl_;               ///< where the TTL samples are taken ("" = the server talked to; a failover: its cluster)
  std::int64_t runOriginUs_ = 0;  ///< clock_ time the current run started (a failover's later runs), us
  bool ttlPending_ = false;
  qint64 ttlAskedAt_ = -1;  ///< `at` of the TTL sample in flight: an answer with another is stale
  bool stormRunning_ = false;
  int managedPort_ = 0;       ///< the window's managed redis-server's port while it runs (faults are done to it only)
  bool raceRunning_ = false;
  bool auditRunning_ = false;
  bool serving_ = false;
  StormSpec spec_;
  std::vector<StormLane> lanes_;  ///< of the current (or last) storm
  std::int64_t spanUs_ = 0;
  std::int64_t runWallUs_ = -1;
  StormResult lastResult_;
  QList<RunKeys> runs_;  ///< the latest storms on Redis, oldest first (at most kRunsRemembered)
};

}  // namespace rl::ui
