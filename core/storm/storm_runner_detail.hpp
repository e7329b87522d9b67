#pragma once
// Internal to StormRunner (storm_runner.cpp, storm_runner_threads.cpp): one planned
// send and one worker's state. Not part of the public API.

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "storm/storm_runner.hpp"

namespace rl {

/// One (request, algorithm) decision to make, in 12 bytes (a plan holds one per
/// decision for the whole run). Bounds as DecisionRecord's; a cost of 0 stands
/// for the spec's own (any size), else it is a trace request's (< 2^27).
class StormRunner::Send {
 public:
  Send(std::int64_t intendedUs, std::int64_t cost, std::uint32_t client, std::uint16_t replica, std::uint8_t algo)
      : intendedLow_(static_cast<std::uint32_t>(intendedUs)),
        packed_((client & 0xfffffu) | static_cast<std::uint32_t>(intendedUs >> 32 & 0xff) << 20 |
                std::uint32_t{algo & 7u} << 28 | static_cast<std::uint32_t>(cost >> 26 & 1) << 31),
        low_((replica & 63u) | static_cast<std::uint32_t>(cost & kCostLowMask) << 6) {}
  std::int64_t intendedUs() const {  ///< us since the run's start
    return static_cast<std::int64_t>(std::uint64_t{packed_ >> 20 & 0xff} << 32 | intendedLow_);
  }
  /// The request's weight: its own, or `uniform` (the spec's) when planned with 0.
  std::int64_t cost(std::int64_t uniform) const {
    const std::int64_t own = static_cast<std::int64_t>(std::uint64_t{packed_ >> 31} << 26 | (low_ >> 6));
    return own == 0 ? uniform : own;
  }
  std::uint32_t client() const { return packed_ & 0xfffffu; }                        ///< client index
  std::uint16_t replica() const { return static_cast<std::uint16_t>(low_ & 63u); }   ///< replica index
  std::uint8_t algo() const { return static_cast<std::uint8_t>(packed_ >> 28 & 7); }  ///< index into spec_.algorithms

 private:
  static constexpr std::uint32_t kCostLowMask = (1u << 26) - 1;
  std::uint32_t intendedLow_;  ///< intended time, bits 0..31
  std::uint32_t packed_;       ///< client:20 | intended bits 32..39:8 | algo:3 | cost bit 26:1
  std::uint32_t low_;          ///< replica:6 | cost bits 0..25:26
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
  std::size_t nextChange = 0;                  ///< the first of spec.quotaChanges not yet applied to `quota`
  std::thread thread;                          ///< runs runWorker
};

}  // namespace rl
