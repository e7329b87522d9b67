#pragma once
// TuneWorker: the Tune panel's work, on its own thread: reading a trace,
// sweeping a quota grid over it (rl::runTune, which runs its own threads),
// and counting what one limit on the peak rate would cut. The GUI thread
// only posts queued calls and receives signals; cancel() is thread-safe.

#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "trace/trace.hpp"
#include "tune/tune_sweep.hpp"

namespace rl::ui {

/// A loaded trace and what the panel shows before any sweep.
struct TraceSummary {
  SharedTrace trace;                ///< the requests
  std::vector<PeakWindow> peaks;    ///< per-client peak distribution (1 s, 10 s, 1 min, 1 h)
  Micros readTime{0};               ///< how long reading it took (the tune document's read_ms)
};

/// What a limit on the per-client peak would cut (the distribution's limit line).
struct CutSummary {
  std::int64_t limit = 0;      ///< requests per window
  qint64 windowUs = 0;         ///< the window
  std::int64_t clients = 0;    ///< clients whose peak is above the limit
  std::int64_t requests = 0;   ///< requests a sliding log of `limit` per window would deny
};

/// Works for the Tune panel; see the file comment. Lives on a QThread.
class TuneWorker : public QObject {
  Q_OBJECT
 public:
  /// Stops a running read or sweep soon (any thread).
  void cancel() { cancel_.store(true); }

 public slots:
  /// Reads the trace; emits traceLoaded or failed.
  void open(const rl::TraceOptions& options);
  /// Sweeps `spec` over the loaded trace; emits progressed, then swept or failed.
  void sweep(const rl::TuneSpec& spec);
  /// Counts what `limit` per `windowUs` would cut; emits cutCounted.
  void countCut(qint64 limit, qint64 windowUs);

 signals:
  /// A trace was read.
  void traceLoaded(const std::shared_ptr<const rl::ui::TraceSummary>& summary);
  /// Sweep progress: points done of total (at most every 100 ms).
  void progressed(int done, int total);
  /// A sweep ended (complete or cancelled).
  void swept(const std::shared_ptr<const rl::TuneResult>& result);
  /// A limit line's cut.
  void cutCounted(const rl::ui::CutSummary& cut);
  /// Reading or sweeping failed: one line naming what was wrong.
  void failed(const QString& message);

 private:
  SharedTrace trace_;                  ///< the loaded trace
  std::shared_ptr<const ClientStreams> streams_;  ///< the trace grouped by client
  std::atomic<bool> cancel_{false};    ///< set by cancel()
};

}  // namespace rl::ui

Q_DECLARE_METATYPE(std::shared_ptr<const rl::ui::TraceSummary>)
Q_DECLARE_METATYPE(std::shared_ptr<const rl::TuneResult>)
Q_DECLARE_METATYPE(rl::ui::CutSummary)
Q_DECLARE_METATYPE(rl::TraceOptions)
Q_DECLARE_METATYPE(rl::TuneSpec)
