#pragma once
// Checked results in Qt Test functions. A helper that can fail returns a
// Result<T> rather than calling qFatal (which aborts the whole suite without
// naming the test); the test function unwraps it with RL_CHECKED, which fails
// that test with the error's message and returns from it.

#include <QtTest>

#include "common/result.hpp"

/// `auto& name = *(expr)` when `expr` (a Result<T>) holds a value; otherwise the
/// test fails with the error's message and returns.
#define RL_CHECKED(name, expr)                                                           \
  auto name##Checked = (expr);                                                           \
  QVERIFY2(bool(name##Checked), name##Checked ? "" : name##Checked.error().message.c_str()); \
  auto& name = *name##Checked
