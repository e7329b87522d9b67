#include "ui/charts/theme.hpp"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>
#include <array>

namespace rl::ui {

QString themeName(Theme t) { return t == Theme::Dark ? QStringLiteral("dark") : QStringLiteral("light"); }

Theme parseTheme(const QString& name) { return name == QLatin1String("dark") ? Theme::Dark : Theme::Light; }

namespace {
QPalette darkPalette() {
  QPalette p;
  const QColor window(0x2b, 0x2d, 0x31), base(0x1f, 0x21, 0x24), text(0xe6, 0xe6, 0xe6);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Link, QColor(0x6c, 0xa8, 0xff));
  p.setColor(QPalette::Highlight, QColor(0x3b, 0x82, 0xf6));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
  p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
  return p;
}
}  // namespace

void applyTheme(QApplication& app, Theme t) {
  app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  app.setPalette(t == Theme::Dark ? darkPalette() : app.style()->standardPalette());
}

QChart::ChartTheme chartTheme(Theme t) {
  return t == Theme::Dark ? QChart::ChartThemeDark : QChart::ChartThemeLight;
}

QColor Palette::lane(int index) {
  static const std::array<QColor, 6> colours = {
      QColor(0x3b, 0x82, 0xf6), QColor(0x2e, 0xa0, 0x43), QColor(0xa8, 0x55, 0xf7),
      QColor(0xf0, 0x8c, 0x00), QColor(0x14, 0xb8, 0xa6), QColor(0xe1, 0x1d, 0x74)};
  return colours[static_cast<std::size_t>(index) % colours.size()];
}

}  // namespace rl::ui
