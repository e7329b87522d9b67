#include "http/client_response.hpp"

#include <charconv>
#include <cstdint>

namespace rl {
namespace {

constexpr std::string_view kCrlf = "\r\n";
constexpr std::size_t kMaxChunkLine = 1024;  // "1a2b;ext=..." CRLF

ParseOutcome fail(std::string message) { return {ParseState::Failed, 0, 502, "upstream " + std::move(message)}; }

ParseOutcome needMore(bool eof, std::string_view what) {
  if (eof) return fail("closed the connection in the middle of " + std::string(what));
  return {};
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The last comma-separated token of `list`, lowercased comparison helper.
bool lastTokenIs(std::string_view list, std::string_view token) {
  const auto comma = list.rfind(',');
  return equalsIgnoreCase(trim(comma == std::string_view::npos ? list : list.substr(comma + 1)), token);
}

// "HTTP/1.x SSS[ reason]": the status and the minor version, or false.
bool statusLine(std::string_view line, int& status, int& minor) {
  if (line.size() < 12 || line.substr(0, 7) != "HTTP/1." || line[8] != ' ' || (line[7] != '0' && line[7] != '1'))
    return false;
  if (line.size() > 12 && line[12] != ' ') return false;
  const auto* digits = line.data() + 9;
  if (std::from_chars(digits, digits + 3, status).ptr != digits + 3 || status < 100 || status > 599) return false;
  minor = line[7] - '0';
  return true;
}

// Decodes a chunked body starting at `data` into `body`; Complete with `consumed` bytes
// (through the trailers' blank line).
ParseOutcome dechunk(std::string_view data, const HttpLimits& limits, bool eof, std::string& body) {
  std::size_t at = 0;
  body.clear();
  for (;;) {
    const auto lineEnd = data.find(kCrlf, at);
    if (lineEnd == std::string_view::npos) {
      if (data.size() - at > kMaxChunkLine) return fail("sent a chunk-size line over 1 KiB");
      return needMore(eof, "a chunked body");
    }
    if (lineEnd - at > kMaxChunkLine) return fail("sent a chunk-size line over 1 KiB");
    const auto line = data.substr(at, lineEnd - at);
    const auto sizeText = trim(line.substr(0, line.find(';')));
    std::uint64_t size = 0;
    const auto [ptr, ec] = std::from_chars(sizeText.data(), sizeText.data() + sizeText.size(), size, 16);
    if (sizeText.empty() || ec != std::errc{} || ptr != sizeText.data() + sizeText.size())
      return fail("sent a malformed chunk size: expected hexadecimal digits");
    if (size > limits.maxBodyBytes || body.size() + size > limits.maxBodyBytes)
      return fail("body too large: at most " + std::to_string(limits.maxBodyBytes) + " bytes");
    at = lineEnd + 2;
    if (size == 0) break;
    if (data.size() < at + size + 2) return needMore(eof, "a chunk");
    if (data.substr(at + size, 2) != kCrlf) return fail("sent a chunk without its CRLF");
    body.append(data.substr(at, size));
    at += size + 2;
  }
  // Trailer fields until an empty line; read and dropped.
  const auto trailerEnd = data.find(kCrlf, at) == at ? at : data.find("\r\n\r\n", at);
  if (trailerEnd == std::string_view::npos) {
    if (data.size() - at > limits.maxHeaderBytes) return fail("sent trailers over the header limit");
    return needMore(eof, "the trailers");
  }
  if (trailerEnd - at > limits.maxHeaderBytes) return fail("sent trailers over the header limit");
  const std::size_t consumed = trailerEnd == at ? at + 2 : trailerEnd + 4;
  return {ParseState::Complete, consumed, 0, {}};
}

// The body after a head of `headSize` bytes, framed as the headers say.
ParseOutcome readBody(std::string_view rest, const HttpLimits& limits, bool eof, bool noBody, HttpResponse& out) {
  const std::string* te = findHeader(out.headers, "transfer-encoding");
  if (noBody) return {ParseState::Complete, 0, 0, {}};
  if (te != nullptr) {
    if (!lastTokenIs(*te, "chunked")) return fail("sent Transfer-Encoding '" + *te + "': only chunked is understood");
    return dechunk(rest, limits, eof, out.body);
  }
  bool present = false;
  std::uint64_t length = 0;
  for (const auto& h : out.headers) {
    if (!equalsIgnoreCase(h.name, "content-length")) continue;
    std::uint64_t n = 0;
    const auto v = trim(h.value);
    const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc{} || ptr != v.data() + v.size() || (present && n != length))
      return fail("bad Content-Length: expected one non-negative decimal number");
    present = true;
    length = n;
  }
  if (present) {
    if (length > limits.maxBodyBytes)
      return fail("body too large: at most " + std::to_string(limits.maxBodyBytes) + " bytes");
    if (rest.size() < length) return needMore(eof, "the body");
    out.body.assign(rest.substr(0, length));
    return {ParseState::Complete, static_cast<std::size_t>(length), 0, {}};
  }
  // Neither: the body ends where the server closes (RFC 9112 6.3, item 8).
  if (rest.size() > limits.maxBodyBytes)
    return fail("body too large: at most " + std::to_string(limits.maxBodyBytes) + " bytes");
  if (!eof) return {};
  out.body.assign(rest);
  out.keepAlive = false;
  return {ParseState::Complete, rest.size(), 0, {}};
}

}  // namespace

ParseOutcome parseClientResponse(std::string_view data, const HttpLimits& limits, bool headRequest, bool eof,
                                 HttpResponse& out) {
  std::size_t skipped = 0;
  for (;;) {
    const auto headEnd = data.find("\r\n\r\n");
    const std::size_t headSize = headEnd == std::string_view::npos ? data.size() : headEnd + 4;
    if (headSize > limits.maxHeaderBytes)
      return fail("header section too large: at most " + std::to_string(limits.maxHeaderBytes) + " bytes");
    if (headEnd == std::string_view::npos) return needMore(eof && !data.empty(), "the head");
    const auto lineEnd = data.find(kCrlf);
    int status = 0, minor = 1;
    if (!statusLine(data.substr(0, lineEnd), status, minor)) return fail("sent a malformed status line");
    out = HttpResponse{};
    out.status = status;
    const auto block = headEnd > lineEnd ? data.substr(lineEnd + 2, headEnd - lineEnd - 2) : std::string_view{};
    if (auto h = parseHeaderBlock(block, limits, out.headers); h.state == ParseState::Failed)
      return fail(h.error);
    if (status == 101) return fail("switched protocols (101): not an HTTP limiter answer");
    if (status < 200) {  // interim: the final answer follows
      data.remove_prefix(headEnd + 4);
      skipped += headEnd + 4;
      continue;
    }
    out.keepAlive = minor == 1 ? !connectionHas(out.headers, "close") : connectionHas(out.headers, "keep-alive");
    const bool noBody = headRequest || status == 204 || status == 304;
    auto body = readBody(data.substr(headEnd + 4), limits, eof, noBody, out);
    if (body.state != ParseState::Complete) return body;
    if (findHeader(out.headers, "transfer-encoding") != nullptr && minor == 0) out.keepAlive = false;
    std::erase_if(out.headers, [](const HttpHeader& h) {
      return equalsIgnoreCase(h.name, "content-length") || equalsIgnoreCase(h.name, "connection") ||
             equalsIgnoreCase(h.name, "transfer-encoding");
    });
    return {ParseState::Complete, skipped + headEnd + 4 + body.consumed, 0, {}};
  }
}

}  // namespace rl
