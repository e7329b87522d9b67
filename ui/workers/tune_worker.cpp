#include "ui/workers/tune_worker.hpp"

#include <QElapsedTimer>

#include "ui/qt_text.hpp"

namespace rl::ui {

void TuneWorker::open(const TraceOptions& options) {
  cancel_.store(false);
  try {
    QElapsedTimer reading;
    reading.start();
    auto t = loadTrace(options, {}, &cancel_);
    if (!t) return emit failed(qs(t.error().message));
    trace_ = std::make_shared<const Trace>(std::move(t.value()));
    streams_ = std::make_shared<const ClientStreams>(groupByClient(*trace_));
    auto summary = std::make_shared<TraceSummary>();
    summary->trace = trace_;
    summary->peaks = peakDistribution(*streams_, 10);
    summary->readTime = Micros{reading.nsecsElapsed() / 1000};
    emit traceLoaded(summary);
  } catch (const std::exception& e) {
    emit failed(QStringLiteral("trace: %1").arg(QString::fromUtf8(e.what())));
  }
}

void TuneWorker::sweep(const TuneSpec& spec) {
  if (!trace_) return emit failed(tr("Tune: open a trace first (File > Open trace, or drop a log on the window)"));
  cancel_.store(false);
  try {
    QElapsedTimer since;
    since.start();
    auto r = runTune(*trace_, spec, [&](std::size_t done, std::size_t total) {
      if (since.elapsed() < 100) return;
      since.restart();
      emit progressed(static_cast<int>(done), static_cast<int>(total));
    }, &cancel_);
    if (!r) return emit failed(qs(r.error().message));
    emit swept(std::make_shared<const TuneResult>(std::move(r.value())));
  } catch (const std::exception& e) {
    emit failed(QStringLiteral("tune: %1").arg(QString::fromUtf8(e.what())));
  }
}

void TuneWorker::countCut(qint64 limit, qint64 windowUs) {
  if (!streams_ || limit < 1) return;
  CutSummary cut;
  cut.limit = limit;
  cut.windowUs = windowUs;
  for (std::int64_t peak : clientPeaks(*streams_, Micros{windowUs})) cut.clients += peak > limit;
  // A sliding log of `limit` per window denies exactly the requests above the limit in some window.
  const std::vector<char> all(streams_->clients(), 1);
  const Quota q = Quota::perWindow(limit, Micros{windowUs});
  if (q.validate(Algorithm::SlidingLog))
    cut.requests = evaluatePoint(*streams_, all, Algorithm::SlidingLog, q, Micros{windowUs}).denied;
  emit cutCounted(cut);
}

}  // namespace rl::ui
