#pragma once
// KeyAuditView: the inspector's Audit tab. One press runs the key audit (the
// code of `ratelab-cli keys --audit`, on KeyAuditWorker's thread) over the
// inspector's prefix; the tab shows one row per prefix and library (keys, no
// TTL, long TTL, sampled memory, hottest client), the findings in words (keys
// without a TTL and TTLs far beyond their window named, the eviction warning,
// unknown keys, the checks that fail), and a histogram of the TTLs against
// each key's expected window for the selected row (every row when none is).

#include <QStringList>
#include <QWidget>

#include "keys/key_audit.hpp"

class QBarSet;
class QValueAxis;
class QLabel;
class QPushButton;
class QTextEdit;
class QTreeWidget;

namespace rl::ui {

/// See the file comment.
class KeyAuditView : public QWidget {
  Q_OBJECT
 public:
  explicit KeyAuditView(QWidget* parent = nullptr);
  /// Shows an audit's report.
  void showReport(const rl::KeyAuditReport& report, const QStringList& failed);
  /// Shows why the audit could not run.
  void showError(const QString& message);
  /// The groups table (tests).
  QTreeWidget* groups() const { return groups_; }
  /// The findings in words (tests).
  QString findingsText() const;
  /// The histogram's counts, one per TtlBin (tests).
  QList<qreal> histogram() const;
  /// The status line (tests).
  QString statusText() const;

 signals:
  /// The user asked for an audit.
  void auditRequested();

 private:
  void showHistogram();

  QPushButton* run_;
  QLabel* status_;
  QTreeWidget* groups_;
  QTextEdit* findings_;
  QBarSet* bars_;
  QValueAxis* axisY_;
  rl::KeyAuditReport report_;
};

}  // namespace rl::ui
