#include "redis/key_inspector.hpp"

#include <charconv>
#include <map>

#include "common/printable_text.hpp"
#include "redis/redis_link.hpp"

#include "keys/value_codec.hpp"

namespace rl {

std::string globEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

namespace {

std::vector<std::pair<std::string, std::string>> pairsOf(ReplyView r) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i + 1 < r.size(); i += 2)
    out.emplace_back(std::string(r[i].str()), std::string(r[i + 1].str()));
  return out;
}

// The fields of RateLab's sliding_log string (keys/value_codec.hpp), when it was read whole.
std::vector<std::pair<std::string, std::string>> decodedFields(const KeyInfo& k) {
  if (k.name.find("{sliding_log:") != std::string::npos && k.valueBytes == static_cast<std::int64_t>(k.value.size())) {
    auto log = decodeSlidingLog(k.value);
    if (log && !log->empty())
      return {{"entries", std::to_string(log->size())},
              {"oldest", std::to_string(log->front())},
              {"newest", std::to_string(log->back())}};
  }
  return {};
}

Result<void> readValue(RedisConnection& conn, KeyInfo& k, int zsetHead);

// Pipelined TYPE + PTTL for every key, then the heads of each value by its type
// (STRLEN + GETRANGE, HLEN + HSCAN, ZCARD + ZRANGE, LLEN + LRANGE).
Result<void> describeKeys(RedisConnection& conn, std::vector<KeyInfo>& keys, int zsetHead) {
  for (const auto& k : keys) {
    if (auto ok = conn.append({"TYPE", k.name}); !ok) return ok;
    if (auto ok = conn.append({"PTTL", k.name}); !ok) return ok;
  }
  for (auto& k : keys) {
    auto type = conn.getReply();
    if (!type) return type.error();
    auto pttl = conn.getReply();
    if (!pttl) return pttl.error();
    k.type = std::string(type->str());
    k.pttlMs = pttl->integer();
  }
  const std::string last = std::to_string(zsetHead - 1);
  static const std::string kValueEnd = std::to_string(kValueHead - 1), kHashCount = std::to_string(kHashHead);
  for (const auto& k : keys) {
    Result<void> ok;
    if (k.type == "string") ok = conn.append({"STRLEN", k.name});
    else if (k.type == "hash") ok = conn.append({"HLEN", k.name});
    else if (k.type == "zset") ok = conn.append({"ZCARD", k.name});
    else if (k.type == "list") ok = conn.append({"LLEN", k.name});
    else continue;
    if (!ok) return ok;
    if (k.type == "string") {
      if (auto g = conn.append({"GETRANGE", k.name, "0", kValueEnd}); !g) return g;
    }
    if (k.type == "hash") {
      if (auto h = conn.append({"HSCAN", k.name, "0", "COUNT", kHashCount}); !h) return h;
    }
    if (k.type == "zset" && zsetHead > 0) {
      if (auto z = conn.append({"ZRANGE", k.name, "0", last, "WITHSCORES"}); !z) return z;
      if (auto z = conn.append({"ZRANGE", k.name, "-1", "-1", "WITHSCORES"}); !z) return z;
    }
    if (k.type == "list") {
      if (auto l = conn.append({"LRANGE", k.name, "0", std::to_string(kListHead - 1)}); !l) return l;
    }
  }
  for (auto& k : keys) {
    if (k.type != "string" && k.type != "hash" && k.type != "zset" && k.type != "list") continue;
    auto read = readValue(conn, k, zsetHead);
    if (!read)
      return Error{read.error().code, "reading " + k.type + " key '" + printableText(k.name) + "': " + read.error().message};
  }
  return {};
}

