#pragma once
// HistoryPanel: the window's last runs (RunHistory), newest on top: when each
// ended, what it was, each lane's admitted of offered and overshoot, its
// decisions. Show draws the picked run again in the lanes and the Summary;
// Compare draws it beside the latest run, lane by lane; Latest goes back.
// A line above the table says what the lanes show now.

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace rl::ui {

class RunHistory;

/// The run history's list and its three buttons; see the file comment.
class HistoryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit HistoryPanel(QWidget* parent = nullptr);
  /// Lists `history`'s runs, newest first.
  void setRuns(const RunHistory& history);
  /// What the lanes show now ("the latest run, #3"), and the run number they show (0: a comparison).
  void setShowing(const QString& text, int number);
  /// While a storm runs nothing past can be shown: the buttons wait.
  void setStormRunning(bool running);
  /// The run number on `row` of the table (0 when none).
  int numberAt(int row) const;
  /// Selects the row of run `number` (tests, and the View menu's comparison).
  void select(int number);
  QTableWidget* table() const { return table_; }      ///< tests
  QLabel* showing() const { return showing_; }        ///< tests
  QPushButton* showButton() const { return show_; }   ///< tests
  QPushButton* compareButton() const { return compare_; }  ///< tests
  QPushButton* latestButton() const { return latest_; }    ///< tests

 signals:
  /// Draw run `number` again.
  void showRequested(int number);
  /// Draw run `number` beside the latest.
  void compareRequested(int number);
  /// Draw the latest run.
  void latestRequested();

 private:
  int selectedNumber() const;
  void updateButtons();
  QLabel* showing_;
  QTableWidget* table_;
  QPushButton* show_;
  QPushButton* compare_;
  QPushButton* latest_;
  int latestNumber_ = 0;
  int shownNumber_ = 0;
  bool running_ = false;
};

}  // namespace rl::ui
