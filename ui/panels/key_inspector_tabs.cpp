// The inspector's Audit and Live tabs and the worker they share, on a thread
// of the WorkerController (see key_inspector_panel.hpp).
#include <QLineEdit>
#include <QTabWidget>

#include "ui/panels/key_audit_view.hpp"
#include "ui/panels/key_inspector_panel.hpp"
#include "ui/panels/key_live_view.hpp"
#include "ui/workers/key_audit_worker.hpp"
#include "ui/workers/worker_controller.hpp"

namespace rl::ui {

QWidget* KeyInspectorPanel::buildTabs(QWidget* keys, WorkerController& workers) {
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("inspectorTabs"));
  audit_ = new KeyAuditView(tabs_);
  live_ = new KeyLiveView(tabs_);
  tabs_->addTab(keys, tr("Keys"));
  tabs_->addTab(audit_, tr("Audit"));
  tabs_->addTab(live_, tr("Live"));
  auditWorker_ = new KeyAuditWorker;
  connect(audit_, &KeyAuditView::auditRequested, this, [this] {
    if (server_.isEmpty()) return audit_->showError(tr("No Redis yet: connect first."));
    audit_->setSource(server_, scanPrefix());
    QMetaObject::invokeMethod(auditWorker_, [w = auditWorker_, url = server_, p = scanPrefix(), a = assume_->text()] {
      w->audit(url, p, a);
    });
  });
  connect(live_, &KeyLiveView::sampleRequested, this, [this](const QStringList& names, qint64 origin) {
    if (server_.isEmpty()) return live_->showError(tr("No Redis yet: connect first."));
    QMetaObject::invokeMethod(auditWorker_, [w = auditWorker_, url = server_, names, a = assume_->text(), origin] {
      w->sample(url, names, a, origin);
    });
  });
  connect(auditWorker_, &KeyAuditWorker::auditReady, audit_, &KeyAuditView::showReport);
  connect(auditWorker_, &KeyAuditWorker::sampled, live_, &KeyLiveView::addSample);
  connect(auditWorker_, &KeyAuditWorker::errorOccurred, this, [this](const QString& m) {
    audit_->showError(m);
    live_->showError(m);
  });
  workers.adopt(auditWorker_, QStringLiteral("ratelab-key-audit"), [w = auditWorker_] { w->cancel(); });
  return tabs_;
}

}  // namespace rl::ui
