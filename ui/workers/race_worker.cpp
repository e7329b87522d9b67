#include "ui/workers/race_worker.hpp"

#include "ui/qt_text.hpp"

#include <exception>

#include "redis/redis_url.hpp"
#include "storm/run_tag.hpp"

namespace rl::ui {

void RaceWorker::run(const RaceRequest& request) {
  RaceResult result;
  result.capacity = request.spec.capacity;
  try {
    cancel_.store(false);
    const auto endpoint = resolveRedisUrl(request.redisUrl.toStdString());
    if (!endpoint) {
      emit errorOccurred(qs(endpoint.error().message));
      result.cancelled = true;
      emit finished(result);
      return;
    }
    auto onRound = [this](Backend variant, int round, std::int64_t admitted) {
      emit roundDone(qs(raceVariantName(variant)),
                     round, admitted);
    };
    RaceSpec spec = request.spec;
    spec.runTag = freshRunTag("race");  // a second race must not meet the first one's full windows
    auto variants = runRace(spec, *endpoint, &cancel_, onRound);
    if (!variants) {
      if (variants.error().code != ErrorCode::Cancelled) emit errorOccurred(qs(variants.error().message));
      result.cancelled = true;
    } else {
      result.variants = std::move(*variants);
      result.cancelled = cancel_.load();
    }
    emit finished(result);
  } catch (const std::exception& e) {
    emit errorOccurred(tr("The race failed: %1").arg(QString::fromUtf8(e.what())));
    result.cancelled = true;
    emit finished(result);
  } catch (...) {
    emit errorOccurred(tr("The race failed with an unknown error"));
    result.cancelled = true;
    emit finished(result);
  }
}

}  // namespace rl::ui
