#pragma once
// The command line of `ratelab` (the window), read with QCommandLineParser
// before any display is needed, so --help and --version work headless. Bad
// input gives one line naming the flag and what is allowed, and exit code 2.

#include <QString>
#include <QStringList>
#include <optional>

namespace rl::gui {

/// Everything the command line can say.
struct GuiOptions {
  QString scenario;          ///< --scenario FILE
  QString preset;            ///< --preset NAME
  bool autostart = false;    ///< --autostart: start the storm once Redis is ready
  QString screenshot;        ///< --screenshot PATH: save the window after the run
  QString jsonOut;           ///< --json-out FILE: write the run document after the run
  QString reportOut;         ///< --report-out FILE.html: write the HTML report after the run
  int exitAfterMs = 0;       ///< --exit-after-ms N: exit after N ms at most (0 = never)
  QString redisUrl;          ///< --redis URL
  QString redisPasswordFile; ///< --redis-password-file FILE (the password's first line)
  QString maxFileMb;         ///< --max-file-mb N (checked when applied)
  bool clusterAnyNode = false; ///< --cluster-any-node: follow any node a Redis Cluster names (default: the seeds' network)
  bool managedRedis = false; ///< --managed-redis: always a private redis-server (never probe :6379)
  QString theme;             ///< --theme light|dark
  QString dock;              ///< --show summary|race|inspector|tune: raise that panel for the screenshot
  QString trace;             ///< --trace FILE: open in the Tune panel and sweep; --autostart replays the recommendation
  QString audit;             ///< --audit URL[,URL...]: the HTTP audit panel's target; --autostart audits it
  bool measure = false;      ///< --measure: heartbeat and refresh figures, printed, then exit
  int width = 1500;          ///< --size WxH
  int height = 950;          ///< --size WxH
};

/// Parsed options, or the one-line error (exit 2). `help` is set for --help.
struct ParsedOptions {
  std::optional<GuiOptions> options;  ///< set when valid
  QString error;                      ///< set when invalid
  bool help = false;                  ///< --help was given
  bool version = false;               ///< --version was given
};

/// Parses `args` (argv without the program name is fine, with it too).
ParsedOptions parseGuiOptions(const QStringList& args);

/// The --help text.
QString guiUsage();

}  // namespace rl::gui
