#pragma once
// RaceWorker: runs core's race lab (rl::runRace, the same experiment as
// `ratelab-cli race`) off the GUI thread and reports each round as it ends.
// The controller moves it to a QThread; cancellation is a std::atomic<bool>;
// every slot catches and reports.

#include <QMetaType>
#include <QObject>
#include <QString>
#include <atomic>
#include <vector>

#include "storm/race_lab.hpp"

namespace rl::ui {

/// What the race lab runs: core's race spec against the window's Redis.
struct RaceRequest {
  QString redisUrl;  ///< the shared Redis
  RaceSpec spec;     ///< rounds, capacity, concurrency, algorithm, think time, prefix
};

/// The whole race.
struct RaceResult {
  std::int64_t capacity = 0;                    ///< the limit
  std::vector<rl::RaceVariantResult> variants;  ///< naive, watch, lua (as far as they got)
  bool cancelled = false;                       ///< stopped early or failed
};

/// Runs the race lab; see the file comment.
class RaceWorker : public QObject {
  Q_OBJECT
 public:
  /// Any thread: stop after the current round.
  void requestCancel() { cancel_.store(true); }

 public slots:
  /// Runs every round of every variant.
  void run(const rl::ui::RaceRequest& request);

 signals:
  /// One round finished (for live display): variant is "naive", "watch" or "lua".
  void roundDone(const QString& variant, int round, qint64 admitted);
  /// All rounds finished.
  void finished(const rl::ui::RaceResult& result);
  /// Something failed: one sentence for the user.
  void errorOccurred(const QString& message);

 private:
  std::atomic<bool> cancel_{false};
};

}  // namespace rl::ui

Q_DECLARE_METATYPE(rl::ui::RaceRequest)
Q_DECLARE_METATYPE(rl::ui::RaceResult)
