#pragma once
// Where a file export goes: every Save dialog of the window suggests a dated
// name ("ratelab-storm-20261207-110512.html") and adds the extension when the
// typed name has none. A name with another extension is kept as typed, so the
// writer can refuse it with its own message rather than silently correct it.

#include <QString>

class QWidget;

namespace rl::ui {

/// What is saved: `kind` names the file ("storm", "race", "tune"), `extension` ends it ("html", "csv").
struct SaveAs {
  const char* kind;
  const char* extension;
};

/// Asks for a path to save `what` to (`filter` as in QFileDialog); empty when cancelled.
QString askSavePath(QWidget* parent, const QString& title, const SaveAs& what, const QString& filter);
/// `path` with "." + `extension` added when it has no extension of its own.
QString withExtension(const QString& path, const QString& extension);
/// askSavePath for an HTML report.
QString askReportPath(QWidget* parent, const QString& title, const char* kind);

}  // namespace rl::ui
