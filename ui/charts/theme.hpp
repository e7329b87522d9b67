#pragma once
// Light and dark themes: a Fusion palette for the widgets and the matching
// Qt Charts theme, plus the fixed series colours every chart uses.

#include <QChart>
#include <QColor>
#include <QString>

class QApplication;

namespace rl::ui {

/// The two themes of the window.
enum class Theme { Light, Dark };

/// "light" / "dark".
QString themeName(Theme t);
/// Parses "light" / "dark" (anything else is light).
Theme parseTheme(const QString& name);
/// Sets the Fusion style and the palette of `t` on the application.
void applyTheme(QApplication& app, Theme t);
/// The Qt Charts theme that matches `t`.
QChart::ChartTheme chartTheme(Theme t);

/// Series colours, readable on both themes.
struct Palette {
  static QColor admitted() { return QColor(0x2e, 0xa0, 0x43); }   ///< green
  static QColor denied() { return QColor(0xd7, 0x3a, 0x49); }     ///< red
  static QColor limit() { return QColor(0xf0, 0x8c, 0x00); }      ///< orange
  static QColor overLimit() { return QColor(0xd7, 0x3a, 0x49, 70); }  ///< translucent red
  static QColor mark() { return QColor(0x3b, 0x82, 0xf6); }       ///< blue (tuning marks)
  static QColor failOpen() { return QColor(0xa8, 0x55, 0xf7, 110); }  ///< translucent purple (admitted by fail-open)
  static QColor noMaster() { return QColor(0x3b, 0x2f, 0x63, 45); }   ///< translucent indigo (a failover: no master)
  static QColor failClosed() { return QColor(0x6b, 0x72, 0x80); }     ///< grey, hatched (denied by fail-closed)
  /// A distinct colour per algorithm lane (level and TTL charts).
  static QColor lane(int index);
};

}  // namespace rl::ui
