#include "ui/workers/key_audit_worker.hpp"

#include <chrono>
#include <exception>

#include "redis/key_audit_scan.hpp"
#include "redis/key_inspector.hpp"
#include "redis/redis_link.hpp"
#include "redis/redis_url.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

qint64 KeyAuditWorker::steadyNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

KeyAuditWorker::KeyAuditWorker(QObject* parent) : QObject(parent) {
  qRegisterMetaType<rl::KeyAuditReport>();
  qRegisterMetaType<rl::ui::LiveKeySample>();
  qRegisterMetaType<QList<rl::ui::LiveKeySample>>();
}

KeyAuditWorker::~KeyAuditWorker() = default;

RedisLink* KeyAuditWorker::linkTo(const QString& url) {
  if (link_ && url_ == url) return link_.get();
  link_.reset();
  auto ep = parseRedisUrl(url.toStdString());
  if (!ep) {
    emit errorOccurred(tr("Redis URL: %1").arg(qs(ep.error().message)));
    return nullptr;
  }
  auto l = RedisLink::connect(*ep);
  if (!l) {
    emit errorOccurred(tr("Cannot reach %1: %2").arg(url, qs(l.error().message)));
    return nullptr;
  }
  link_ = std::make_unique<RedisLink>(std::move(*l));
  url_ = url;
  return link_.get();
}

void KeyAuditWorker::audit(const QString& url, const QString& prefix, const QString& assume) {
  try {
    cancel_ = false;
    auto a = parseKeyAssumptions(assume.toStdString());
    if (!a) return emit errorOccurred(tr("Assume field: %1").arg(qs(a.error().message)));
    RedisLink* l = linkTo(url);
    if (!l) return;
    KeyAuditOptions o;
    o.prefix = prefix.toStdString();
    o.context.assume = *a;
    o.maxKeys = kMaxAuditKeys;
    auto report = auditKeys(*l, o, {}, &cancel_);
    if (!report) {
      link_.reset();
      return emit errorOccurred(tr("Audit: %1").arg(qs(report.error().message)));
    }
    QStringList failed;
    for (const std::string& f : failedAuditChecks(*report, {"ttl-bound", "known", "eviction"})) failed << qs(f);
    emit auditReady(*report, failed);
  } catch (const std::exception& e) {
    emit errorOccurred(tr("Audit: %1").arg(qs(e.what())));
  }
}

void KeyAuditWorker::sample(const QString& url, const QStringList& keys, const QString& assume, qint64 originMs) {
  try {
    auto a = parseKeyAssumptions(assume.toStdString());
    if (!a) return emit errorOccurred(tr("Assume field: %1").arg(qs(a.error().message)));
    RedisLink* l = linkTo(url);
    if (!l) return;
    QList<LiveKeySample> out;
    for (const QString& name : keys) {  // one key at a time: on a cluster each lives on its own master
      const std::string n = name.toStdString();
      auto read = l->onKey(n, [&](RedisConnection& c) -> Result<std::pair<KeyInfo, std::int64_t>> {
        auto k = readKeysNamed(c, {n});
        if (!k) return k.error();
        auto now = serverTimeUs(c);
        if (!now) return now.error();
        return std::pair{std::move(k->front()), *now};
      });
      if (!read) {
        link_.reset();
        return emit errorOccurred(tr("Live: %1").arg(qs(read.error().message)));
      }
      LiveKeySample s{name, {}, read->first.pttlMs, -1, -1};
      if (const auto r = readKey(read->first, read->second, *a)) {
        s.library = qs(r->library);
        s.used = r->used.value_or(-1);
        s.limit = r->limit.value_or(-1);
      }
      out << s;
    }
    emit sampled(steadyNowMs() - originMs, out);
  } catch (const std::exception& e) {
    emit errorOccurred(tr("Live: %1").arg(qs(e.what())));
  }
}

}  // namespace rl::ui
