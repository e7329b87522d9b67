#pragma once
// ConfigQuotaBox: "From config" in the storm form's quota area. Paste the
// team's limiter config (nginx, Envoy, Traefik, express-rate-limit,
// rate-limiter-flexible, limits, redis_rate), pick its dialect, and the box
// reads it with core/dialects (250 ms after the last keystroke): a parse error
// shows inline in red; a quota is emitted with its explanation (the limiter's
// own numbers) for the form to follow. Folded under a toggle until opened.

#include <QWidget>
#include <vector>

#include "dialects/dialect.hpp"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QTimer;
class QToolButton;

namespace rl::ui {

/// The "From config" box; see the file comment.
class ConfigQuotaBox : public QWidget {
  Q_OBJECT
 public:
  explicit ConfigQuotaBox(QWidget* parent = nullptr);

  QToolButton* toggle() const { return toggle_; }        ///< folds the box
  QComboBox* dialectBox() const { return dialect_; }     ///< which dialect the text is
  QComboBox* quotaBox() const { return which_; }         ///< which of several limits (shown when > 1)
  QPlainTextEdit* textEdit() const { return text_; }     ///< the pasted config
  QString statusText() const;                            ///< the inline summary or error
  bool showsError() const { return error_; }             ///< the status is a parse error
  /// Reads the text now (the edit reads it by itself 250 ms after the last change).
  void readNow();

 signals:
  /// A config was read: the quota `index` of it, and its explanation (rich text).
  void quotaRead(rl::Algorithm algorithm, const rl::Quota& quota, const QString& explanation);

 private:
  void showQuota(int index);

  QToolButton* toggle_;
  QWidget* body_;
  QComboBox* dialect_;
  QComboBox* which_;
  QPlainTextEdit* text_;
  QLabel* status_;
  QTimer* debounce_;
  std::vector<DialectQuota> quotas_;  ///< the last text's limits
  bool error_ = false;
};

}  // namespace rl::ui
