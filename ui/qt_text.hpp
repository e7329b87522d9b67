#pragma once
// Text from core (UTF-8 std::string / string_view) as Qt text, in one place.

#include <QString>
#include <string_view>

namespace rl::ui {

/// UTF-8 text as a QString.
inline QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

}  // namespace rl::ui
