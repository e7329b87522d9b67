#pragma once
// A trace: real traffic read from an access log, JSONL or CSV file, as a
// request stream (time in microseconds, client key, cost) that a storm
// replays and a tune sweep evaluates.
//
// Reading streams the file in 1 MiB chunks (gzip read directly with zlib), so
// the file's size does not matter for memory: what is kept is 16 bytes per
// accepted request plus each distinct client key once.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "trace/trace_options.hpp"

namespace rl {

/// One replayed request.
struct TraceRequest {
  std::int64_t timeUs = 0;   ///< when it happened, us since the epoch (after any spreading)
  std::uint32_t client = 0;  ///< index into Trace::keys
  std::uint32_t cost = 1;    ///< weight (csv third column; 1 otherwise)
};

/// What reading a trace found, line by line.
struct TraceStats {
  std::int64_t lines = 0;     ///< lines read (blank ones included)
  std::int64_t accepted = 0;  ///< requests kept
  std::int64_t bad = 0;       ///< lines that did not parse
  std::int64_t filtered = 0;  ///< valid lines left out by --trace-filter
  std::int64_t spread = 0;    ///< requests whose one-second time was spread within its second
  std::int64_t bytes = 0;     ///< bytes read after decompression (the file's size when plain)
  std::vector<std::int64_t> firstBadLines;  ///< line numbers (1-based) of the first few bad lines
  std::string firstBadReason;               ///< why the first bad line was bad
};

/// A loaded trace; requests sorted by time (equal times keep file order).
struct Trace {
  std::vector<TraceRequest> requests;  ///< the request stream
  std::vector<std::string> keys;       ///< client keys, in order of first appearance
  TraceStats stats;                    ///< counts of the read
  TraceFormat format;                  ///< the format read (detected when asked for auto)
  std::string path;                    ///< the file read

  /// Time of the last request minus the first (0 when empty).
  std::int64_t spanUs() const;
  /// Largest request cost (1 when empty).
  std::uint32_t maxCost() const;
  /// "1000 requests from 12 clients over 61.0 s (combined, 2 bad lines: 4, 9)".
  std::string summary() const;
};

/// The first bad lines remembered in TraceStats::firstBadLines.
inline constexpr std::size_t kBadLinesShown = 5;

/// Reads `options.path` into a Trace. Errors (InvalidArgument) name the flag:
/// --trace (unreadable file, corrupt gzip), --trace-format (cannot tell the
/// format, or a bad log_format), --trace-key / --trace-time / --trace-filter
/// (not available in that format), --strict (bad lines), and a trace with no
/// valid line. `progress`, when set, gets the bytes read so far now and then;
/// `cancel` stops the read (Cancelled).
Result<Trace> loadTrace(const TraceOptions& options, const std::function<void(std::int64_t)>& progress = {},
                        const std::atomic<bool>* cancel = nullptr);

/// A loaded trace shared by the storm spec, the runner and the tune sweep.
using SharedTrace = std::shared_ptr<const Trace>;

}  // namespace rl
