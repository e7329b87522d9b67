#pragma once
// NginxLimitReq: Debian's nginx (/usr/sbin/nginx) as a real limit_req target for
// tests, from the config template the scripts use (resources/nginx/nginx.conf.in):
// an unprivileged child (one process, `master_process off`; as nobody via
// setpriv when the test runs as root) on a free
// loopback port, with its config, pid, error log and temp paths in a temp dir.
// `location /` serves a static file behind
//   limit_req_zone $binary_remote_addr zone=z:1m rate=<rate>;
//   limit_req zone=z burst=<burst> nodelay; limit_req_status 429;
// (a `return` would answer before limit_req runs), plus `locationExtra` (e.g.
// `add_header X-Status $limit_req_status always;`). Or any directives: the
// `http` ones (limit_req_zone) and the `location` ones (limit_req,
// limit_req_status), as `explain --to nginx` emits them. With `tls`, it listens
// with ssl on a self-signed certificate for 127.0.0.1 that the openssl CLI makes
// in the temp dir (certFile()). Stopped on destruction.

#include <QtTest>

#include <QFile>
#include <QProcess>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <unistd.h>

#include "process/loopback_port.hpp"

namespace rl::test {

/// A running nginx with one limit_req zone; check ok().
class NginxLimitReq {
 public:
  /// Directives for the `http { }` block and for `location / { }`.
  struct Directives {
    QString http;      ///< limit_req_zone ...;
    QString location;  ///< limit_req ...; limit_req_status ...;
    bool tls = false;  ///< listen with ssl (a self-signed certificate, certFile())
  };
  /// `rate` as nginx writes it ("10r/s", "7r/m").
  NginxLimitReq(const QString& rate, int burst, bool nodelay = true, const QString& locationExtra = {}, bool tls = false)
      : NginxLimitReq(Directives{"limit_req_zone $binary_remote_addr zone=z:1m rate=" + rate + ";",
                                 QString("limit_req zone=z burst=%1%2; limit_req_status 429; %3")
                                     .arg(burst)
                                     .arg(nodelay ? " nodelay" : "", locationExtra),
                                 tls}) {}
  /// nginx with these directives (as `explain --to nginx` prints them).
  explicit NginxLimitReq(const Directives& directives) : tls_(directives.tls) {
    if (!QFile::exists("/usr/sbin/nginx")) {
      error_ = "nginx is not installed (Debian nginx-light, see scripts/install-deps.sh)";
      return;
    }
    const auto free = rl::freePort();
    if (!free) {
      error_ = QString::fromStdString(free.error().message);
      return;
    }
    port_ = *free;
    const QString d = dir_.path();
    QDir().mkpath(d + "/www");
    QFile index(d + "/www/index.html");
    index.open(QIODevice::WriteOnly);
    index.write("ok\n");
    index.close();
    QString listenExtra;
    if (tls_) {
      QProcess openssl;  // a self-signed certificate for the loopback address, valid one day
      openssl.start("openssl", {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", d + "/key.pem", "-out", certFile()});
      if (!openssl.waitForFinished(30'000) || openssl.exitCode() != 0) {
        error_ = "openssl req failed: " + QString::fromUtf8(openssl.readAllStandardError());
        port_ = 0;
        return;
      }
      QFile::setPermissions(d + "/key.pem", QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther);  // nginx may run as nobody
      listenExtra = QString(" ssl;\n    ssl_certificate %1;\n    ssl_certificate_key %2/key.pem").arg(certFile(), d);
    }
    QFile templ(RATELAB_SOURCE_DIR "/resources/nginx/nginx.conf.in");  // the scripts' config too
    if (!templ.open(QIODevice::ReadOnly)) {
      error_ = "cannot read " + templ.fileName();
      port_ = 0;
      return;
    }
    QString text = QString::fromUtf8(templ.readAll());
    text.replace("@DIR@", d)
        .replace("@PORT@", QString::number(port_))
        .replace("@LISTEN@", listenExtra)
        .replace("@HTTP@", directives.http)
        .replace("@LOCATION@", directives.location);
    QFile conf(d + "/nginx.conf");
    conf.open(QIODevice::WriteOnly);
    conf.write(text.toUtf8());
    conf.close();
    const QStringList args{"-p", d, "-c", d + "/nginx.conf", "-e", d + "/error.log"};
    if (::geteuid() == 0) {  // as root: run nginx as nobody (the dir must be theirs)
      QFile::setPermissions(d, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadOther |
                                   QFile::WriteOther | QFile::ExeOther);
      process_.start("/usr/bin/setpriv", QStringList{"--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                                     "/usr/sbin/nginx"} + args);
    } else {
      process_.start("/usr/sbin/nginx", args);
    }
    for (int i = 0; i < 100; ++i) {  // up to 5 s until it accepts connections
      QTcpSocket s;
      s.connectToHost(QHostAddress::LocalHost, static_cast<quint16>(port_));
      if (s.waitForConnected(50)) return;
      if (process_.state() == QProcess::NotRunning) break;
      QTest::qWait(50);
    }
    QFile log(d + "/error.log");
    log.open(QIODevice::ReadOnly);
    error_ = "nginx did not start: " + QString::fromUtf8(log.readAll()) + QString::fromUtf8(process_.readAllStandardError());
    port_ = 0;
  }
  ~NginxLimitReq() {
    process_.terminate();  // SIGTERM: fast shutdown
    if (!process_.waitForFinished(3000)) process_.kill();
    process_.waitForFinished(1000);
  }
  /// True when nginx runs and accepts connections.
  bool ok() const { return port_ != 0; }
  /// Why it did not start.
  const QString& error() const { return error_; }
  /// `http://127.0.0.1:<port>/`.
  QString url() const { return QString(tls_ ? "https://127.0.0.1:%1/" : "http://127.0.0.1:%1/").arg(port_); }
  /// The self-signed certificate (PEM) of a tls nginx.
  QString certFile() const { return dir_.path() + "/cert.pem"; }

 private:
  QTemporaryDir dir_;   ///< config, pid, log, temp paths
  QProcess process_;    ///< the nginx child
  int port_ = 0;        ///< listen port, 0 when not running
  QString error_;       ///< start failure
  bool tls_ = false;    ///< listens with ssl
};

}  // namespace rl::test
