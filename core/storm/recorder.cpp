#include "storm/recorder.hpp"

#include <algorithm>
#include <tuple>

namespace rl {

Recorder::Recorder(int threads) {
  logs_.reserve(static_cast<std::size_t>(std::max(threads, 1)));
  for (int i = 0; i < std::max(threads, 1); ++i) {
    logs_.push_back(std::make_unique<ThreadLog>());
    logs_.back()->staged.reserve(kPublishEvery);
  }
}

void Recorder::push(int thread, const DecisionRecord& r) {
  ThreadLog& log = *logs_[static_cast<std::size_t>(thread)];
  log.staged.push_back(r);
  if (log.staged.size() >= kPublishEvery) publish(thread);
}

void Recorder::publish(int thread) {
  ThreadLog& log = *logs_[static_cast<std::size_t>(thread)];
  if (log.staged.empty()) return;
  std::lock_guard lock(log.mutex);
  for (const DecisionRecord& r : log.staged) {
    if (log.chunks.empty() || log.chunks.back().size() == kChunk) {
      log.chunks.emplace_back();
      log.chunks.back().reserve(kChunk);
    }
    log.chunks.back().push_back(r);
  }
  log.count += log.staged.size();
  log.staged.clear();
}

void Recorder::copyRange(const ThreadLog& log, std::size_t from, std::size_t to,
                         std::vector<DecisionRecord>& out) {
  while (from < to) {
    const auto& chunk = log.chunks[from / kChunk];
    const std::size_t begin = from % kChunk;
    const std::size_t end = std::min(chunk.size(), begin + (to - from));
    out.insert(out.end(), chunk.begin() + static_cast<std::ptrdiff_t>(begin),
               chunk.begin() + static_cast<std::ptrdiff_t>(end));
    from += end - begin;
  }
}

std::size_t Recorder::takeNew(std::vector<DecisionRecord>& out) {
  std::size_t n = 0;
  for (auto& log : logs_) {
    std::lock_guard lock(log->mutex);
    copyRange(*log, log->taken, log->count, out);
    n += log->count - log->taken;
    log->taken = log->count;
  }
  return n;
}

namespace {
void sortByIntent(std::vector<DecisionRecord>& v) {
  std::stable_sort(v.begin(), v.end(), [](const DecisionRecord& a, const DecisionRecord& b) {
    return std::tie(a.intendedUs, a.algorithm, a.atUs) < std::tie(b.intendedUs, b.algorithm, b.atUs);
  });
}
}  // namespace

std::vector<DecisionRecord> Recorder::all() const {
  std::vector<DecisionRecord> out;
  out.reserve(published());
  for (const auto& log : logs_) {
    std::lock_guard lock(log->mutex);
    copyRange(*log, 0, log->count, out);
  }
  sortByIntent(out);
  return out;
}

std::vector<DecisionRecord> Recorder::takeAll() {
  std::vector<DecisionRecord> out;
  out.reserve(published());
  for (auto& log : logs_) {
    std::lock_guard lock(log->mutex);
    for (auto& chunk : log->chunks) {
      out.insert(out.end(), chunk.begin(), chunk.end());
      std::vector<DecisionRecord>().swap(chunk);  // free as we go
    }
    log->chunks.clear();
    log->count = log->taken = 0;
  }
  sortByIntent(out);
  return out;
}

std::size_t Recorder::published() const {
  std::size_t n = 0;
  for (const auto& log : logs_) {
    std::lock_guard lock(log->mutex);
    n += log->count;
  }
  return n;
}

}  // namespace rl
