#include "tma/Reasons.h"
#include "tma/Facts.h"

#include "llvm/ADT/StringExtras.h"

#include <cassert>
#include <iterator>

namespace tma {

static const ReasonInfo Table[] = {
#define TMA_REASON(Enumerator, Id, Diag, Format)                                                   \
  {ReasonID::Enumerator, Id, DiagID::Diag, Format},
#include "tma/Reasons.def"
};

llvm::ArrayRef<ReasonInfo> allReasons() { return Table; }

const ReasonInfo &reasonInfo(ReasonID R) {
  // The table follows the enumeration, row for row.
  assert(static_cast<unsigned>(R) < std::size(Table) && "not a row of the reason table");
  return Table[static_cast<unsigned>(R)];
}

std::string formatReason(ReasonID R, llvm::ArrayRef<std::string> Args) {
  llvm::StringRef Format = reasonInfo(R).Format;
  std::string Out;
  for (size_t I = 0; I < Format.size(); ++I) {
    unsigned N = I + 1 < Format.size() ? llvm::hexDigitValue(Format[I + 1]) : -1U;
    if (Format[I] == '%' && N < 10) {
      assert(N < Args.size() && "reason template names a missing argument");
      Out += N < Args.size() ? Args[N] : std::string();
      ++I;
      continue;
    }
    Out += Format[I];
  }
  return Out;
}

Blocker::Blocker(ReasonID R, llvm::ArrayRef<std::string> Args, SourcePoint Where,
                 std::vector<Note> Notes)
    : ID(reasonInfo(R).Diag), Message(formatReason(R, Args)), Where(std::move(Where)),
      Notes(std::move(Notes)), Reason(R) {}

Blocker blockerFor(ReasonID R, llvm::ArrayRef<std::string> Args, SourcePoint Where,
                   std::vector<Note> Notes) {
  return Blocker(R, Args, std::move(Where), std::move(Notes));
}

} // namespace tma
