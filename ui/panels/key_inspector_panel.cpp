#include "ui/panels/key_inspector_panel.hpp"

#include "ui/panels/inspected_key_text.hpp"
#include "ui/panels/key_live_view.hpp"

#include <QCheckBox>
#include <QColor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>
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

/// A row under a key: a hash field, ZSET member or list entry and its value.
void childRow(QTreeWidgetItem* parent, const QString& name, const QString& value) {
  auto* row = new QTreeWidgetItem(parent);
  row->setText(0, name);
  row->setText(kColumnValue, value);
}

}  // namespace

KeyInspectorPanel::KeyInspectorPanel(WorkerController& workers, QWidget* parent)
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
      replication_(new QLabel(this)),
      tree_(new QTreeWidget(this)),
      countdown_(new QTimer(this)),
      autoTimer_(new QTimer(this)) {
  prefix_->setObjectName(QStringLiteral("inspectorPrefix"));
  delete_->setObjectName(QStringLiteral("deleteKey"));
  more_->setObjectName(QStringLiteral("nextPage"));
  deleteAll_->setObjectName(QStringLiteral("deletePrefix"));
  asked_ = {scanPrefix(), QString()};
  prefix_->setPlaceholderText(tr("every key"));
  prefix_->setToolTip(tr("Keys starting with this text; empty: every key in the database (in pages, at most %1 listed)")
                          .arg(kMaxListed));
  pattern_->setPlaceholderText(tr("pattern within the prefix, e.g. {token_bucket:*"));
  assume_->setObjectName(QStringLiteral("inspectorAssume"));
  assume_->setPlaceholderText(tr("assume: rate=10/s burst=20 limit=10"));
  assume_->setToolTip(tr("What keys do not hold: GCRA rate and burst (go-redis/redis_rate), a counter's limit "
                         "(rate-limiter-flexible, rate-limit-redis), a bucket's capacity and refill (a hand-written "
                         "script). RateLab's keys of the storms run in this window are read with their own quota."));
  detail_->setObjectName(QStringLiteral("inspectorDetail"));
  detail_->setReadOnly(true);
  detail_->setPlaceholderText(tr("Select a key: what it means, then its raw value."));
  auto_->setToolTip(tr("Rescan every second; switches off above %1 keys").arg(kAutoRefreshMaxKeys));
  more_->setEnabled(false);
  masters_->setObjectName(QStringLiteral("inspectorMasters"));
  masters_->setWordWrap(true);
  masters_->setToolTip(tr("Keys listed per cluster master (host:port); a client's keys share one hash slot, so one master"));
  masters_->hide();
  replication_->setObjectName(QStringLiteral("inspectorReplication"));
  replication_->setWordWrap(true);
  replication_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  replication_->setToolTip(tr("INFO replication on the server listed: each replica's link state, its lag (seconds since "
                              "it last acknowledged) and how many bytes of the master's stream it has not acknowledged"));
  replication_->hide();
  tree_->setColumnCount(7);
  tree_->setHeaderLabels({tr("key"), tr("type"), tr("PTTL"), tr("Library"), tr("node"), tr("slot"), tr("value")});
  tree_->headerItem()->setToolTip(kColumnNode, tr("Redis Cluster: the master holding the key"));
  tree_->headerItem()->setToolTip(kColumnSlot, tr("Redis Cluster: the key's hash slot (CRC16 of its {hash tag} mod 16384)"));
  tree_->setColumnHidden(kColumnNode, true);
  tree_->setColumnHidden(kColumnSlot, true);
  tree_->header()->setStretchLastSection(false);  // the key name gets the room; the value column keeps its width
  tree_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  const int em = fontMetrics().averageCharWidth();
  tree_->setColumnWidth(1, 7 * em);
  tree_->setColumnWidth(kColumnPttl, 14 * em);  // "59 min 55 s"
  tree_->setColumnWidth(kColumnLibrary, 18 * em);
  tree_->setColumnWidth(kColumnValue, 18 * em);
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
  split->setStretchFactor(1, 2);  // the explanation of the watched key needs its lines
  layout->addWidget(buildTabs(split, workers), 1);
  layout->addWidget(replication_);
  layout->addWidget(masters_);
  layout->addLayout(actions);

  confirm_ = [this](const QString& text) {
    return QMessageBox::question(this, tr("Delete keys"), text) == QMessageBox::Yes;
  };
  connect(scan_, &QPushButton::clicked, this, &KeyInspectorPanel::refresh);
  connect(pattern_, &QLineEdit::returnPressed, this, &KeyInspectorPanel::refresh);
  connect(assume_, &QLineEdit::returnPressed, this, &KeyInspectorPanel::refresh);
  connect(tree_, &QTreeWidget::itemSelectionChanged, this, &KeyInspectorPanel::selectionChanged);
  connect(more_, &QPushButton::clicked, this,
          [this] { emit scanRequested(scanPrefix(), pattern_->text(), nextCursor_, kPageCount, assume_->text()); });
  connect(this, &KeyInspectorPanel::scanRequested, this, [this](const QString& p, const QString& pattern) {
    asked_ = {p, pattern};  // a page of an earlier question (another prefix) is not shown
  });
  connect(delete_, &QPushButton::clicked, this, &KeyInspectorPanel::deleteSelected);
  connect(deleteAll_, &QPushButton::clicked, this, &KeyInspectorPanel::deleteAll);
  countdown_->setInterval(100);
  connect(countdown_, &QTimer::timeout, this, &KeyInspectorPanel::tickCountdown);
  autoTimer_->setInterval(1000);
  connect(autoTimer_, &QTimer::timeout, this, &KeyInspectorPanel::refresh);
  connect(auto_, &QCheckBox::toggled, this, [this](bool on) { on ? autoTimer_->start() : autoTimer_->stop(); });
}

