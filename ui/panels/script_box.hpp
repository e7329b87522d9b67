#pragma once
// ScriptBox: the storm form's fields for the redis-script backend, the team's
// own Lua limiter: the file, the KEYS and ARGV templates, the reply's element
// names, and RateLab's scripts beside it (compare_backend redis-lua).

#include <QWidget>

#include "storm/storm_spec.hpp"

class QCheckBox;
class QLineEdit;

namespace rl::ui {

/// The redis-script backend's fields; shown by the storm form when that backend is chosen.
class ScriptBox : public QWidget {
  Q_OBJECT
 public:
  explicit ScriptBox(QWidget* parent = nullptr);
  /// Writes the fields into `spec` (script, script_keys, script_argv, script_reply; for
  /// the redis-script backend also compare_backend redis-lua when "beside" is checked).
  void applyTo(StormSpec& spec) const;
  /// Shows `spec`'s script settings.
  void show(const StormSpec& spec);

 private:
  QLineEdit* file_;     ///< the Lua file (picker beside it)
  QLineEdit* keys_;     ///< KEYS template
  QLineEdit* argv_;     ///< ARGV template
  QLineEdit* reply_;    ///< reply element names
  QCheckBox* beside_;   ///< run the built-ins beside the script (compare backend redis-lua)
};

}  // namespace rl::ui
