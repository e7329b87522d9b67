#pragma once
// A response as a client reads it from ANY server (RFC 9112 section 6), where
// the front's strict parseResponse() takes only Content-Length:
//
//   - interim 1xx answers (100 Continue, 103 Early Hints) are skipped; 101 fails;
//   - HTTP/1.0 answers: kept alive only with `Connection: keep-alive`;
//   - bodies framed by `Transfer-Encoding: chunked` (chunk extensions ignored,
//     trailers read and dropped), by Content-Length, or by the close of the
//     connection (`eof`) when neither is sent; HEAD, 204 and 304 have none.
//
// Everything a hostile server sends is bounded: the head by maxHeaderBytes and
// maxHeaderCount, the decoded body by maxBodyBytes (checked before a chunk is
// waited for), a chunk-size line by 1 KiB, the trailers by maxHeaderBytes.
// Failures carry status 502 and an error starting with "upstream ".

#include <string_view>

#include "http/http_message.hpp"

namespace rl {

/// Parses one final response from the start of `data` (after any 1xx it skips; `consumed`
/// counts them too). `eof` says the server has closed: a close-delimited body ends there,
/// and an incomplete message fails instead of asking for more.
ParseOutcome parseClientResponse(std::string_view data, const HttpLimits& limits, bool headRequest, bool eof,
                                 HttpResponse& out);

}  // namespace rl
