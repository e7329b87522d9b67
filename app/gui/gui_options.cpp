#include "gui_options.hpp"

#include <QCommandLineParser>

#include "ui/presets.hpp"

namespace rl::gui {

namespace {
QString presetList() { return rl::ui::presetIds().join(QStringLiteral(", ")); }

// The options, in --help order.
struct Flags {
  QCommandLineOption preset{QStringLiteral("preset"), QStringLiteral("Load a demo: %1.").arg(presetList()), QStringLiteral("NAME")};
  QCommandLineOption scenario{QStringLiteral("scenario"), QStringLiteral("Load a scenario (JSON, the keys of ratelab-cli's flags)."), QStringLiteral("FILE")};
  QCommandLineOption autostart{QStringLiteral("autostart"), QStringLiteral("Start the storm once Redis is ready.")};
  QCommandLineOption screenshot{QStringLiteral("screenshot"), QStringLiteral("Save the window as PNG after the run, then exit."), QStringLiteral("PATH")};
  QCommandLineOption jsonOut{QStringLiteral("json-out"), QStringLiteral("Write the run document (ratelab-cli run --json's) to FILE when the run ends, then exit."), QStringLiteral("FILE")};
  QCommandLineOption reportOut{QStringLiteral("report-out"), QStringLiteral("Write the HTML report (File > Export report) to FILE.html when the run ends, then exit."), QStringLiteral("FILE")};
  QCommandLineOption exitAfter{QStringLiteral("exit-after-ms"), QStringLiteral("Exit after N ms at the latest (screenshot first if asked)."), QStringLiteral("N")};
  QCommandLineOption redis{QStringLiteral("redis"), QStringLiteral("redis://[user:password@]host:port[/db], redis+cluster://host:port[,host:port...], or cluster (a private 3 masters + 3 replicas Redis Cluster, removed on exit)."), QStringLiteral("URL")};
  QCommandLineOption passwordFile{QStringLiteral("redis-password-file"), QStringLiteral("The Redis password (first line) when the URL has none; else $REDISCLI_AUTH. The window never saves a password."), QStringLiteral("FILE")};
  QCommandLineOption maxFileMb{QStringLiteral("max-file-mb"), QStringLiteral("The largest scenario file read: 1 to 1024 MB (default 4)."), QStringLiteral("N")};
  QCommandLineOption clusterAnyNode{QStringLiteral("cluster-any-node"), QStringLiteral("Redis Cluster: connect (and send the password) to any node the cluster names; by default only to nodes announced by IP in the seeds' network (loopback, private or public).")};
  QCommandLineOption managed{QStringLiteral("managed-redis"), QStringLiteral("Always start a private redis-server (never use :6379).")};
  QCommandLineOption theme{QStringLiteral("theme"), QStringLiteral("Colour theme: light or dark."), QStringLiteral("THEME")};
  QCommandLineOption show{QStringLiteral("show"), QStringLiteral("Raise summary, race, inspector, tune, audit or history before the screenshot."), QStringLiteral("PANEL")};
  QCommandLineOption trace{QStringLiteral("trace"), QStringLiteral("Open an access log in the Tune panel and sweep it; with --autostart, replay the recommended quota in the lanes."), QStringLiteral("FILE")};
  QCommandLineOption audit{QStringLiteral("audit"), QStringLiteral("Open the HTTP audit on a foreign limiter's URL (its replicas' URLs, comma-separated); with --autostart, audit it: the lanes show its decisions beside the fingerprint's model."), QStringLiteral("URL")};
  QCommandLineOption size{QStringLiteral("size"), QStringLiteral("Window size for unattended runs (default 1500x950)."), QStringLiteral("WxH")};
  QCommandLineOption measure{QStringLiteral("measure"), QStringLiteral("Print the GUI heartbeat and lane refresh figures, then exit.")};

