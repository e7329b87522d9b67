#include "http/http_message.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

namespace rl {
namespace {

constexpr std::string_view kCrlf = "\r\n";
constexpr std::string_view kHeadEnd = "\r\n\r\n";

// RFC 9110 tchar, as a table: header names are checked byte by byte on every message.
constexpr auto kTchar = [] {
  std::array<bool, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (const char c : std::string_view("!#$%&'*+-.^_`|~")) t[static_cast<unsigned char>(c)] = true;
  return t;
}();

bool isTchar(char c) { return kTchar[static_cast<unsigned char>(c)]; }

bool isToken(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), isTchar); }

bool isFieldValueChar(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  return c == '\t' || (c >= 0x20 && c != 0x7f);
}

std::string_view trimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

ParseOutcome failure(int status, std::string message) {
  return {ParseState::Failed, 0, status, std::move(message)};
}

// "HTTP/1.0" or "HTTP/1.1" -> minor version; other well-formed versions -> 505; else 400.
ParseOutcome parseVersion(std::string_view v, int& minor) {
  const bool wellFormed = v.size() == 8 && v.substr(0, 5) == "HTTP/" && v[6] == '.' &&
                          v[5] >= '0' && v[5] <= '9' && v[7] >= '0' && v[7] <= '9';
  if (!wellFormed) return failure(400, "bad HTTP version: expected HTTP/1.1 or HTTP/1.0");
  if (v[5] != '1') return failure(505, "HTTP version not supported: only HTTP/1.1 and HTTP/1.0");
  minor = v[7] - '0';
  if (minor > 1) return failure(505, "HTTP version not supported: only HTTP/1.1 and HTTP/1.0");
  return {};
}

ParseOutcome parseRequestLine(std::string_view line, HttpRequest& out) {
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return failure(400, "malformed request line: expected 'METHOD /target HTTP/1.1'");
  const auto method = line.substr(0, sp1);
  const auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (!isToken(method)) return failure(400, "malformed request line: bad method token");
  const bool targetChars = std::all_of(target.begin(), target.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c > 0x20 && c < 0x7f;
  });
  const bool targetForm = target == "*" || (!target.empty() && target.front() == '/') ||
                          target.substr(0, 7) == "http://" || target.substr(0, 8) == "https://";
  if (!targetChars || !targetForm)
    return failure(400, "malformed request target: expected an absolute path such as /ping");
  out.method.assign(method);
  out.target.assign(target);
  return parseVersion(line.substr(sp2 + 1), out.minorVersion);
}

// Checks the "Name: value\r\n..." lines of `block` (no trailing CRLF) and calls
// `field(name, value)` for each, in order, without copying them.
template <class Field>
ParseOutcome forEachHeaderLine(std::string_view block, const HttpLimits& limits, Field&& field) {
  std::size_t count = 0;
  while (!block.empty()) {
    const auto end = block.find(kCrlf);
    const auto line = block.substr(0, end);
    block.remove_prefix(end == std::string_view::npos ? block.size() : end + 2);
    if (line.empty()) continue;
    if (line.front() == ' ' || line.front() == '\t')
      return failure(400, "obsolete header line folding is not allowed");
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || !isToken(line.substr(0, colon)))
      return failure(400, "malformed header line: expected 'Name: value'");
    const auto value = trimSpaces(line.substr(colon + 1));
    if (!std::all_of(value.begin(), value.end(), isFieldValueChar))
      return failure(400, "malformed header value: control characters are not allowed");
    if (count++ == limits.maxHeaderCount)
      return failure(431, "too many header fields: at most " + std::to_string(limits.maxHeaderCount));
    field(line.substr(0, colon), value);
  }
  return {};
}

// Parses the header lines of `block` into `out`.
ParseOutcome parseHeaderLines(std::string_view block, const HttpLimits& limits, HttpHeaders& out) {
  out.clear();
  out.reserve(std::min<std::size_t>(limits.maxHeaderCount, 16));  // one allocation for a usual request
  return forEachHeaderLine(block, limits, [&out](std::string_view name, std::string_view value) {
    out.push_back({std::string(name), std::string(value)});
  });
}

// One Content-Length field: its value must be one decimal number within the limit, equal to
// any earlier one (`present`, `length`).
ParseOutcome contentLength(std::string_view value, const HttpLimits& limits, std::size_t& length, bool& present) {
  std::uint64_t n = 0;
  const auto* first = value.data();
  const auto* last = first + value.size();
  const auto [ptr, ec] = std::from_chars(first, last, n);
  if (value.empty() || ec != std::errc{} || ptr != last || (present && n != length))
    return failure(400, "bad Content-Length: expected one non-negative decimal number");
  if (n > limits.maxBodyBytes)
    return failure(413, "body too large: at most " + std::to_string(limits.maxBodyBytes) + " bytes");
  present = true;
  length = static_cast<std::size_t>(n);
  return {};
}

