#pragma once
// RaceWorker: the race lab's rounds off the GUI thread. Each round fires
// `requests` requests with `concurrency` connections at one fresh
// fixed-window key of capacity `capacity`, once per variant (naive, watch,
// lua), and counts what each admitted. The controller moves it to a QThread;
// cancellation is a std::atomic<bool>; every slot catches and reports.

#include <QMetaType>
#include <QObject>
#include <QString>
#include <atomic>
#include <cstdint>
#include <vector>

namespace rl::ui {

/// What the race lab runs.
struct RaceRequest {
  QString redisUrl;          ///< the shared Redis
  QString prefix = QStringLiteral("ratelab:");  ///< key prefix
  int capacity = 10;         ///< the limit of the one key
  int concurrency = 16;      ///< connections racing
  int requests = 40;         ///< requests per round
  int rounds = 5;            ///< rounds per variant
  int thinkTimeUs = 1000;    ///< naive: pause between read and write
};

/// One variant's rounds.
struct RaceVariantResult {
  QString name;                        ///< "naive", "watch", "lua"
  std::vector<std::int64_t> admitted;  ///< per round
  std::int64_t retries = 0;            ///< WATCH retries over all rounds
  std::int64_t errors = 0;             ///< store errors over all rounds
  /// Rounds that admitted more than `capacity`.
  int overLimitRounds(int capacity) const;
};

/// The whole race.
struct RaceResult {
  int capacity = 0;                        ///< the limit
  std::vector<RaceVariantResult> variants; ///< naive, watch, lua
  bool cancelled = false;                  ///< stopped early
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
  /// One round finished (for live display).
  void roundDone(const QString& variant, int round, qint64 admitted);
  /// All rounds finished.
  void finished(const rl::ui::RaceResult& result);
  /// Something failed: one sentence for the user.
  void errorOccurred(const QString& message);

 private:
  bool runVariant(const RaceRequest& request, int variant, RaceVariantResult& out);
  std::atomic<bool> cancel_{false};
};

}  // namespace rl::ui

Q_DECLARE_METATYPE(rl::ui::RaceRequest)
Q_DECLARE_METATYPE(rl::ui::RaceResult)
