#pragma once
// HttpTargetBox: the storm form's fields for the http backend, any HTTP limiter
// as the target: URL(s), how the client travels, the statuses that mean denied,
// extra header fields; the checked algorithms model the target on its own arrivals. Its values go through the
// storm settings (applyStormSetting), so a bad field gets ratelab-cli's sentence.

#include <QWidget>

#include "common/result.hpp"
#include "storm/storm_spec.hpp"

class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace rl::ui {

/// The http backend's fields; shown by the storm form when http is chosen.
class HttpTargetBox : public QWidget {
  Q_OBJECT
 public:
  explicit HttpTargetBox(QWidget* parent = nullptr);
  /// Writes the fields into `spec` (http_target, http_key, http_deny_status, http_header,
  /// and compare_backend memory when "beside" is checked); the error names the field.
  Result<void> applyTo(StormSpec& spec) const;
  /// Shows `spec`'s HTTP settings.
  void show(const StormSpec& spec);
  QLineEdit* targetField() const { return target_; }

 signals:
  /// A field was edited (the lanes' hint names the target).
  void changed();

 private:
  QLineEdit* target_;        ///< http_target: URL[,URL..]
  QLineEdit* key_;           ///< http_key: header:NAME | source-addr
  QLineEdit* deny_;          ///< http_deny_status: 429[,503..]
  QPlainTextEdit* headers_;  ///< http_header: one "Name: value" per line
  QLabel* models_;           ///< says what the model lanes are (the checked algorithms on the target's arrivals)
};

}  // namespace rl::ui
