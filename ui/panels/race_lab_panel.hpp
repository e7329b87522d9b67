#pragma once
// RaceLabPanel: naive vs watch vs lua, side by side, as `ratelab-cli race`
// runs them: per round, N connections released together by a barrier send one
// request each at one fresh key. Admitted per round against the limit,
// over-limit rounds, retries, one button to run. The rounds run on the
// controller's race thread (core's rl::runRace).

#include <QWidget>

#include "ui/workers/race_worker.hpp"
#include "ui/charts/theme.hpp"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QLineSeries;
class QValueAxis;
class QChartView;

namespace rl::ui {

/// The race lab; see the file comment.
class RaceLabPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RaceLabPanel(QWidget* parent = nullptr);
  /// The form as a request (the URL is filled in by the window).
  RaceRequest request() const;
  /// Shows a finished race.
  void showResult(const RaceResult& result);
  /// Locks the button while a race runs.
  void setRunning(bool running);
  /// The results table (tests).
  QTableWidget* table() const { return table_; }
  /// The Run button.
  QPushButton* runButton() const { return run_; }
  /// The chart (PNG export).
  QChartView* chartView() const { return view_; }
  /// Applies a chart theme and keeps the series' own pens.
  void setTheme(Theme t);

 public slots:
  /// One round finished: shown live.
  void showRound(const QString& variant, int round, qint64 admitted);

 signals:
  /// The user asked for a race.
  void runRequested(const rl::ui::RaceRequest& request);

 private:
  QLineSeries* seriesFor(const QString& variant);
  QChartView* buildChart();
  void styleSeries();
  QSpinBox* capacity_;
  QSpinBox* concurrency_;
  QComboBox* algorithm_;
  QSpinBox* rounds_;
  QSpinBox* think_;
  QPushButton* run_;
  QLabel* verdict_;
  QTableWidget* table_;
  QChartView* view_;
  QList<QLineSeries*> series_;  ///< naive, watch, lua
  QLineSeries* limit_;
  QValueAxis* x_;
  QValueAxis* y_;
  double yMax_ = 1;
};

}  // namespace rl::ui
