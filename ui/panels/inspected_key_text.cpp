#include "ui/panels/inspected_key_text.hpp"

#include <QDateTime>
#include <QObject>
#include <QStringList>

#include "common/duration_text.hpp"
#include "keys/key_reading.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
QString duration(qint64 ms) { return qs(durationText(ms)); }
}  // namespace

QString pttlText(qint64 ms) {
  if (ms == -1) return QObject::tr("no TTL");
  if (ms < 0) return QObject::tr("gone");
  if (ms == 0) return QObject::tr("expired");
  return duration(ms);
}

QString scoreText(const QString& score, qint64 unitUs) {
  bool ok = false;
  const double v = score.toDouble(&ok);
  if (!ok || unitUs <= 0) return score;
  const auto t = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(v * static_cast<double>(unitUs) / 1000.0), Qt::UTC);
  return QObject::tr("%1 UTC (score %2 %3)")
      .arg(t.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")), score, qs(timestampUnitName(unitUs)));
}

QString keyDetailText(const InspectedKey& k, const QString& raw) {
  QStringList lines;
  for (const QString& w : k.warnings) lines << QObject::tr("Warning: %1").arg(w);
  if (!k.library.isEmpty()) {
    lines << QObject::tr("%1 · %2").arg(k.library, k.algorithm) << k.explained;
    if (!k.runQuota.isEmpty()) lines << QObject::tr("Read with the quota of the storm that wrote it: %1.").arg(k.runQuota);
    if (!k.needs.isEmpty())
      lines << QObject::tr("The key does not hold everything: type %1 in the Assume field (then Scan) to count it.").arg(k.needs);
    const auto known = [](qint64 v) { return v < 0 ? QObject::tr("unknown") : QString::number(v); };
    const QString reset = k.pttlMs == -1 && k.resetMs < 0 ? QObject::tr("never resets (no TTL)")
                          : k.resetMs < 0                ? QObject::tr("reset unknown")
                                                         : QObject::tr("resets in %1").arg(duration(k.resetMs));
    lines << QObject::tr("limit %1 · used %2 · %3").arg(known(k.limit), known(k.used), reset);
  } else {
    lines << QObject::tr("Not a limiter key RateLab recognises: shown as Redis holds it.");
  }
  const QString ttl = k.pttlMs == -1 ? pttlText(k.pttlMs) : QObject::tr("TTL %1").arg(pttlText(k.pttlMs));
  return lines.join(QLatin1Char('\n')) + QObject::tr("\n\nRaw (%1, %2):\n%3").arg(k.type, ttl, raw);
}

}  // namespace rl::ui
