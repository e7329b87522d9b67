// ratelab: the RateLab window. Wiring only: parse the command line, build the
// controller and the window, choose Redis, and hand unattended runs
// (--autostart/--screenshot/--exit-after-ms, --measure) to rl_ui.

#include <QApplication>
#include <QSettings>
#include <QTextStream>

#include "gui_options.hpp"
#include "common/file_read.hpp"
#include "redis/managed_redis_server.hpp"
#include "redis/redis_url.hpp"
#include "ui/demo_run.hpp"
#include "ui/gui_measurement.hpp"
#include "ui/main_window.hpp"
#include "ui/workers/worker_controller.hpp"
#include "ui/qt_text.hpp"

namespace {
constexpr int kExitBadInput = 2;

// --redis, else (an interactive start) the Redis the window used last, else the embedded default.
void chooseRedis(rl::ui::WorkerController& controller, const rl::gui::GuiOptions& o, const QString& savedUrl) {
  if (!o.redisUrl.isEmpty()) {
    controller.connectRedis(o.redisUrl);
    return;
  }
  if (!savedUrl.isEmpty() && !o.managedRedis && !o.measure) {
    controller.useSavedRedis(savedUrl);
    return;
  }
  if (o.managedRedis || o.measure) {
    controller.startServer();
    return;
  }
  controller.useEmbeddedRedis(6379);
}
}  // namespace

int main(int argc, char** argv) {
  // The command line is read before QApplication exists: --help, --version and
  // bad flags need no display.
  QStringList args;
  for (int i = 0; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
  const auto parsed = rl::gui::parseGuiOptions(args);
  if (parsed.help) {
    QTextStream(stdout) << rl::gui::guiUsage();
    return 0;
  }
  if (parsed.version) {
    QTextStream(stdout) << "ratelab " << RATELAB_VERSION << '\n';
    return 0;
  }
  if (!parsed.options) {
    QTextStream(stderr) << "ratelab: " << parsed.error << '\n';
    return kExitBadInput;
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("RateLab"));
  QApplication::setApplicationName(QStringLiteral("ratelab"));
  QApplication::setApplicationVersion(QStringLiteral(RATELAB_VERSION));
  const rl::gui::GuiOptions& o = *parsed.options;
  if (!o.maxFileMb.isEmpty()) {
    if (auto ok = rl::setMaxFileMbText(o.maxFileMb.toStdString()); !ok) {
      QTextStream(stderr) << "ratelab: " << rl::ui::qs(ok.error().message) << '\n';
      return kExitBadInput;
    }
  }
  rl::setRedisPasswordFile(o.redisPasswordFile.toStdString());
  rl::setClusterAnyNode(o.clusterAnyNode);
  rl::installServerSignalCleanup();

  rl::ui::WorkerController controller;
  rl::ui::MainWindow window(controller);
  const bool unattended = o.autostart || !o.screenshot.isEmpty() || !o.jsonOut.isEmpty() || !o.reportOut.isEmpty() || o.exitAfterMs > 0 || o.measure || !o.trace.isEmpty() || !o.audit.isEmpty();
  if (!unattended) window.restoreSettings(QSettings());
  if (!o.theme.isEmpty() || unattended) window.setTheme(rl::ui::parseTheme(o.theme));
  if (unattended) window.resize(o.width, o.height);
  const rl::ui::Preset* preset = o.preset.isEmpty() ? nullptr : rl::ui::findPreset(o.preset);
  if (preset) window.applyPreset(*preset);
  if (!o.scenario.isEmpty()) {
    if (auto ok = window.loadScenario(o.scenario); !ok) {
      QTextStream(stderr) << "ratelab: --scenario: " << rl::ui::qs(ok.error().message) << '\n';
      return kExitBadInput;
    }
  }
  chooseRedis(controller, o, unattended ? QString() : QSettings().value(QStringLiteral("redis/url")).toString());
  window.show();

  if (o.measure) {
    auto* m = new rl::ui::GuiMeasurement(window, controller, &app);
    if (!o.redisUrl.isEmpty()) m->setRedisUrl(o.redisUrl);  // as given: the status shows it without the password
    QObject::connect(m, &rl::ui::GuiMeasurement::done, &app, [](const QString& report, int code) {
      QTextStream(stdout) << report;
      QApplication::exit(code);
    });
    m->start();
    return QApplication::exec();
  }
  if (unattended) {
    rl::ui::DemoRunOptions d{o.autostart, preset && preset->runRace, o.screenshot, o.exitAfterMs, o.dock, o.trace, o.jsonOut, o.reportOut, o.audit};
    auto* run = new rl::ui::DemoRun(window, controller, d, &app);
    QObject::connect(run, &rl::ui::DemoRun::done, &app, [](int code) { QApplication::exit(code); });
    run->start();
  }
  return QApplication::exec();
}
