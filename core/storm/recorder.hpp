#pragma once
// Recorder: where a storm's workers put their decisions.
//
// Threading: each worker owns one ThreadLog slot. On the hot path a worker
// appends to its private staging vector (no lock); every kPublishEvery
// records, or when told to (the runner publishes at least every few ms), it
// moves the staged records into its slot's chunked log under that slot's own
// short lock. Readers (the GUI timer, the CLI) take the published records
// under the same short locks. Chunks are fixed-size, so the log never copies
// itself as it grows: 10 million decisions take 320 MB.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "storm/decision_record.hpp"

namespace rl {

/// Returns freed heap memory to the OS (glibc: malloc_trim), so a storm's
/// spent plan and merged chunks do not stay in the process's resident set.
void releaseFreedMemory();

/// Per-thread decision buffers of one run; see the file comment.
class Recorder {
 public:
  /// Records per chunk of a thread's log.
  static constexpr std::size_t kChunk = 1 << 16;
  /// Staged records that trigger a publish.
  static constexpr std::size_t kPublishEvery = 1024;

  /// A recorder with `threads` writer slots (one per worker).
  explicit Recorder(int threads);

  /// Hot path (worker `thread` only): stages one record; publishes every kPublishEvery.
  void push(int thread, const DecisionRecord& r);
  /// Worker `thread` only: moves its staged records into the shared log.
  void publish(int thread);

  /// Appends every record published since the previous call to `out`; returns how many.
  std::size_t takeNew(std::vector<DecisionRecord>& out);
  /// Every published record, sorted by (intendedUs, algorithm); equal keys in thread order.
  std::vector<DecisionRecord> all() const;
  /// Same, moving the records out chunk by chunk (peak memory: the records plus
  /// one chunk); the recorder is empty afterwards.
  std::vector<DecisionRecord> takeAll();
  /// Number of published records.
  std::size_t published() const;

 private:
  struct alignas(64) ThreadLog {
    std::vector<DecisionRecord> staged;               ///< worker-private, no lock
    mutable std::mutex mutex;                         ///< guards the members below
    std::vector<std::vector<DecisionRecord>> chunks;  ///< published records, kChunk each
    std::size_t count = 0;                            ///< published records
    std::size_t taken = 0;                            ///< records already handed to takeNew
  };
  static void copyRange(const ThreadLog& log, std::size_t from, std::size_t to,
                        std::vector<DecisionRecord>& out);

  std::vector<std::unique_ptr<ThreadLog>> logs_;  ///< one per worker
};

}  // namespace rl