QString KeyInspectorPanel::prefix() const {
  const QString p = scanPrefix();
  return p.isEmpty() ? QStringLiteral("ratelab:") : p;
}

QString KeyInspectorPanel::scanPrefix() const { return prefix_->text().trimmed(); }

void KeyInspectorPanel::setPrefix(const QString& prefix) { prefix_->setText(prefix); }

int KeyInspectorPanel::keyCount() const { return tree_->topLevelItemCount(); }

QString KeyInspectorPanel::statusText() const { return status_->text(); }

QString KeyInspectorPanel::mastersText() const { return masters_->isHidden() ? QString() : masters_->text(); }

QString KeyInspectorPanel::replicationText() const { return replication_->isHidden() ? QString() : replication_->text(); }

void KeyInspectorPanel::refresh() { emit scanRequested(scanPrefix(), pattern_->text(), 0, kPageCount, assume_->text()); }

QString KeyInspectorPanel::detailText() const { return detail_->toPlainText(); }

void KeyInspectorPanel::selectionChanged() {
  const auto selected = tree_->selectedItems();
  QTreeWidgetItem* item = selected.isEmpty() ? nullptr : selected.front();
  while (item && item->parent()) item = item->parent();
  watched_ = item ? item->text(0) : QString();
  QStringList names;
  for (QTreeWidgetItem* i : selected)
    if (!i->parent()) names << i->text(0);
  live_->setKeys(names);
  showDetail();
}

void KeyInspectorPanel::showDetail() {
  if (watched_.isEmpty()) return detail_->clear();
  for (int i = 0; i < tree_->topLevelItemCount(); ++i)
    if (QTreeWidgetItem* item = tree_->topLevelItem(i); item->text(0) == watched_) {
      watchedDetail_ = item->data(0, kRoleDetail).toString();
      return detail_->setPlainText(watchedDetail_ + tr("\n\nRead at %1 (the PTTL column counts down from then).")
                                                        .arg(fetchedAt_.toLocalTime().toString(QStringLiteral("HH:mm:ss"))));
    }
  const QString when = fetchedAt_.toLocalTime().toString(QStringLiteral("HH:mm:ss"));
  detail_->setPlainText((complete_ ? tr("%1 is gone (expired or deleted) at the rescan of %2. As last read:\n\n")
                                   : tr("%1 is not on the pages listed at %2 (Next page may hold it). As last read:\n\n"))
                            .arg(watched_, when) +
                        watchedDetail_);
}

