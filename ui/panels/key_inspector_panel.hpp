#pragma once
// KeyInspectorPanel: the limiter keys in Redis. SCAN by pattern within the
// prefix (an empty prefix browses every key) with paging and a cap of
// kMaxListed keys; type-aware views (string counter, hash fields, ZSET entries
// as times in the unit they are written in, LIST heads); the library that
// wrote each key (RateLab, Python limits, rate-limiter-flexible,
// rate-limit-redis, go-redis/redis_rate, hand-written Lua shapes) in a column,
// and a detail pane that explains the selected key in words with its raw value
// underneath ("Assume" supplies what keys do not hold, e.g. rate=10/s
// burst=20; RateLab's keys of the window's own storms are read with their
// run's quota). A key without a TTL is flagged: it never resets. TTLs count
// down live in human units and are re-polled; the selection and its
// explanation survive every rescan, so a key can be watched through a storm.
// Auto-refresh turns itself off above kAutoRefreshMaxKeys keys. Connecting to
// another server clears the list and rescans. Delete a key or the whole
// prefix after confirmation (never outside the prefix, never with an empty
// one: the worker refuses). On a Redis Cluster a node and a slot column show
// where each key lives, and a line counts the keys per master (zero
// included). On one server that has replicas, or is one, and on Sentinel, a
// line names the master and each replica's link, lag and bytes behind (the
// sentence of `ratelab-cli keys`, from core's replicationLine). The Redis
// calls run on the controller's Redis worker thread.
// Two more tabs beside the key list (key_inspector_tabs.cpp): Audit (the key
// audit of `ratelab-cli keys --audit`) and Live (the selected keys' used /
// limit and TTL over time); both run on their own KeyAuditWorker thread.

#include <QDateTime>
#include <QPair>
#include <QWidget>
#include <functional>

#include "ui/workers/redis_types.hpp"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTabWidget;
class QTextEdit;
class QTimer;
class QTreeWidget;

namespace rl::ui {

class KeyAuditView;
class KeyAuditWorker;
class KeyLiveView;
class WorkerController;

/// The live key inspector; see the file comment.
class KeyInspectorPanel : public QWidget {
  Q_OBJECT
 public:
  /// Above this many keys, auto-refresh switches itself off.
  static constexpr int kAutoRefreshMaxKeys = 500;
  /// Keys per SCAN page (SCAN's COUNT hint).
  static constexpr int kPageCount = 200;
  /// The list stops at this many keys (Next page is off, the status line says so).
  static constexpr int kMaxListed = 2000;

  /// The key audit's worker runs on a thread `workers` owns (joined when `workers` closes).
  explicit KeyInspectorPanel(WorkerController& workers, QWidget* parent = nullptr);
  /// The limiter prefix for storms and races (never empty: ratelab: when the field is).
  QString prefix() const;
  /// The prefix scans use: the field as typed, "" = every key.
  QString scanPrefix() const;
  /// Sets the prefix.
  void setPrefix(const QString& prefix);
  /// Replaces the confirmation dialog (tests answer without a modal dialog).
  void setConfirm(std::function<bool(const QString&)> confirm) { confirm_ = std::move(confirm); }
  /// The key list (tests).
  QTreeWidget* tree() const { return tree_; }
  /// Number of keys listed.
  int keyCount() const;
  /// The auto-refresh box.
  QCheckBox* autoRefresh() const { return auto_; }
  /// The status line.
  QString statusText() const;
  /// The per-master count line ("Per master: 127.0.0.1:7001: 4 keys, ..."); empty on one server.
  QString mastersText() const;
  /// The replication line ("master 127.0.0.1:40123 (named by the Sentinels ...); replicas: ..."); empty when hidden.
  QString replicationText() const;
  /// The detail pane's text (the selected key explained, then its raw value).
  QString detailText() const;
  /// The "Assume" field (rate=10/s burst=20 limit=10).
  QLineEdit* assume() const { return assume_; }
  /// The tabs: Keys, Audit, Live.
  QTabWidget* tabs() const { return tabs_; }
  /// The Audit tab.
  KeyAuditView* auditView() const { return audit_; }
  /// The Live tab.
  KeyLiveView* liveView() const { return live_; }

 public slots:
  /// Starts a new scan from the first page (F5).
  void refresh();
  /// Shows one page of keys.
  void showPage(const rl::ui::KeyPageResult& page);
  /// Reports a deletion and rescans.
  void showDeleted(qint64 count);
  /// A status check: another server than the listed one clears the list and, when it answers, rescans.
  void showServerStatus(const rl::ui::RedisStatus& status);

 signals:
  /// Scan one page; `assume` is what keys do not hold (rate=10/s burst=20 limit=10).
  void scanRequested(const QString& prefix, const QString& pattern, quint64 cursor, int count, const QString& assume);
  /// Delete these keys (all within prefix).
  void deleteRequested(const QString& prefix, const QStringList& keys);
  /// Delete every key under prefix.
  void deletePrefixRequested(const QString& prefix);

 private:
  void addKey(const InspectedKey& key);
  void showMasters(const QStringList& masters);
  void selectionChanged();
  void showDetail();
  void reselect();
  void tickCountdown();
  void deleteSelected();
  void deleteAll();
  QWidget* buildTabs(QWidget* keys, WorkerController& workers);

  QLineEdit* prefix_;
  QLineEdit* pattern_;
  QLineEdit* assume_;
  QTextEdit* detail_;
  QPushButton* scan_;
  QPushButton* more_;
  QPushButton* delete_;
  QPushButton* deleteAll_;
  QCheckBox* auto_;
  QLabel* status_;
  QLabel* masters_;
  QLabel* replication_;  ///< one server: its master and replicas' lag (Sentinel, or a server with replicas)
  QTreeWidget* tree_;
  QTimer* countdown_;
  QTimer* autoTimer_;
  quint64 nextCursor_ = 0;
  bool complete_ = false;    ///< the list holds every matching key (one page, scan done, not capped)
  QString watched_;          ///< the selected key, kept across rescans ("" = none)
  QString watchedDetail_;    ///< its detail as last read (shown, marked, once it is gone)
  QString server_;           ///< the server whose keys are listed (status URL)
  QPair<QString, QString> asked_;  ///< prefix and pattern of the latest scan asked for
  QDateTime fetchedAt_;
  std::function<bool(const QString&)> confirm_;
  QTabWidget* tabs_ = nullptr;
  KeyAuditView* audit_ = nullptr;
  KeyLiveView* live_ = nullptr;
  KeyAuditWorker* auditWorker_ = nullptr;  ///< on its thread, owned (and deleted) by the WorkerController
};

}  // namespace rl::ui
