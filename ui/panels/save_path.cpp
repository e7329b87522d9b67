#include "ui/panels/save_path.hpp"

#include <QFileDialog>
#include <QFileInfo>

#include "report/html_report.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

QString withExtension(const QString& path, const QString& extension) {
  return QFileInfo(path).suffix().isEmpty() ? path + QLatin1Char('.') + extension : path;
}

QString askSavePath(QWidget* parent, const QString& title, const SaveAs& what, const QString& filter) {
  const QString path = QFileDialog::getSaveFileName(parent, title, qs(suggestedFileName(what.kind, what.extension)), filter);
  return path.isEmpty() ? path : withExtension(path, QString::fromLatin1(what.extension));
}

QString askReportPath(QWidget* parent, const QString& title, const char* kind) {
  return askSavePath(parent, title, {kind, "html"}, QObject::tr("HTML report (*.html *.htm)"));
}

}  // namespace rl::ui
