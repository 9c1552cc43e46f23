// The one table of tma-modernize diagnostics. The CLI, the reports and the
// clang-tidy plugin all print from it, so an ID always means the same thing.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace tma {

enum class DiagID {
  ReadsThroughGlobal, // tma-001
  DeviceWrite,        // tma-101
  RuntimeIndex,       // tma-102
  Escapes,            // tma-103
  LaunchNotRewritable,// tma-104
  HostNotTraceable,   // tma-105
  ParamSpace,         // tma-106
  InMacro,            // tma-107
  Declaration,        // tma-108
  Conflict,           // tma-109
  VerifyFailed,       // tma-110
  InactiveBranch,     // tma-111
  OutsideBuild,       // tma-112
  NotWritable,        // tma-202
  WriteFailed,        // tma-203
  ParseError,         // tma-201
};

enum class Severity { Remark, Warning, Error };

struct DiagInfo {
  DiagID ID;
  llvm::StringLiteral Code;    // "tma-101"
  Severity Level;
  llvm::StringLiteral Summary; // what it means, one line
  llvm::StringLiteral Advice;  // what the user can do
};

const DiagInfo &info(DiagID ID);
llvm::ArrayRef<DiagInfo> allDiagnostics();
/// Looks an ID up by its code ("tma-101"); null when unknown.
const DiagInfo *findDiagnostic(llvm::StringRef Code);
llvm::StringRef severityName(Severity S);

} // namespace tma
