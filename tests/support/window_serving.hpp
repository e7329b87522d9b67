#pragma once
// "Serve over HTTP" in the window, for the window's tests: click the button
// with a front, read the front URL from servingChanged, and ask it as a client.

#include <QtTest>

#include <QComboBox>
#include <string>

#include "http/http_client.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/workers/worker_controller.hpp"

namespace rl::test {

/// What the serving tests serve: token_bucket, capacity 5, refill 0.01/s (none
/// during a test), two replicas, on `backend`.
inline StormSpec servedBucket(Backend backend) {
  StormSpec spec;
  spec.algorithms = {Algorithm::TokenBucket};
  spec.backend = backend;
  spec.quota = Quota::perWindow(5, kSecond).withRefill(0.01);
  spec.replicas = 2;
  spec.requests = 1;
  return spec;
}

/// Clicks "Serve over HTTP" with `front` (builtin, nginx, none); the front URL, "" when it did not start.
inline QString serveFromWindow(ui::MainWindow& window, ui::WorkerController& controller, const QString& front) {
  auto* box = window.stormPanel()->findChild<QComboBox*>(QStringLiteral("serveFront"));
  if (!box) return {};
  box->setCurrentText(front);
  QSignalSpy serving(&controller, &ui::WorkerController::servingChanged);
  QTest::mouseClick(window.stormPanel()->serveButton(), Qt::LeftButton);
  if (!serving.wait(10'000) || !serving.front().at(0).toBool()) return {};
  return serving.front().at(1).toString();
}

/// GET /ping as client `key` (x-api-key): the HTTP status, or -1 when no answer came.
inline int pingAs(HttpClient& client, const std::string& key) {
  HttpRequest request;
  request.method = "GET";
  request.target = "/ping";
  request.headers.push_back({"x-api-key", key});
  auto response = client.send(request);
  return response ? response->status : -1;
}

}  // namespace rl::test
