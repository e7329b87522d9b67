#pragma once
// KeyAuditWorker: the inspector's Audit and Live tabs, off the GUI thread. It
// lives on its own QThread with its own Redis connections (never the Redis
// worker's, so a long audit does not hold up status checks and TTL samples):
//   audit()   the key audit of redis/key_audit_scan.hpp, the same code as
//             `ratelab-cli keys --audit`, capped at kMaxAuditKeys keys;
//   sample()  the named keys read and decoded once (the Live tab asks again
//             only after the answer came, so requests never pile up).
// Every slot catches and reports through errorOccurred.

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>

#include "keys/key_audit.hpp"

namespace rl {
class RedisLink;
}

namespace rl::ui {

/// One key at one time, as the Live tab draws it.
struct LiveKeySample {
  QString name;        ///< the key
  QString library;     ///< who wrote it ("" when no reader knows it or it is gone)
  qint64 pttlMs = -2;  ///< PTTL (-1 no TTL, -2 gone)
  qint64 used = -1;    ///< decoded used (-1: unknown)
  qint64 limit = -1;   ///< decoded limit (-1: unknown)
};

/// See the file comment.
class KeyAuditWorker : public QObject {
  Q_OBJECT
 public:
  /// The audit stops after this many keys (the report says it stopped early).
  static constexpr qint64 kMaxAuditKeys = 200'000;
  explicit KeyAuditWorker(QObject* parent = nullptr);
  ~KeyAuditWorker() override;
  /// The steady clock in ms (the origin of sample()).
  static qint64 steadyNowMs();
  /// Asks a running audit to stop (any thread).
  void cancel() { cancel_ = true; }

 public slots:
  /// Audits the keys under `prefix` ("" every key) on `url`: emits auditReady.
  void audit(const QString& url, const QString& prefix, const QString& assume);
  /// Reads `keys` on `url` once: emits sampled with the time since `originMs` (steady clock ms).
  void sample(const QString& url, const QStringList& keys, const QString& assume, qint64 originMs);

 signals:
  /// The audit's report and the checks it fails ("ttl: 1 limiter key(s) have no TTL").
  void auditReady(const rl::KeyAuditReport& report, const QStringList& failed);
  /// One Live sample of every asked key.
  void sampled(qint64 tMs, const QList<rl::ui::LiveKeySample>& keys);
  /// Something failed: one sentence.
  void errorOccurred(const QString& message);

 private:
  RedisLink* linkTo(const QString& url);
  std::unique_ptr<RedisLink> link_;  ///< connected to url_
  QString url_;                      ///< where link_ goes
  std::atomic<bool> cancel_{false};  ///< set by cancel()
};

}  // namespace rl::ui

Q_DECLARE_METATYPE(rl::KeyAuditReport)
Q_DECLARE_METATYPE(rl::ui::LiveKeySample)
