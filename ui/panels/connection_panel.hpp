#pragma once
// ConnectionPanel: the Redis URL (a server, a redis+cluster:// seed list, or
// the word `cluster` for a private cluster), its status (connected, server
// version, round-trip latency, a cluster's masters), the private set a failover
// preset runs on instead (so the two lines never seem to name one server), start/stop of the managed redis-server and the
// failure policy (fail-open / fail-closed / local). It only shows and asks: the
// Redis work runs on the controller's Redis worker thread.

#include <QWidget>

#include "storm/storm_spec.hpp"
#include "ui/workers/redis_types.hpp"

class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;

namespace rl::ui {

/// Connection settings and status; see the file comment.
class ConnectionPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ConnectionPanel(QWidget* parent = nullptr);
  /// The URL storms use (as typed; may hold a password).
  QString url() const;
  /// Sets the URL field (does not connect: the Status line says it is not checked yet).
  void setUrl(const QString& url);
  /// The failure policy chosen.
  FailurePolicy policy() const;
  /// Selects a failure policy.
  void setPolicy(FailurePolicy p);
  /// The status line text (tests).
  QString statusText() const;
  /// The "This run" line's text, "" while hidden (tests).
  QString runServerText() const;
  /// The Redis version of the last successful status check ("" before one), for the report.
  QString serverVersion() const { return version_; }

 public slots:
  /// Shows a status check's outcome.
  void showStatus(const rl::ui::RedisStatus& status);
  /// Shows the managed server's state; a started server's URL becomes the URL.
  void showServer(const rl::ui::ServerState& state);
  /// Names the private set a preset's storm runs on instead of the URL field's server (while
  /// `running`, then as the last run's); an empty URL hides the line.
  void showRunServer(const QString& url, bool running);

 signals:
  /// Connect to this URL and check it.
  void connectRequested(const QString& url);
  /// Start (or restart) the managed redis-server.
  void startServerRequested();
  /// Stop the managed redis-server.
  void stopServerRequested();
  /// Fail-open / fail-closed / local changed.
  void policyChanged(rl::FailurePolicy policy);

 private:
  /// The Status line names the checked server: a URL field naming another says it is not checked yet.
  void markUnchecked();

  QString checked_;  ///< the server the last status check was about (the Status line's)
  QString version_;  ///< its INFO redis_version when it answered
  QLineEdit* url_;
  QLabel* status_;
  QLabel* server_;
  QLabel* run_;  ///< "This run": a preset's own private set, shown only while one is named
  QPushButton* connect_;
  QPushButton* startServer_;
  QPushButton* stopServer_;
  QRadioButton* open_;
  QRadioButton* closed_;
  QRadioButton* local_;
};

}  // namespace rl::ui
