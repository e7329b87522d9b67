#include "storm/recorder.hpp"

#include <algorithm>
#include <queue>
#include <tuple>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rl {

void releaseFreedMemory() {
#if defined(__GLIBC__)
  // glibc keeps freed blocks below its (self-raising) mmap threshold in the
  // arenas of the threads that allocated them; hand the pages back to the OS.
  malloc_trim(0);
#endif
}

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
// Merge order: intended time, then algorithm. Each thread's log is already in
// this order (workers send in intended order), so a k-way merge needs no sort
// buffer. Records with equal keys from different threads come in thread order.
auto mergeKey(const DecisionRecord& r) { return std::tuple(r.intendedUs(), r.algorithm()); }
}  // namespace

std::vector<DecisionRecord> Recorder::all() const {
  std::vector<DecisionRecord> out;
  out.reserve(published());
  for (const auto& log : logs_) {
    std::lock_guard lock(log->mutex);
    copyRange(*log, 0, log->count, out);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const DecisionRecord& a, const DecisionRecord& b) { return mergeKey(a) < mergeKey(b); });
  return out;
}

std::vector<DecisionRecord> Recorder::takeAll() {
  std::vector<std::unique_lock<std::mutex>> locks;
  std::size_t total = 0;
  for (auto& log : logs_) {
    locks.emplace_back(log->mutex);
    total += log->count;
  }
  std::vector<DecisionRecord> out;
  out.reserve(total);
  std::vector<std::size_t> pos(logs_.size(), 0);
  auto at = [&](std::size_t t) -> const DecisionRecord& { return logs_[t]->chunks[pos[t] / kChunk][pos[t] % kChunk]; };
  auto later = [&](std::size_t a, std::size_t b) { return std::tuple(mergeKey(at(a)), a) > std::tuple(mergeKey(at(b)), b); };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heads(later);
  for (std::size_t t = 0; t < logs_.size(); ++t)
    if (logs_[t]->count > 0) heads.push(t);
  while (!heads.empty()) {
    const std::size_t t = heads.top();
    heads.pop();
    out.push_back(at(t));
    ThreadLog& log = *logs_[t];
    if (++pos[t] % kChunk == 0) {  // free as we go, so the records are held once, not twice
      std::vector<DecisionRecord>().swap(log.chunks[pos[t] / kChunk - 1]);
      releaseFreedMemory();
    }
    if (pos[t] < log.count) heads.push(t);
  }
  for (auto& log : logs_) {
    log->chunks.clear();
    log->count = log->taken = 0;
  }
  releaseFreedMemory();
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
