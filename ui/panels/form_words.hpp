#pragma once
// The storm form speaks its own words: core's validation names settings by
// their ratelab-cli flags ("--requests is missing: give --requests N"); in the
// window each flag becomes the form field's label ("Requests"), and a setting
// the form does not show becomes its scenario key ("the scenario's fault").

#include <QString>
#include <string_view>

namespace rl::ui {

/// `message` with every `--flag` replaced by the storm form's name for it.
QString inFormWords(std::string_view message);

}  // namespace rl::ui
