#pragma once
// SummaryPanel: per algorithm offered, admitted, denied, errors, worst
// admitted count in any window, overshoot, p50 and p99 latency.

#include <QWidget>

#include "ui/workers/storm_types.hpp"

class QTableWidget;
class QLabel;

namespace rl::ui {

/// The table of a storm's results; see the file comment.
class SummaryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SummaryPanel(QWidget* parent = nullptr);
  /// Shows `result`, a finished (or stopped) storm.
  void setResult(const StormResult& result);
  /// While a storm runs: its rows with the counts so far (offered, admitted, denied,
  /// errors); the columns only the finished run knows say so.
  void setLive(const StormResult& live);
  /// No result to show (a preset was loaded): the table empties and `caption` says why.
  void clear(const QString& caption);
  /// The last result shown.
  const StormResult& result() const { return result_; }
  /// The table (tests read cells).
  QTableWidget* table() const { return table_; }
  /// The caption under the table (tests read it).
  QLabel* caption() const { return caption_; }

 private:
  /// One sentence on which admissions broke the algorithm's own limit.
  static QString overLimitLine(const AlgorithmResult& r);
  /// One sentence on what the failover cost a lane.
  static QString failoverLine(const AlgorithmResult& r);
  QTableWidget* table_;
  QLabel* caption_;
  StormResult result_;
};

}  // namespace rl::ui
