#include "http/client_identity.hpp"

#include <random>

namespace rl {
namespace {

std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

bool inProxies(const QHostAddress& a, const ForwardTrust& trust) {
  for (const auto& [net, prefix] : trust.proxies)
    if (a.isInSubnet(net, prefix)) return true;
  return false;
}

QHostAddress parseAddress(std::string_view text) {
  QHostAddress a;
  if (text.empty() || !a.setAddress(QString::fromLatin1(text.data(), static_cast<qsizetype>(text.size()))))
    return {};
  bool v4 = false;
  const auto mapped = a.toIPv4Address(&v4);
  return v4 ? QHostAddress(mapped) : a;
}

// The client address an X-Forwarded-For list names, walking from the right past trusted proxies.
std::string forwardedClient(std::string_view list, const ForwardTrust& trust) {
  std::string leftmost;
  while (!list.empty()) {
    const auto comma = list.rfind(',');
    const auto item = trim(comma == std::string_view::npos ? list : list.substr(comma + 1));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(0, comma);
    const auto a = parseAddress(item);
    if (a.isNull()) return {};  // not an address: the header is not believed
    leftmost = addressText(a);
    if (!inProxies(a, trust)) return leftmost;
  }
  return leftmost;
}

}  // namespace

bool isTrustedProxy(std::string_view peer, const ForwardTrust& trust) {
  if (trust.proxies.empty()) return false;
  const auto a = parseAddress(peer);
  return !a.isNull() && inProxies(a, trust);
}

bool sameSecret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string addressText(const QHostAddress& a) {
  bool isV4 = false;
  const auto v4 = a.toIPv4Address(&isV4);  // also unmaps ::ffff:a.b.c.d
  return isV4 ? QHostAddress(v4).toString().toStdString() : a.toString().toStdString();
}

Result<std::vector<std::pair<QHostAddress, int>>> parseTrustedProxies(std::string_view list) {
  std::vector<std::pair<QHostAddress, int>> out;
  while (true) {
    const auto comma = list.find(',');
    const auto item = trim(list.substr(0, comma));
    const QString text = QString::fromLatin1(item.data(), static_cast<qsizetype>(item.size()));
    auto subnet = QHostAddress::parseSubnet(text.contains('/') ? text : text + (text.contains(':') ? "/128" : "/32"));
    if (item.empty() || subnet.first.isNull())
      return invalidArgument("--trusted-proxy '" + std::string(item) +
                             "' is not an address or CIDR: expected e.g. 10.0.0.0/8,192.0.2.7,::1");
    out.push_back(std::move(subnet));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

std::string makeFrontSecret() {
  std::random_device device;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 8; ++i) {
    auto word = device();
    for (int j = 0; j < 4; ++j, word >>= 4) s.push_back(kHex[word & 15]);
  }
  return s;
}

bool isValidUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int extra = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) { ++i; continue; }
    if (c >= 0xc2 && c <= 0xdf) { extra = 1; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { extra = 2; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { extra = 3; cp = c & 0x07; }
    else return false;
    if (i + static_cast<std::size_t>(extra) >= s.size()) return false;
    for (int k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    const std::uint32_t minimum[] = {0, 0x80, 0x800, 0x10000};
    if (cp < minimum[extra] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += static_cast<std::size_t>(extra) + 1;
  }
  return true;
}

Result<std::string> clientKeyOf(const HttpRequest& request, const std::string& peer, const ForwardTrust& trust) {
  if (const auto* key = findHeader(request.headers, "x-api-key"); key && !key->empty()) {
    if (key->size() > kMaxApiKeyBytes)
      return invalidArgument("x-api-key is " + std::to_string(key->size()) + " bytes long: allowed 1 to " +
                             std::to_string(kMaxApiKeyBytes));
    if (!isValidUtf8(*key)) return invalidArgument("x-api-key is not valid UTF-8: send UTF-8 text");
    return "key:" + *key;
  }
  const auto* forwarded = findHeader(request.headers, "x-forwarded-for");
  if (forwarded != nullptr) {
    const auto* secret = findHeader(request.headers, kFrontSecretHeader);
    const bool fromFront = !trust.frontSecret.empty() && secret && sameSecret(*secret, trust.frontSecret);
    if (fromFront || (!trust.proxies.empty() && inProxies(parseAddress(peer), trust))) {
      auto client = forwardedClient(*forwarded, trust);
      if (!client.empty()) return "ip:" + client;
    }
  }
  return "ip:" + peer;
}

}  // namespace rl
