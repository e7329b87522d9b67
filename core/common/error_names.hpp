#pragma once
// ErrorCode names for reports and JSON ("out_of_memory", "read_only", ...),
// and the number of codes for tables indexed by code.

#include "common/result.hpp"

namespace rl {

/// How many ErrorCode values there are (for tables indexed by code).
inline constexpr int kErrorCodeCount = 9;

/// The code's name in reports and JSON: "unavailable", "timeout", "out_of_memory", "read_only", ...
constexpr const char* errorCodeName(ErrorCode c) {
  switch (c) {
    case ErrorCode::InvalidArgument: return "invalid_argument";
    case ErrorCode::Unavailable: return "unavailable";
    case ErrorCode::Timeout: return "timeout";
    case ErrorCode::OutOfMemory: return "out_of_memory";
    case ErrorCode::ReadOnly: return "read_only";
    case ErrorCode::Protocol: return "protocol";
    case ErrorCode::Conflict: return "conflict";
    case ErrorCode::Cancelled: return "cancelled";
    case ErrorCode::Internal: return "internal";
  }
  return "internal";
}

static_assert(static_cast<int>(ErrorCode::Internal) + 1 == kErrorCodeCount, "kErrorCodeCount must follow ErrorCode");

}  // namespace rl