// The replies describeKeys queued for `k`, in order.
Result<void> readValue(RedisConnection& conn, KeyInfo& k, int zsetHead) {
  auto r = conn.getReply();
  if (!r) return r.error();
  if (k.type == "string") {
    k.valueBytes = r->integer();
    auto head = conn.getReply();
    if (!head) return head.error();
    k.value = std::string(head->str());
    k.fields = decodedFields(k);
  }
  if (k.type == "hash") {
    k.fieldCount = r->integer();
    auto scan = conn.getReply();
    if (!scan) return scan.error();
    if (!scan->isArray() || scan->size() != 2) return protocolError("HSCAN returned " + scan->describe());
    k.fields = pairsOf((*scan)[1]);
    if (k.fields.size() > static_cast<std::size_t>(kHashHead)) k.fields.resize(static_cast<std::size_t>(kHashHead));
  }
  if (k.type == "zset") {
    k.zsetSize = r->integer();
    if (zsetHead > 0) {
      auto head = conn.getReply();
      if (!head) return head.error();
      k.zsetHead = pairsOf(*head);
      auto tail = conn.getReply();
      if (!tail) return tail.error();
      if (auto newest = pairsOf(*tail); !newest.empty()) k.zsetLast = newest.front();
    }
  }
  if (k.type == "list") {
    k.listSize = r->integer();
    auto head = conn.getReply();
    if (!head) return head.error();
    for (std::size_t i = 0; i < head->size(); ++i) k.listHead.emplace_back((*head)[i].str());
  }
  return {};
}

// Refuses an empty prefix and any key outside it (before anything is deleted).
Result<void> checkWithinPrefix(std::string_view prefix, const std::vector<std::string>& keys) {
  if (prefix.empty()) return invalidArgument("refusing to delete keys with an empty prefix");
  for (const auto& k : keys)
    if (!std::string_view(k).starts_with(prefix))
      return invalidArgument("refusing to delete '" + k + "': outside the prefix '" + std::string(prefix) + "'");
  return {};
}
}  // namespace

