// Error handling helpers. graphrt reports every failure as an absl::Status
// whose message names where it happened (file, node, op, dtype, shape); no
// exception crosses the public API.
#ifndef GRAPHRT_RUNTIME_STATUS_MACROS_H_
#define GRAPHRT_RUNTIME_STATUS_MACROS_H_

#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace graphrt {

// Returns `status` with `context` prepended to its message ("context: msg"),
// keeping the code. OK stays OK.
inline absl::Status WithContext(const absl::Status& status,
                                absl::string_view context) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(context, ": ", status.message()));
}

}  // namespace graphrt

#define GRAPHRT_CONCAT_INNER_(a, b) a##b
#define GRAPHRT_CONCAT_(a, b) GRAPHRT_CONCAT_INNER_(a, b)

#define GRAPHRT_RETURN_IF_ERROR(expr)               \
  do {                                              \
    ::absl::Status graphrt_status_ = (expr);        \
    if (!graphrt_status_.ok()) return graphrt_status_; \
  } while (0)

#define GRAPHRT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

// GRAPHRT_ASSIGN_OR_RETURN(auto x, FunctionReturningStatusOr());
#define GRAPHRT_ASSIGN_OR_RETURN(lhs, expr) \
  GRAPHRT_ASSIGN_OR_RETURN_IMPL_(           \
      GRAPHRT_CONCAT_(graphrt_statusor_, __LINE__), lhs, expr)

#endif  // GRAPHRT_RUNTIME_STATUS_MACROS_H_
