#include "ui/panels/key_inspector_panel.hpp"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTextEdit>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace rl::ui {

namespace {
constexpr int kColumnPttl = 2;
constexpr int kColumnLibrary = 3;
constexpr int kColumnNode = 4;  ///< cluster only (hidden on one server), like kColumnSlot
constexpr int kColumnSlot = 5;
constexpr int kColumnValue = 6;
constexpr int kRolePttl = Qt::UserRole + 1;
constexpr int kRoleDetail = Qt::UserRole + 2;

/// The detail pane's text of one key: the reading in words, then the raw value.
QString detailOf(const InspectedKey& k, const QString& raw) {
  QString out;
  if (!k.library.isEmpty()) {
    out += QObject::tr("%1 · %2\n%3\n").arg(k.library, k.algorithm, k.explained);
    const auto known = [](qint64 v) { return v < 0 ? QObject::tr("unknown") : QString::number(v); };
    out += QObject::tr("limit %1 · used %2 · reset in %3\n")
               .arg(known(k.limit), known(k.used), k.resetMs < 0 ? QObject::tr("unknown") : QObject::tr("%1 ms").arg(k.resetMs));
  } else {
    out += QObject::tr("Not a limiter key RateLab recognises: shown as Redis holds it.\n");
  }
  return out + QObject::tr("\nRaw (%1, PTTL %2 ms):\n%3").arg(k.type).arg(k.pttlMs).arg(raw);
}

QString pttlText(qint64 ms) {
  if (ms == -1) return QObject::tr("no TTL");
  if (ms < 0) return QObject::tr("gone");
  if (ms == 0) return QObject::tr("expired");
  return QObject::tr("%1 ms").arg(ms);
}

/// A row under a key: a hash field, ZSET member or list entry and its value.
void childRow(QTreeWidgetItem* parent, const QString& name, const QString& value) {
  auto* row = new QTreeWidgetItem(parent);
  row->setText(0, name);
  row->setText(kColumnValue, value);
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
      assume_(new QLineEdit(this)),
      detail_(new QTextEdit(this)),
      scan_(new QPushButton(tr("Scan (F5)"), this)),
      more_(new QPushButton(tr("Next page"), this)),
      delete_(new QPushButton(tr("Delete key"), this)),
      deleteAll_(new QPushButton(tr("Delete prefix"), this)),
      auto_(new QCheckBox(tr("auto-refresh"), this)),
      status_(new QLabel(this)),
      masters_(new QLabel(this)),
      tree_(new QTreeWidget(this)),
      countdown_(new QTimer(this)),
      autoTimer_(new QTimer(this)) {
  prefix_->setObjectName(QStringLiteral("inspectorPrefix"));
  delete_->setObjectName(QStringLiteral("deleteKey"));
  more_->setObjectName(QStringLiteral("nextPage"));
  deleteAll_->setObjectName(QStringLiteral("deletePrefix"));
  pattern_->setPlaceholderText(tr("pattern within the prefix, e.g. {token_bucket:*"));
  assume_->setObjectName(QStringLiteral("inspectorAssume"));
  assume_->setPlaceholderText(tr("assume: rate=10/s burst=20 limit=10"));
  assume_->setToolTip(tr("What keys do not hold: GCRA rate and burst (go-redis/redis_rate), a counter's limit "
                         "(rate-limiter-flexible, rate-limit-redis), a bucket's capacity and refill (RateLab)"));
  detail_->setObjectName(QStringLiteral("inspectorDetail"));
  detail_->setReadOnly(true);
  detail_->setPlaceholderText(tr("Select a key: what it means, then its raw value."));
  auto_->setToolTip(tr("Rescan every second; switches off above %1 keys").arg(kAutoRefreshMaxKeys));
  more_->setEnabled(false);
  masters_->setObjectName(QStringLiteral("inspectorMasters"));
  masters_->setWordWrap(true);
  masters_->setToolTip(tr("Keys listed per cluster master (host:port); a client's keys share one hash slot, so one master"));
  masters_->hide();
  tree_->setColumnCount(7);
  tree_->setHeaderLabels({tr("key"), tr("type"), tr("PTTL"), tr("Library"), tr("node"), tr("slot"), tr("value")});
  tree_->headerItem()->setToolTip(kColumnNode, tr("Redis Cluster: the master holding the key"));
  tree_->headerItem()->setToolTip(kColumnSlot, tr("Redis Cluster: the key's hash slot (CRC16 of its {hash tag} mod 16384)"));
  tree_->setColumnHidden(kColumnNode, true);
  tree_->setColumnHidden(kColumnSlot, true);
  tree_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  tree_->header()->setSectionResizeMode(kColumnNode, QHeaderView::ResizeToContents);
  tree_->header()->setSectionResizeMode(kColumnSlot, QHeaderView::ResizeToContents);
  tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Prefix"), this));
  row->addWidget(prefix_);
  row->addWidget(pattern_, 1);
  row->addWidget(assume_, 1);
  row->addWidget(scan_);
  row->addWidget(more_);
  auto* actions = new QHBoxLayout;
  actions->addWidget(auto_);
  actions->addWidget(status_, 1);
  actions->addWidget(delete_);
  actions->addWidget(deleteAll_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(row);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(tree_);
  split->addWidget(detail_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);
  layout->addWidget(masters_);
  layout->addLayout(actions);

  confirm_ = [this](const QString& text) {
    return QMessageBox::question(this, tr("Delete keys"), text) == QMessageBox::Yes;
  };
  connect(scan_, &QPushButton::clicked, this, &KeyInspectorPanel::refresh);
  connect(pattern_, &QLineEdit::returnPressed, this, &KeyInspectorPanel::refresh);
  connect(assume_, &QLineEdit::returnPressed, this, &KeyInspectorPanel::refresh);
  connect(tree_, &QTreeWidget::itemSelectionChanged, this, &KeyInspectorPanel::showDetail);
  connect(more_, &QPushButton::clicked, this,
          [this] { emit scanRequested(prefix(), pattern_->text(), nextCursor_, kPageCount, assume_->text()); });
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

QString KeyInspectorPanel::mastersText() const { return masters_->isHidden() ? QString() : masters_->text(); }

void KeyInspectorPanel::refresh() {
  if (prefix_->text().trimmed().isEmpty()) {
    status_->setText(tr("The prefix is empty: allowed a non-empty prefix such as ratelab:"));
    return;
  }
  emit scanRequested(prefix(), pattern_->text(), 0, kPageCount, assume_->text());
}

QString KeyInspectorPanel::detailText() const { return detail_->toPlainText(); }

void KeyInspectorPanel::showDetail() {
  const auto selected = tree_->selectedItems();
  QTreeWidgetItem* item = selected.isEmpty() ? nullptr : selected.front();
  while (item && item->parent()) item = item->parent();
  detail_->setPlainText(item ? item->data(0, kRoleDetail).toString() : QString());
}

void KeyInspectorPanel::showPage(const KeyPageResult& page) {
  if (page.firstPage) tree_->clear();
  for (const InspectedKey& k : page.keys) addKey(k);
  showMasters(page.masters);
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

void KeyInspectorPanel::showMasters(const QStringList& masters) {
  const bool cluster = !masters.isEmpty();
  tree_->setColumnHidden(kColumnNode, !cluster);
  tree_->setColumnHidden(kColumnSlot, !cluster);
  masters_->setVisible(cluster);
  if (!cluster) return;
  QMap<QString, int> perNode;
  for (int i = 0; i < tree_->topLevelItemCount(); ++i) ++perNode[tree_->topLevelItem(i)->text(kColumnNode)];
  QStringList parts;
  for (const QString& m : masters) {
    const int n = perNode.value(m);
    parts << (n == 1 ? tr("%1: 1 key").arg(m) : tr("%1: %2 keys").arg(m).arg(n));
  }
  masters_->setText(tr("Per master: %1").arg(parts.join(QStringLiteral(", "))));
}

void KeyInspectorPanel::addKey(const InspectedKey& k) {
  auto* item = new QTreeWidgetItem(tree_);
  item->setText(0, k.name);
  item->setText(kColumnNode, k.node);
  if (k.slot >= 0) item->setText(kColumnSlot, QString::number(k.slot));
  item->setText(1, k.type);
  item->setData(kColumnPttl, kRolePttl, static_cast<qlonglong>(k.pttlMs));
  item->setText(kColumnPttl, pttlText(k.pttlMs));
  item->setText(kColumnLibrary, k.library.isEmpty() ? QStringLiteral("-") : k.library);
  if (!k.explained.isEmpty()) item->setToolTip(kColumnLibrary, k.explained);
  QString raw;
  if (k.type == QLatin1String("string") && k.entries.isEmpty()) {  // a decoded string lists its fields below
    item->setText(kColumnValue, k.value);
    raw = k.value;
  } else if (k.type == QLatin1String("zset") || k.type == QLatin1String("list")) {
    item->setText(kColumnValue, tr("%1 entries").arg(k.size));
    const bool zset = k.type == QLatin1String("zset");
    for (const auto& [member, score] : k.entries) {
      const QString shown = zset ? asTimestamp(score) : score;
      childRow(item, member, shown);
      raw += member + QStringLiteral("  ") + shown + QLatin1Char('\n');
    }
    if (k.size > k.entries.size()) raw += tr("... %1 more").arg(k.size - k.entries.size());
  } else {
    QStringList fields;
    for (const auto& [f, v] : k.entries) {
      fields << f + QLatin1Char('=') + v;
      childRow(item, f, v);
    }
    item->setText(kColumnValue, fields.join(QStringLiteral(", ")));
    raw = fields.join(QLatin1Char('\n'));
    if (k.type == QLatin1String("string")) raw = k.value + QLatin1Char('\n') + raw;  // the stored text, then its fields
  }
  item->setData(0, kRoleDetail, detailOf(k, raw));
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
  emit scanRequested(prefix(), pattern_->text(), 0, kPageCount, assume_->text());
}

}  // namespace rl::ui