Result<KeyPage> scanLimiterKeys(RedisConnection& conn, std::string_view prefix, std::string_view pattern,
                                std::uint64_t cursor, int count, int zsetHead) {
  if (count < 1 || count > 100'000)
    return invalidArgument("count " + std::to_string(count) + " is out of range: allowed 1 to 100000");
  if (zsetHead < 0 || zsetHead > 1000)
    return invalidArgument("zset head " + std::to_string(zsetHead) + " is out of range: allowed 0 to 1000");
  const std::string match = globEscape(prefix) + std::string(pattern.empty() ? "*" : pattern);
  auto r = conn.command({"SCAN", std::to_string(cursor), "MATCH", match, "COUNT", std::to_string(count)});
  if (!r) return r.error();
  std::uint64_t next = 0;
  const auto c = (*r)[0].str();
  if (r->size() != 2 || std::from_chars(c.data(), c.data() + c.size(), next).ec != std::errc{})
    return protocolError("SCAN returned " + r->describe());
  KeyPage page;
  page.nextCursor = next;
  for (std::size_t i = 0; i < (*r)[1].size(); ++i) {
    KeyInfo k;
    k.name = std::string((*r)[1][i].str());
    page.keys.push_back(std::move(k));
  }
  if (auto ok = describeKeys(conn, page.keys, zsetHead); !ok) return ok.error();
  return page;
}

Result<std::vector<KeyInfo>> scanAllLimiterKeys(RedisConnection& conn, std::string_view prefix,
                                                std::string_view pattern, int zsetHead) {
  std::vector<KeyInfo> all;
  std::uint64_t cursor = 0;
  do {
    auto page = scanLimiterKeys(conn, prefix, pattern, cursor, 1000, zsetHead);
    if (!page) return page.error();
    for (auto& k : page->keys) all.push_back(std::move(k));
    cursor = page->nextCursor;
  } while (cursor != 0);
  return all;
}

Result<std::vector<KeyInfo>> scanAllLimiterKeys(const RedisEndpoint& endpoint, std::string_view prefix,
                                                std::string_view pattern) {
  auto link = RedisLink::connect(endpoint);
  if (!link) return link.error();
  return scanAllLimiterKeys(*link, prefix, pattern);
}

Result<std::vector<KeyInfo>> scanAllLimiterKeys(RedisLink& link, std::string_view prefix, std::string_view pattern,
                                                int zsetHead) {
  std::vector<KeyInfo> all;
  const bool cluster = link.router() != nullptr;
  auto ok = link.forEachMaster([&](RedisConnection& conn) -> Result<void> {
    auto keys = scanAllLimiterKeys(conn, prefix, pattern, zsetHead);
    if (!keys) return keys.error();
    for (KeyInfo& k : *keys) {
      if (cluster) {
        k.node = conn.endpoint().address();
        k.slot = keySlot(k.name);
      }
      all.push_back(std::move(k));
    }
    return {};
  });
  if (!ok) return ok.error();
  return all;
}

Result<std::vector<KeyInfo>> readKeysNamed(RedisConnection& conn, const std::vector<std::string>& names, int zsetHead) {
  std::vector<KeyInfo> keys(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) keys[i].name = names[i];
  if (auto ok = describeKeys(conn, keys, zsetHead); !ok) return ok.error();
  return keys;
}

Result<void> sampleMemoryUsage(RedisConnection& conn, std::vector<KeyInfo>& keys, int every, std::int64_t* seen) {
  if (every < 1) return {};
  std::vector<KeyInfo*> sampled;
  for (KeyInfo& k : keys)
    if (const std::int64_t n = (*seen)++; (n < kMemoryAllFirst || n % every == 0) && k.pttlMs != -2) {
      if (auto ok = conn.append({"MEMORY", "USAGE", k.name}); !ok) return ok;
      sampled.push_back(&k);
    }
  for (KeyInfo* k : sampled) {
    auto r = conn.getReply();
    if (!r) return r.error();
    if (r->isInteger()) k->memoryBytes = r->integer();  // nil: gone meanwhile; an error: MEMORY not allowed
  }
  return {};
}

Result<std::int64_t> deleteKeys(RedisConnection& conn, std::string_view prefix,
                                const std::vector<std::string>& keys) {
  if (auto ok = checkWithinPrefix(prefix, keys); !ok) return ok.error();
  if (keys.empty()) return std::int64_t{0};
  std::vector<std::string> argv{"DEL"};
  argv.insert(argv.end(), keys.begin(), keys.end());
  auto r = conn.command(argv);
  if (!r) return r.error();
  return r->integer();
}

Result<std::int64_t> deleteKeys(RedisLink& link, std::string_view prefix, const std::vector<std::string>& keys) {
  if (auto ok = checkWithinPrefix(prefix, keys); !ok) return ok.error();
  if (!link.router()) return link.onKey({}, [&](RedisConnection& conn) { return deleteKeys(conn, prefix, keys); });
  std::map<int, std::vector<std::string>> bySlot;  // one DEL per slot: a multi-key DEL must stay in one slot
  for (const auto& k : keys) bySlot[keySlot(k)].push_back(k);
  std::int64_t deleted = 0;
  for (const auto& entry : bySlot) {
    const std::vector<std::string>& group = entry.second;
    auto n = link.onKey(group.front(), [&](RedisConnection& conn) { return deleteKeys(conn, prefix, group); });
    if (!n) return n.error();
    deleted += *n;
  }
  return deleted;
}

Result<std::int64_t> serverTimeUs(RedisConnection& conn) {
  auto r = conn.command({"TIME"});
  if (!r) return r.error();
  const auto s = (*r)[0].toInt();
  const auto us = (*r)[1].toInt();
  if (r->size() != 2 || !s || !us) return protocolError("TIME returned " + r->describe());
  return *s * 1'000'000 + *us;
}

Result<std::vector<std::int64_t>> pttlOf(RedisConnection& conn, const std::vector<std::string>& keys) {
  for (const auto& k : keys)
    if (auto ok = conn.append({"PTTL", k}); !ok) return ok.error();
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto r = conn.getReply();
    if (!r) return r.error();
    if (!r->isInteger()) return protocolError("PTTL returned " + r->describe());
    out.push_back(r->integer());
  }
  return out;
}

}  // namespace rl
