// Stable IDs for the reasons a descriptor is refused, one message template
// each (the table is Reasons.def). A blocker built from a reason carries its
// ID, so the reports can name the reason, not only the diagnostic.
#pragma once

#include "tma/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace tma {

enum class ReasonID : unsigned {
#define TMA_REASON(Enumerator, Id, Diag, Format) Enumerator,
#include "tma/Reasons.def"
};

struct ReasonInfo {
  ReasonID ID;
  llvm::StringLiteral Name;   // "plan.no-launch"
  DiagID Diag;                // the diagnostic it is reported under
  llvm::StringLiteral Format; // the message, %0..%9 for the arguments
};

/// Every reason of the table, in table order.
llvm::ArrayRef<ReasonInfo> allReasons();
/// The table entry of \p R.
const ReasonInfo &reasonInfo(ReasonID R);
/// The message of \p R: its template with %N replaced by \p Args[N].
std::string formatReason(ReasonID R, llvm::ArrayRef<std::string> Args = {});

} // namespace tma
