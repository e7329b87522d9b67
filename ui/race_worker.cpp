#include "ui/race_worker.hpp"

#include <QDateTime>
#include <array>
#include <exception>

#include "redis/redis_store.hpp"
#include "ui/storm_worker.hpp"

namespace rl::ui {

namespace {
struct Variant {
  const char* name;  ///< as shown
  Backend backend;   ///< store
};
constexpr std::array<Variant, 3> kVariants = {
    {{"naive", Backend::RedisNaive}, {"watch", Backend::RedisWatch}, {"lua", Backend::RedisLua}}};
}  // namespace

int RaceVariantResult::overLimitRounds(int capacity) const {
  int n = 0;
  for (std::int64_t a : admitted) n += a > capacity;
  return n;
}

void RaceWorker::run(const RaceRequest& request) {
  try {
    cancel_.store(false);
    RaceResult result;
    result.capacity = request.capacity;
    for (int v = 0; v < static_cast<int>(kVariants.size()); ++v) {
      RaceVariantResult variant;
      variant.name = QString::fromLatin1(kVariants[static_cast<std::size_t>(v)].name);
      const bool ok = runVariant(request, v, variant);
      result.variants.push_back(variant);
      if (!ok) {
        result.cancelled = true;
        break;
      }
    }
    emit finished(result);
  } catch (const std::exception& e) {
    emit errorOccurred(tr("The race failed: %1").arg(QString::fromUtf8(e.what())));
    emit finished(RaceResult{request.capacity, {}, true});
  } catch (...) {
    emit errorOccurred(tr("The race failed with an unknown error"));
    emit finished(RaceResult{request.capacity, {}, true});
  }
}

bool RaceWorker::runVariant(const RaceRequest& request, int variant, RaceVariantResult& out) {
  const Variant& v = kVariants[static_cast<std::size_t>(variant)];
  const QString run = QString::number(QDateTime::currentMSecsSinceEpoch());
  for (int round = 0; round < request.rounds; ++round) {
    if (cancel_.load()) return false;
    StormSpec spec;
    spec.algorithms = {Algorithm::FixedWindow};
    spec.backend = v.backend;
    spec.redisUrl = request.redisUrl.toStdString();
    spec.prefix = request.prefix.toStdString();
    spec.keyTag = QStringLiteral("race-%1-%2-%3-").arg(run, out.name).arg(round).toStdString();
    spec.quota = Quota::perWindow(request.capacity, 60 * kSecond);
    spec.pattern = Pattern::Burst;
    spec.requests = request.requests;
    spec.concurrency = request.concurrency;
    spec.clock = ClockMode::Server;
    spec.thinkTime = Micros{request.thinkTimeUs};
    auto factory = makeStoreFactory(spec);
    if (!factory) {
      emit errorOccurred(QString::fromStdString(factory.error().message));
      return false;
    }
    auto outcome = runStorm(spec, *factory, {}, redisRetries);
    if (!outcome) {
      emit errorOccurred(QString::fromStdString(outcome.error().message));
      return false;
    }
    if (outcome->failure) {
      emit errorOccurred(QString::fromStdString(outcome->failure->message));
      return false;
    }
    const AlgorithmCounters c = outcome->counters.empty() ? AlgorithmCounters{} : outcome->counters.front();
    out.admitted.push_back(c.admitted - c.errors);
    out.retries += c.retries;
    out.errors += c.errors;
    emit roundDone(out.name, round, c.admitted - c.errors);
  }
  return true;
}

}  // namespace rl::ui