// Body length from Content-Length; `failStatus` replaces 4xx/5xx codes for responses.
ParseOutcome bodyLength(const HttpHeaders& headers, const HttpLimits& limits, std::size_t& length,
                        bool& present) {
  if (findHeader(headers, "transfer-encoding") != nullptr)
    return failure(501, "Transfer-Encoding is not supported: send a Content-Length body");
  present = false;
  length = 0;
  for (const auto& h : headers) {
    if (!equalsIgnoreCase(h.name, "content-length")) continue;
    if (auto c = contentLength(h.value, limits, length, present); c.state == ParseState::Failed) return c;
  }
  return {};
}

// Finds the end of the header block; fails with 431 past the limit.
ParseOutcome findHeadEnd(std::string_view data, const HttpLimits& limits, std::size_t& headEnd) {
  headEnd = data.find(kHeadEnd);
  const std::size_t headSize = headEnd == std::string_view::npos ? data.size() : headEnd + 4;
  if (headSize > limits.maxHeaderBytes)
    return failure(431, "header section too large: at most " + std::to_string(limits.maxHeaderBytes) +
                            " bytes");
  return {};
}

}  // namespace

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           const auto lx = (x >= 'A' && x <= 'Z') ? static_cast<char>(x + 32) : x;
           const auto ly = (y >= 'A' && y <= 'Z') ? static_cast<char>(y + 32) : y;
           return lx == ly;
         });
}

bool hasToken(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    if (equalsIgnoreCase(trimSpaces(list.substr(0, comma)), token)) return true;
    list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
  }
  return false;
}

bool connectionHas(const HttpHeaders& headers, std::string_view token) {
  for (const auto& h : headers)
    if (equalsIgnoreCase(h.name, "connection") && hasToken(h.value, token)) return true;
  return false;
}

const std::string* findHeader(const HttpHeaders& headers, std::string_view name) {
  for (const auto& h : headers)
    if (equalsIgnoreCase(h.name, name)) return &h.value;
  return nullptr;
}

bool HttpRequest::keepAlive() const {
  if (connectionHas(headers, "close")) return false;
  return minorVersion >= 1 || connectionHas(headers, "keep-alive");
}

std::string HttpRequest::serialize() const {
  std::string out;
  out.reserve(64 + body.size() + headers.size() * 32);
  out.append(method).append(" ").append(target).append(minorVersion == 0 ? " HTTP/1.0" : " HTTP/1.1");
  out.append(kCrlf);
  for (const auto& h : headers) out.append(h.name).append(": ").append(h.value).append(kCrlf);
  if (!body.empty() && findHeader(headers, "content-length") == nullptr)
    out.append("Content-Length: ").append(std::to_string(body.size())).append(kCrlf);
  out.append(kCrlf).append(body);
  return out;
}

HttpResponse& HttpResponse::set(std::string name, std::string value) {
  headers.push_back({std::move(name), std::move(value)});
  return *this;
}

