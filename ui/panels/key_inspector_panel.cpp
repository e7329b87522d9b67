#include "ui/panels/key_inspector_panel.hpp"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace rl::ui {

namespace {
constexpr int kColumnPttl = 2;
constexpr int kRolePttl = Qt::UserRole + 1;

QString pttlText(qint64 ms) {
  if (ms == -1) return QObject::tr("no TTL");
  if (ms < 0) return QObject::tr("gone");
  if (ms == 0) return QObject::tr("expired");
  return QObject::tr("%1 ms").arg(ms);
}

/// A ZSET score (us since the epoch) as a readable time.
QString asTimestamp(const QString& score) {
  bool ok = false;
  const double us = score.toDouble(&ok);
  if (!ok) return score;
  const auto t = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(us / 1000), Qt::UTC);
  return QStringLiteral("%1 (%2 us)").arg(t.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")), score);
}
}  // namespace

KeyInspectorPanel::KeyInspectorPanel(QWidget* parent)
    : QWidget(parent),
      prefix_(new QLineEdit(QStringLiteral("ratelab:"), this)),
      pattern_(new QLineEdit(this)),
      scan_(new QPushButton(tr("Scan (F5)"), this)),
      more_(new QPushButton(tr("Next page"), this)),
      delete_(new QPushButton(tr("Delete key"), this)),
      deleteAll_(new QPushButton(tr("Delete prefix"), this)),
      auto_(new QCheckBox(tr("auto-refresh"), this)),
      status_(new QLabel(this)),
      tree_(new QTreeWidget(this)),
      countdown_(new QTimer(this)),
      autoTimer_(new QTimer(this)) {
  prefix_->setObjectName(QStringLiteral("inspectorPrefix"));
  delete_->setObjectName(QStringLiteral("deleteKey"));
  more_->setObjectName(QStringLiteral("nextPage"));
  deleteAll_->setObjectName(QStringLiteral("deletePrefix"));
  pattern_->setPlaceholderText(tr("pattern within the prefix, e.g. {token_bucket:*"));
  auto_->setToolTip(tr("Rescan every second; switches off above %1 keys").arg(kAutoRefreshMaxKeys));
  more_->setEnabled(false);
  tree_->setColumnCount(4);
  tree_->setHeaderLabels({tr("key"), tr("type"), tr("PTTL"), tr("value")});
  tree_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Prefix"), this));
  row->addWidget(prefix_);
  row->addWidget(pattern_, 1);
  row->addWidget(scan_);
  row->addWidget(more_);
  auto* actions = new QHBoxLayout;
  actions->addWidget(auto_);
  actions->addWidget(status_, 1);
  actions->addWidget(delete_);
  actions->addWidget(deleteAll_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(row);
  layout->addWidget(tree_, 1);
  layout->addLayout(actions);

  confirm_ = [this](const QString& text) {
    return QMessageBox::question(this, tr("Delete keys"), text) == QMessageBox::Yes;
  };
  connect(scan_, &QPushButton::clicked, this, &KeyInspectorPanel::refresh);
  connect(pattern_, &QLineEdit::returnPressed, this, &KeyInspectorPanel::refresh);
  connect(more_, &QPushButton::clicked, this,
          [this] { emit scanRequested(prefix(), pattern_->text(), nextCursor_, kPageCount); });
  connect(delete_, &QPushButton::clicked, this, &KeyInspectorPanel::deleteSelected);
  connect(deleteAll_, &QPushButton::clicked, this, &KeyInspectorPanel::deleteAll);
  countdown_->setInterval(100);
  connect(countdown_, &QTimer::timeout, this, &KeyInspectorPanel::tickCountdown);
  autoTimer_->setInterval(1000);
  connect(autoTimer_, &QTimer::timeout, this, &KeyInspectorPanel::refresh);
  connect(auto_, &QCheckBox::toggled, this, [this](bool on) { on ? autoTimer_->start() : autoTimer_->stop(); });
}

QString KeyInspectorPanel::prefix() const {
  const QString p = prefix_->text().trimmed();
  return p.isEmpty() ? QStringLiteral("ratelab:") : p;
}

void KeyInspectorPanel::setPrefix(const QString& prefix) { prefix_->setText(prefix); }

int KeyInspectorPanel::keyCount() const { return tree_->topLevelItemCount(); }

QString KeyInspectorPanel::statusText() const { return status_->text(); }

void KeyInspectorPanel::refresh() {
  if (prefix_->text().trimmed().isEmpty()) {
    status_->setText(tr("The prefix is empty: allowed a non-empty prefix such as ratelab:"));
    return;
  }
  emit scanRequested(prefix(), pattern_->text(), 0, kPageCount);
}

void KeyInspectorPanel::showPage(const KeyPageResult& page) {
  if (page.firstPage) tree_->clear();
  for (const InspectedKey& k : page.keys) addKey(k);
  nextCursor_ = page.nextCursor;
  more_->setEnabled(page.nextCursor != 0);
  fetchedAt_ = QDateTime::currentDateTimeUtc();
  countdown_->start();
  QString text = tr("%1 keys under %2%3").arg(keyCount()).arg(prefix(), page.nextCursor ? tr(" (more pages)") : QString());
  if (auto_->isChecked() && keyCount() > kAutoRefreshMaxKeys) {
    auto_->setChecked(false);
    text += tr("; auto-refresh off above %1 keys").arg(kAutoRefreshMaxKeys);
  }
  status_->setText(text);
}

void KeyInspectorPanel::addKey(const InspectedKey& k) {
  auto* item = new QTreeWidgetItem(tree_);
  item->setText(0, k.name);
  item->setText(1, k.type);
  item->setData(kColumnPttl, kRolePttl, static_cast<qlonglong>(k.pttlMs));
  item->setText(kColumnPttl, pttlText(k.pttlMs));
  if (k.type == QLatin1String("string") && k.entries.isEmpty()) {
    item->setText(3, k.value);
  } else if (k.type == QLatin1String("zset")) {
    item->setText(3, tr("%1 entries").arg(k.size));
    for (const auto& [member, score] : k.entries) new QTreeWidgetItem(item, {member, QString(), QString(), asTimestamp(score)});
  } else {
    QStringList fields;
    for (const auto& [f, v] : k.entries) {
      fields << f + QLatin1Char('=') + v;
      new QTreeWidgetItem(item, {f, QString(), QString(), v});
    }
    item->setText(3, fields.join(QStringLiteral(", ")));
  }
}

void KeyInspectorPanel::tickCountdown() {
  const qint64 elapsed = fetchedAt_.msecsTo(QDateTime::currentDateTimeUtc());
  for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
    QTreeWidgetItem* item = tree_->topLevelItem(i);
    const qint64 pttl = item->data(kColumnPttl, kRolePttl).toLongLong();
    if (pttl < 0) continue;
    item->setText(kColumnPttl, pttlText(std::max<qint64>(0, pttl - elapsed)));
  }
}

void KeyInspectorPanel::deleteSelected() {
  QStringList keys;
  for (QTreeWidgetItem* item : tree_->selectedItems())
    if (!item->parent()) keys << item->text(0);
  if (keys.isEmpty()) {
    status_->setText(tr("Select a key to delete."));
    return;
  }
  if (!confirm_(tr("Delete %n key(s) under %1?", nullptr, static_cast<int>(keys.size())).arg(prefix()))) return;
  emit deleteRequested(prefix(), keys);
}

void KeyInspectorPanel::deleteAll() {
  if (prefix_->text().trimmed().isEmpty()) {
    status_->setText(tr("The prefix is empty: refusing to delete everything"));
    return;
  }
  if (!confirm_(tr("Delete every key under %1? Keys outside the prefix are never touched.").arg(prefix()))) return;
  emit deletePrefixRequested(prefix());
}

void KeyInspectorPanel::showDeleted(qint64 count) {
  status_->setText(tr("Deleted %1 keys.").arg(count));
  emit scanRequested(prefix(), pattern_->text(), 0, kPageCount);
}

}  // namespace rl::ui
