#pragma once
// KeyLiveView: the inspector's Live tab. Start draws the keys selected in the
// key list (up to kMaxKeys) over time while someone else's traffic flows:
// used / limit in one chart, the TTL in seconds in the other. The samples come
// from KeyAuditWorker on its own thread; the next one is asked for only after
// the last one arrived (at most every kIntervalMs), so a slow Redis slows the
// drawing, never the window. One replace() per series per sample.

#include <QHash>
#include <QList>
#include <QPointF>
#include <QStringList>
#include <QWidget>

#include "ui/workers/key_audit_worker.hpp"

class QLabel;
class QLineSeries;
class QPushButton;
class QTimer;
class QValueAxis;
class QChart;

namespace rl::ui {

/// See the file comment.
class KeyLiveView : public QWidget {
  Q_OBJECT
 public:
  /// Most keys drawn at once.
  static constexpr int kMaxKeys = 6;
  /// Least time between two samples.
  static constexpr int kIntervalMs = 250;
  explicit KeyLiveView(QWidget* parent = nullptr);
  /// The keys Start will draw (the inspector's selection).
  void setKeys(const QStringList& keys);
  /// Starts or stops drawing.
  void setRunning(bool on);
  /// True while drawing.
  bool running() const { return running_; }
  /// Points drawn for `key` in the used / limit chart (tests).
  QList<QPointF> usedPoints(const QString& key) const;
  /// Points drawn for `key` in the TTL chart (tests).
  QList<QPointF> ttlPoints(const QString& key) const;
  /// The status line (tests).
  QString statusText() const;

 public slots:
  /// One sample from the worker.
  void addSample(qint64 tMs, const QList<rl::ui::LiveKeySample>& keys);
  /// The worker failed: stops and says why.
  void showError(const QString& message);

 signals:
  /// Read these keys once; `originMs` is KeyAuditWorker::steadyNowMs() at Start.
  void sampleRequested(const QStringList& keys, qint64 originMs);

 private:
  struct Line {
    QLineSeries* used = nullptr;  ///< used / limit
    QLineSeries* ttl = nullptr;   ///< TTL in s
    QList<QPointF> usedPts, ttlPts;
  };
  Line& lineOf(const QString& key);

  QPushButton* start_;
  QLabel* status_;
  QChart* usedChart_;
  QChart* ttlChart_;
  QValueAxis* usedX_;
  QValueAxis* usedY_;
  QValueAxis* ttlX_;
  QValueAxis* ttlY_;
  QTimer* next_;
  QStringList keys_;       ///< drawn now
  QStringList selected_;   ///< drawn at the next Start
  QHash<QString, Line> lines_;
  qint64 originMs_ = 0;
  bool running_ = false;
  double ttlMax_ = 1;
  double usedMax_ = 1;
};

}  // namespace rl::ui