std::string HttpResponse::serialize(bool headOnly) const {
  std::string out;
  out.reserve(128 + body.size() + headers.size() * 40);
  out.append("HTTP/1.1 ").append(std::to_string(status)).append(" ").append(httpReason(status));
  out.append(kCrlf);
  for (const auto& h : headers) out.append(h.name).append(": ").append(h.value).append(kCrlf);
  out.append("Content-Length: ").append(std::to_string(headLength.value_or(body.size()))).append(kCrlf);
  out.append(keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n");
  out.append(kCrlf);
  if (!headOnly) out.append(body);
  return out;
}

std::string_view httpReason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

ParseOutcome parseRequest(std::string_view data, const HttpLimits& limits, HttpRequest& out) {
  const auto lineEnd = data.find(kCrlf);
  if (lineEnd == std::string_view::npos) {
    if (data.find('\n') != std::string_view::npos)
      return failure(400, "malformed request line: lines must end with CRLF");
    std::size_t ignored = 0;
    return findHeadEnd(data, limits, ignored);
  }
  if (auto line = parseRequestLine(data.substr(0, lineEnd), out); line.state == ParseState::Failed)
    return line;
  std::size_t headEnd = 0;
  if (auto head = findHeadEnd(data, limits, headEnd); head.state == ParseState::Failed) return head;
  if (headEnd == std::string_view::npos) return {};
  const auto block = headEnd > lineEnd ? data.substr(lineEnd + 2, headEnd - lineEnd - 2) : std::string_view{};
  if (auto h = parseHeaderLines(block, limits, out.headers); h.state == ParseState::Failed) return h;
  const auto hosts = std::count_if(out.headers.begin(), out.headers.end(),
                                   [](const HttpHeader& h) { return equalsIgnoreCase(h.name, "host"); });
  if ((out.minorVersion == 1 && hosts == 0) || hosts > 1)
    return failure(400, "an HTTP/1.1 request needs exactly one Host header");
  std::size_t length = 0;
  bool present = false;
  if (auto b = bodyLength(out.headers, limits, length, present); b.state == ParseState::Failed) return b;
  const std::size_t total = headEnd + 4 + length;
  if (data.size() < total) {
    ParseOutcome more;
    const auto* expect = findHeader(out.headers, "expect");
    more.expectContinue = expect && out.minorVersion == 1 && equalsIgnoreCase(*expect, "100-continue");
    return more;
  }
  out.body.assign(data.substr(headEnd + 4, length));
  return {ParseState::Complete, total, 0, {}};
}

ParseOutcome parseHeaderBlock(std::string_view block, const HttpLimits& limits, HttpHeaders& out) {
  return parseHeaderLines(block, limits, out);
}

ParseOutcome scanResponse(std::string_view data, const HttpLimits& limits, bool headRequest, ResponseFrame& out) {
  std::size_t headEnd = 0;
  if (auto head = findHeadEnd(data, limits, headEnd); head.state == ParseState::Failed)
    return failure(502, "upstream " + head.error);
  if (headEnd == std::string_view::npos) return {};
  const auto lineEnd = data.find(kCrlf);
  const auto line = data.substr(0, lineEnd);
  int status = 0;
  const bool statusOk = line.size() >= 12 && line.substr(0, 7) == "HTTP/1." && line[8] == ' ' &&
                        std::from_chars(line.data() + 9, line.data() + 12, status).ptr == line.data() + 12 &&
                        status >= 100 && status <= 599;
  if (!statusOk) return failure(502, "upstream sent a malformed status line");
  out.status = status;
  out.headerBegin = headEnd > lineEnd ? lineEnd + 2 : headEnd;
  out.headerEnd = headEnd;
  std::size_t length = 0;
  bool present = false, close = false, chunked = false;
  ParseOutcome bad;
  auto h = forEachHeaderLine(data.substr(out.headerBegin, headEnd - out.headerBegin), limits,
                             [&](std::string_view name, std::string_view value) {
                               if (equalsIgnoreCase(name, "content-length")) {
                                 if (bad.state != ParseState::Failed) bad = contentLength(value, limits, length, present);
                               } else if (equalsIgnoreCase(name, "connection")) {
                                 close = close || hasToken(value, "close");
                               } else if (equalsIgnoreCase(name, "transfer-encoding")) {
                                 chunked = true;
                               }
                             });
  if (h.state == ParseState::Failed) return failure(502, "upstream " + h.error);
  if (chunked) bad = failure(501, "Transfer-Encoding is not supported: send a Content-Length body");
  if (bad.state == ParseState::Failed) return failure(502, "upstream " + bad.error);
  out.keepAlive = !close && line[7] == '1';
  const bool noBody = headRequest || status < 200 || status == 204 || status == 304;
  out.headLength = headRequest && present ? std::optional(length) : std::nullopt;
  if (noBody) length = 0;
  else if (!present) return failure(502, "upstream response has no Content-Length");
  out.bodyLength = length;
  const std::size_t total = headEnd + 4 + length;
  if (data.size() < total) return {};
  return {ParseState::Complete, total, 0, {}};
}

ParseOutcome parseResponse(std::string_view data, const HttpLimits& limits, bool headRequest,
                           HttpResponse& out) {
  ResponseFrame frame;
  auto outcome = scanResponse(data, limits, headRequest, frame);
  if (outcome.state != ParseState::Complete) return outcome;
  out.status = frame.status;
  out.keepAlive = frame.keepAlive;
  out.headLength = frame.headLength;
  parseHeaderLines(data.substr(frame.headerBegin, frame.headerEnd - frame.headerBegin), limits, out.headers);
  out.body.assign(data.substr(frame.headerEnd + 4, frame.bodyLength));
  std::erase_if(out.headers, [](const HttpHeader& h) {
    return equalsIgnoreCase(h.name, "content-length") || equalsIgnoreCase(h.name, "connection");
  });
  return outcome;
}

}  // namespace rl
