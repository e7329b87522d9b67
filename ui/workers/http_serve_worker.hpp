#pragma once
// HttpServeWorker: serves the form's configuration over HTTP (rl::ServeCluster:
// K limiter replicas behind a round-robin front on loopback) so curl or wrk
// can hit it, and feeds every decision made for an HTTP request into the
// lanes.
//
// Threading: the controller moves it to a QThread; start()/stop() run there.
// The cluster's replicas call the observer on their own threads: it only
// appends to a vector under a short lock. A 30 ms timer on this worker's
// thread moves the batch into the LaneModel and emits the cheap dataReady().
// Every slot catches and reports via errorOccurred.

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <memory>
#include <mutex>
#include <vector>

#include "storm/storm_spec.hpp"
#include "ui/charts/lane_model.hpp"

namespace rl {
class ServeCluster;
}

namespace rl::ui {

/// Serves the current configuration over HTTP; see the file comment.
class HttpServeWorker : public QObject {
  Q_OBJECT
 public:
  explicit HttpServeWorker(LaneModel& model);
  ~HttpServeWorker() override;

 public slots:
  /// Starts serving `spec` (its first algorithm, quota, replicas, backend, failure policy)
  /// behind `front` ("builtin", "nginx" or "none").
  void start(const rl::StormSpec& spec, const QString& front);
  /// Stops serving (idempotent).
  void stop();

 signals:
  /// Serving: the front URL and the replicas' URLs.
  void serving(const QString& frontUrl, const QStringList& replicaUrls);
  /// Not serving any more.
  void stopped();
  /// New decisions are in the model.
  void dataReady();
  /// The cluster's one-line tally, about twice a second.
  void tally(const QString& line);
  /// Something failed: one sentence for the user.
  void errorOccurred(const QString& message);

 private:
  void flush();

  LaneModel& model_;
  std::unique_ptr<ServeCluster> cluster_;
  std::mutex mutex_;                 ///< guards pending_ (observer on replica threads)
  std::vector<LaneSample> pending_;  ///< decisions not yet in the model
  std::int64_t startUs_ = 0;         ///< wall clock at start, us since the epoch
  QTimer* timer_;                    ///< flushes pending_ every 30 ms
  int ticks_ = 0;                    ///< tally every 16 ticks
};

}  // namespace rl::ui