  void addTo(QCommandLineParser& p) const {
    p.setApplicationDescription(QStringLiteral("RateLab: a workbench for understanding and tuning rate limiters."));
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    p.addHelpOption();
    p.addVersionOption();
    p.addOptions({preset, scenario, autostart, screenshot, jsonOut, reportOut, exitAfter, redis, passwordFile, clusterAnyNode, maxFileMb, managed, theme, show, trace, audit, size, measure});
  }
};

bool parseInt(const QString& flag, const QString& text, int min, int max, int& out, QString& error) {
  bool ok = false;
  const int v = text.toInt(&ok);
  if (!ok || v < min || v > max) {
    error = QStringLiteral("%1 '%2' is invalid: allowed a whole number from %3 to %4").arg(flag, text).arg(min).arg(max);
    return false;
  }
  out = v;
  return true;
}

bool parseSize(const QString& text, GuiOptions& o, QString& error) {
  const QStringList parts = text.split(QLatin1Char('x'));
  if (parts.size() != 2) {
    error = QStringLiteral("--size '%1' is invalid: allowed WIDTHxHEIGHT, e.g. 1500x950").arg(text);
    return false;
  }
  return parseInt(QStringLiteral("--size width"), parts[0], 640, 8000, o.width, error) &&
         parseInt(QStringLiteral("--size height"), parts[1], 480, 8000, o.height, error);
}

// `value` must be one of `allowed`.
bool oneOf(const QString& flag, const QString& value, const QStringList& allowed, QString& error) {
  if (allowed.contains(value)) return true;
  error = QStringLiteral("%1 '%2' is unknown: allowed %3").arg(flag, value, allowed.join(QStringLiteral(", ")));
  return false;
}

bool readValues(const QCommandLineParser& p, const Flags& f, GuiOptions& o, QString& error) {
  o.autostart = p.isSet(f.autostart);
  o.managedRedis = p.isSet(f.managed);
  o.clusterAnyNode = p.isSet(f.clusterAnyNode);
  o.measure = p.isSet(f.measure);
  o.scenario = p.value(f.scenario);
  o.screenshot = p.value(f.screenshot);
  o.jsonOut = p.value(f.jsonOut);
  o.reportOut = p.value(f.reportOut);
  o.redisUrl = p.value(f.redis);
  o.preset = p.value(f.preset);
  o.theme = p.value(f.theme);
  o.dock = p.value(f.show);
  o.trace = p.value(f.trace);
  o.audit = p.value(f.audit);
  o.redisPasswordFile = p.value(f.passwordFile);
  o.maxFileMb = p.value(f.maxFileMb);
  if (p.isSet(f.exitAfter) && !parseInt(QStringLiteral("--exit-after-ms"), p.value(f.exitAfter), 1, 86'400'000, o.exitAfterMs, error))
    return false;
  if (p.isSet(f.size) && !parseSize(p.value(f.size), o, error)) return false;
  if (p.isSet(f.preset) && !oneOf(QStringLiteral("--preset"), o.preset, rl::ui::presetIds(), error)) return false;
  if (p.isSet(f.show) && !oneOf(QStringLiteral("--show"), o.dock, {QStringLiteral("summary"), QStringLiteral("race"), QStringLiteral("inspector"), QStringLiteral("tune"), QStringLiteral("audit"), QStringLiteral("history")}, error))
    return false;
  if (p.isSet(f.theme) && !oneOf(QStringLiteral("--theme"), o.theme, {QStringLiteral("light"), QStringLiteral("dark")}, error))
    return false;
  return true;
}
}  // namespace

QString guiUsage() {
  QCommandLineParser p;
  Flags().addTo(p);
  // Before QApplication exists Qt cannot name the program: it is always `ratelab`.
  return p.helpText().replace(QStringLiteral("<executable_name>"), QStringLiteral("ratelab"));
}

ParsedOptions parseGuiOptions(const QStringList& args) {
  ParsedOptions out;
  QCommandLineParser p;
  const Flags f;
  f.addTo(p);
  QStringList argv = args;
  if (argv.isEmpty() || argv[0].startsWith(QLatin1Char('-'))) argv.prepend(QStringLiteral("ratelab"));
  if (!p.parse(argv)) {
    out.error = p.errorText() + QStringLiteral(" (see --help)");
    return out;
  }
  if (p.isSet(QStringLiteral("help"))) {
    out.help = true;
    return out;
  }
  if (p.isSet(QStringLiteral("version"))) {
    out.version = true;
    return out;
  }
  if (!p.positionalArguments().isEmpty()) {
    out.error = QStringLiteral("unexpected argument '%1': allowed options only (see --help)").arg(p.positionalArguments().first());
    return out;
  }
  GuiOptions o;
  if (!readValues(p, f, o, out.error)) return out;
  if (!o.scenario.isEmpty() && !o.preset.isEmpty()) {
    out.error = QStringLiteral("--scenario and --preset both given: allowed one of them");
    return out;
  }
  if (!o.audit.isEmpty() && !o.trace.isEmpty()) {
    out.error = QStringLiteral("--audit and --trace both given: allowed one of them");
    return out;
  }
  if (!o.redisUrl.isEmpty() && o.managedRedis) {
    out.error = QStringLiteral("--redis and --managed-redis both given: allowed one of them");
    return out;
  }
  out.options = o;
  return out;
}

}  // namespace rl::gui
