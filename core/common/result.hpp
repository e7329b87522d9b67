#pragma once
// Result<T>: a value or an Error. Expected failures (bad quota, Redis down,
// bad reply) travel as values, never as exceptions through the hot path.

#include <string>
#include <utility>
#include <variant>

namespace rl {

/// What kind of failure an Error is; callers branch on this, users read `message`.
enum class ErrorCode {
  InvalidArgument,  ///< bad quota, flag or request: the caller must fix its input
  Unavailable,      ///< the store cannot be reached (connect refused, closed, circuit open)
  Timeout,          ///< the store did not answer within the command timeout
  OutOfMemory,      ///< the store refused a write: out of memory (Redis OOM)
  ReadOnly,         ///< the store refused a write: it is a read-only replica (Redis READONLY)
  Protocol,         ///< the store answered something unexpected
  Conflict,         ///< optimistic transaction gave up after its retries
  Cancelled,        ///< the work was cancelled
  Internal,         ///< a bug: an invariant did not hold
};

/// An expected failure: a code and one clear sentence for the user.
struct Error {
  ErrorCode code = ErrorCode::Internal;  ///< the failure's kind
  std::string message;                   ///< names what was wrong and what is allowed
};

/// Shorthand constructors for the common errors.
inline Error invalidArgument(std::string msg) { return {ErrorCode::InvalidArgument, std::move(msg)}; }
inline Error unavailable(std::string msg) { return {ErrorCode::Unavailable, std::move(msg)}; }
inline Error protocolError(std::string msg) { return {ErrorCode::Protocol, std::move(msg)}; }

/// A value of type T, or an Error. A small stand-in for C++23 std::expected.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}      // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Result of an operation with no value: ok, or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace rl
