#include "gui_options.hpp"

#include "ui/presets.hpp"

namespace rl::gui {

namespace {
bool takeValue(const QStringList& args, int& i, QString& out, QString& error) {
  if (i + 1 >= args.size() || args[i + 1].startsWith(QLatin1String("--"))) {
    error = QStringLiteral("%1 needs a value").arg(args[i]);
    return false;
  }
  out = args[++i];
  return true;
}

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

bool parseOne(const QStringList& args, int& i, GuiOptions& o, QString& error) {
  const QString& a = args[i];
  QString v;
  if (a == QLatin1String("--autostart")) return o.autostart = true;
  if (a == QLatin1String("--managed-redis")) return o.managedRedis = true;
  if (a == QLatin1String("--measure")) return o.measure = true;
  if (a == QLatin1String("--scenario")) return takeValue(args, i, o.scenario, error);
  if (a == QLatin1String("--screenshot")) return takeValue(args, i, o.screenshot, error);
  if (a == QLatin1String("--redis")) return takeValue(args, i, o.redisUrl, error);
  if (a == QLatin1String("--redis-password-file")) return takeValue(args, i, o.redisPasswordFile, error);
  if (a == QLatin1String("--max-file-mb")) return takeValue(args, i, o.maxFileMb, error);
  if (a == QLatin1String("--exit-after-ms"))
    return takeValue(args, i, v, error) && parseInt(a, v, 1, 86'400'000, o.exitAfterMs, error);
  if (a == QLatin1String("--size")) return takeValue(args, i, v, error) && parseSize(v, o, error);
  if (a == QLatin1String("--preset")) {
    if (!takeValue(args, i, o.preset, error)) return false;
    if (rl::ui::findPreset(o.preset)) return true;
    error = QStringLiteral("--preset '%1' is unknown: allowed %2").arg(o.preset, rl::ui::presetIds().join(QStringLiteral(", ")));
    return false;
  }
  if (a == QLatin1String("--show")) {
    if (!takeValue(args, i, o.dock, error)) return false;
    if (o.dock == QLatin1String("summary") || o.dock == QLatin1String("race") || o.dock == QLatin1String("inspector")) return true;
    error = QStringLiteral("--show '%1' is unknown: allowed summary, race, inspector").arg(o.dock);
    return false;
  }
  if (a == QLatin1String("--theme")) {
    if (!takeValue(args, i, o.theme, error)) return false;
    if (o.theme == QLatin1String("light") || o.theme == QLatin1String("dark")) return true;
    error = QStringLiteral("--theme '%1' is unknown: allowed light, dark").arg(o.theme);
    return false;
  }
  error = QStringLiteral("unknown option '%1' (see --help)").arg(a);
  return false;
}
}  // namespace

QString guiUsage() {
  return QStringLiteral(
             "usage: ratelab [options]\n"
             "\n"
             "  --preset NAME        load a demo: %1\n"
             "  --scenario FILE      load a scenario (JSON, the keys of ratelab-cli's flags)\n"
             "  --autostart          start the storm once Redis is ready\n"
             "  --screenshot PATH    save the window as PNG after the run, then exit\n"
             "  --exit-after-ms N    exit after N ms at the latest (screenshot first if asked)\n"
             "  --redis URL          redis://[user:password@]host:port[/db]\n"
             "  --redis-password-file FILE  the password (first line) when the URL has none;\n"
             "                       else $REDISCLI_AUTH. The window never saves a password\n"
             "  --max-file-mb N      the largest scenario file read: 1 to 1024 MB (default 4)\n"
             "  --managed-redis      always start a private redis-server (never use :6379)\n"
             "  --theme light|dark   colour theme\n"
             "  --show PANEL         raise summary, race or inspector before the screenshot\n"
             "  --size WxH           window size (default 1500x950)\n"
             "  --measure            print the GUI heartbeat and lane refresh figures, then exit\n")
      .arg(rl::ui::presetIds().join(QStringLiteral(", ")));
}

ParsedOptions parseGuiOptions(const QStringList& args) {
  ParsedOptions out;
  GuiOptions o;
  for (int i = args.isEmpty() || args[0].startsWith(QLatin1String("--")) ? 0 : 1; i < args.size(); ++i) {
    if (args[i] == QLatin1String("--help") || args[i] == QLatin1String("-h")) {
      out.help = true;
      return out;
    }
    if (!parseOne(args, i, o, out.error)) return out;
  }
  if (!o.scenario.isEmpty() && !o.preset.isEmpty()) {
    out.error = QStringLiteral("--scenario and --preset both given: allowed one of them");
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
