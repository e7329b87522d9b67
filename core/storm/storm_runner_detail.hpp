#pragma once
// Internal to StormRunner (storm_runner.cpp, storm_runner_threads.cpp): one planned
// send and one worker's state. Not part of the public API.

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "storm/storm_runner.hpp"

namespace rl {

/// One (request, algorithm) decision to make.
struct StormRunner::Send {
  std::int64_t intendedUs = 0;  ///< us since the run's start
  std::int64_t cost = 1;        ///< weight of the request
  std::uint32_t client = 0;     ///< client index
  std::uint16_t replica = 0;    ///< replica index
  std::uint8_t algo = 0;        ///< index into spec_.algorithms
};

/// One worker thread's stores, sends and single-writer counters.
struct alignas(64) StormRunner::Worker {
  explicit Worker(std::size_t algorithms)
      : perAlgo(std::make_unique<std::atomic<std::int64_t>[]>(4 * algorithms)) {}
  std::vector<std::unique_ptr<Store>> stores;  ///< one per replica, owned by this thread
  std::vector<Send> own;                       ///< virtual clock: the sends of this worker's keys
  std::atomic<std::int64_t> sent{0};           ///< decisions made
  std::atomic<std::int64_t> late{0};           ///< sends started late
  std::atomic<std::int64_t> lastAtUs{0};       ///< run time of this worker's latest decision
  std::unique_ptr<std::atomic<std::int64_t>[]> perAlgo;  ///< admitted, denied, errors, retries per algorithm
  Quota quota;                                 ///< this worker's copy of the quota in force
  std::uint64_t quotaVersion = 0;              ///< version of `quota`
  std::thread thread;                          ///< runs runWorker
};

}  // namespace rl