// Selects the watched key again after a rescan rebuilt the list.
void KeyInspectorPanel::reselect() {
  for (int i = 0; i < tree_->topLevelItemCount(); ++i)
    if (QTreeWidgetItem* item = tree_->topLevelItem(i); item->text(0) == watched_) {
      item->setSelected(true);
      tree_->setCurrentItem(item, 0, QItemSelectionModel::NoUpdate);
    }
}

void KeyInspectorPanel::showPage(const KeyPageResult& page) {
  if (page.prefix != asked_.first || page.pattern != asked_.second) return;
  bool capped = false;
  {
    const QSignalBlocker quiet(tree_);  // a rebuilt list is not the user's choice: the watched key stays
    if (page.firstPage) tree_->clear();
    for (const InspectedKey& k : page.keys) {
      if (keyCount() >= kMaxListed) {
        capped = true;
        break;
      }
      addKey(k);
    }
    reselect();
  }
  showMasters(page.masters);
  if (page.firstPage) {  // a further page keeps the line of its scan
    replication_->setText(page.replication);
    replication_->setVisible(!page.replication.isEmpty());
  }
  nextCursor_ = capped ? 0 : page.nextCursor;
  complete_ = page.firstPage && page.nextCursor == 0 && !capped;
  more_->setEnabled(nextCursor_ != 0);
  fetchedAt_ = QDateTime::currentDateTimeUtc();
  countdown_->start();
  showDetail();
  const QString where = scanPrefix().isEmpty() ? tr("in the whole database (no prefix)") : tr("under %1").arg(scanPrefix());
  QString text = keyCount() == 1 ? tr("1 key %1").arg(where) : tr("%1 keys %2").arg(keyCount()).arg(where);
  if (capped) text += tr("; the list stops at %1 keys: narrow the prefix or pattern to see the others").arg(kMaxListed);
  else if (page.nextCursor) text += tr("; more keys: Next page");
  if (auto_->isChecked() && keyCount() > kAutoRefreshMaxKeys) {
    auto_->setChecked(false);
    text += tr("; auto-refresh off above %1 keys").arg(kAutoRefreshMaxKeys);
  }
  status_->setText(text);
}

void KeyInspectorPanel::showServerStatus(const RedisStatus& s) {
  if (s.starting || s.url == server_) return;
  server_ = s.url;
  {
    const QSignalBlocker quiet(tree_);
    tree_->clear();
  }
  watched_.clear();
  detail_->clear();
  more_->setEnabled(false);
  masters_->hide();
  replication_->hide();
  status_->setText(s.ok ? tr("Scanning %1…").arg(s.url) : tr("No keys listed: %1 does not answer").arg(s.url));
  if (s.ok) refresh();
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
  if (!k.warnings.isEmpty()) {
    item->setForeground(kColumnPttl, QColor(0xd7, 0x3a, 0x49));
    item->setToolTip(kColumnPttl, k.warnings.join(QLatin1Char('\n')));
  }
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
      const QString shown = zset ? scoreText(score, k.scoreUnitUs) : score;
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
  item->setData(0, kRoleDetail, keyDetailText(k, raw));
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
  if (scanPrefix().isEmpty()) {
    status_->setText(tr("Deleting needs a prefix: type the one the keys start with (nothing outside it is deleted)"));
    return;
  }
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
  if (scanPrefix().isEmpty()) {
    status_->setText(tr("The prefix is empty: RateLab never deletes every key; type the prefix to delete"));
    return;
  }
  if (!confirm_(tr("Delete every key under %1? Keys outside the prefix are never touched.").arg(prefix()))) return;
  emit deletePrefixRequested(prefix());
}

void KeyInspectorPanel::showDeleted(qint64 count) {
  status_->setText(tr("Deleted %1 keys.").arg(count));
  refresh();
}

}  // namespace rl::ui
