#include "limiter/algorithm.hpp"

namespace rl {

std::string_view algorithmName(Algorithm a) {
  switch (a) {
    case Algorithm::FixedWindow: return "fixed_window";
    case Algorithm::SlidingLog: return "sliding_log";
    case Algorithm::SlidingCounter: return "sliding_counter";
    case Algorithm::TokenBucket: return "token_bucket";
    case Algorithm::LeakyBucket: return "leaky_bucket";
    case Algorithm::Gcra: return "gcra";
  }
  return "unknown";
}

std::optional<Algorithm> parseAlgorithm(std::string_view name) {
  for (Algorithm a : kAllAlgorithms)
    if (algorithmName(a) == name) return a;
  return std::nullopt;
}

std::string_view algorithmSummary(Algorithm a) {
  switch (a) {
    case Algorithm::FixedWindow:
      return "Counts requests per aligned window and resets at each boundary, so a burst "
             "straddling a boundary can pass up to twice the limit.";
    case Algorithm::SlidingLog:
      return "Keeps a timestamp per admitted request and never admits more than the limit "
             "in any window, at the cost of memory per request.";
    case Algorithm::SlidingCounter:
      return "Weights the previous window's count by its overlap with the sliding window: "
             "smooth and cheap, an estimate between fixed window and sliding log.";
    case Algorithm::TokenBucket:
      return "Refills tokens at a steady rate up to a capacity: allows bursts of the full "
             "capacity after idle time, then the refill rate.";
    case Algorithm::LeakyBucket:
      return "Queues requests and releases them at a steady rate: admitted requests are "
             "delayed to shape traffic, a full queue denies.";
    case Algorithm::Gcra:
      return "Tracks one theoretical arrival time per key: token-bucket behaviour with a "
             "single number of state and exact retry times.";
  }
  return "";
}

bool isRateBased(Algorithm a) {
  return a == Algorithm::TokenBucket || a == Algorithm::LeakyBucket || a == Algorithm::Gcra;
}

}  // namespace rl
