#pragma once
// Prober: the audit's only way to the target. Sends one request or a round
// of concurrent ones, classifies each answer (2xx admitted; a deny status,
// x-envoy-ratelimited or nginx's REJECTED denied; anything else an error),
// reads its limit headers, records it as an Arrival, and refuses to send
// past the request or time budget. Sleeping is bounded by the budget too.
//
// Client ids: every key is `<runTag><name>`; on a loopback target each key
// also gets its own source address (127.x.y.z, hashed from the key), so a
// limiter keyed by address sees a fresh client for every probe.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "audit/audit_spec.hpp"
#include "http/http_client.hpp"
#include "http/limit_headers.hpp"

namespace rl {

/// How one request is made.
struct ProbeRequest {
  /// A request of `probe` on key `key` to URL `url`.
  ProbeRequest(std::string probeName, std::string keyName, int urlIndex = 0)
      : probe(std::move(probeName)), key(std::move(keyName)), url(urlIndex) {}

  std::string probe;            ///< probe name (recorded)
  std::string key;              ///< key name without the tag
  int url = 0;                  ///< which URL
  std::string forwardedFor;     ///< X-Forwarded-For to send ("" = none)
  std::string sourceKey;        ///< the address comes from this key instead ("" = `key`)
  bool fingerprinted = true;    ///< see Arrival
};

/// See the file comment. Not thread-safe (it runs its own threads for rounds).
class Prober {
 public:
  explicit Prober(const AuditSpec& spec);
  ~Prober();

  /// Parses every URL (InvalidArgument) and connects to each (Unavailable naming the first down).
  Result<void> open();
  /// Sends one request; nullopt when the budget is spent.
  std::optional<Arrival> send(const ProbeRequest& r);
  /// Sends `n` at once (each on its own connection); empty when the budget cannot pay for all.
  std::vector<Arrival> sendRound(int n, const ProbeRequest& r);
  /// True when `requests` more requests and `time` more wall time fit the budget.
  bool affords(std::int64_t requests, Micros time) const;
  /// Steady microseconds since open().
  std::int64_t nowUs() const;
  /// Sleeps until `us` (steady, since open()); false (no sleep) when that is past the budget,
  /// false as soon as the audit is cancelled (the sleep is cut short).
  bool sleepUntil(std::int64_t us);
  /// Stops the audit when `*cancel` turns true: nothing more is sent, sleeps end (may be null).
  void setCancel(const std::atomic<bool>* cancel) { cancel_ = cancel; }
  /// True once the audit was cancelled.
  bool cancelled() const { return cancel_ && cancel_->load(); }
  /// Every arrival so far, in send order.
  const std::vector<Arrival>& arrivals() const { return arrivals_; }
  /// Requests sent.
  std::int64_t sent() const { return static_cast<std::int64_t>(arrivals_.size()); }
  /// The full key of `name`: "<tag><name>".
  std::string fullKey(const std::string& name) const { return spec_.runTag + name; }
  /// How many URLs.
  int urls() const { return static_cast<int>(targets_.size()); }
  /// True when requests to `url` can come from chosen source addresses (a loopback target).
  bool choosesAddress(int url) const { return loopback_[static_cast<std::size_t>(url)]; }

 private:
  Arrival exchange(HttpClient& client, const ProbeRequest& r, int group);
  HttpClient& client(int url, const std::string& source, int slot);
  std::string sourceFor(const ProbeRequest& r) const;

  AuditSpec spec_;                      ///< what to send
  std::vector<HttpTarget> targets_;     ///< parsed URLs
  std::vector<bool> loopback_;          ///< per URL: source addresses can be chosen
  std::map<std::string, std::vector<std::unique_ptr<HttpClient>>> clients_;  ///< by "url|source", one per slot
  std::vector<Arrival> arrivals_;       ///< the record
  std::int64_t startUs_ = 0;            ///< steady time of open()
  int groups_ = 0;                      ///< next round's group id
  const std::atomic<bool>* cancel_ = nullptr;  ///< Ctrl-C (setCancel)
};

}  // namespace rl
