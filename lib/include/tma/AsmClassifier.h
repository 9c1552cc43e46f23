// What an inline-PTX statement does with one of its operands, when that
// operand is a TMA descriptor address. Pure string analysis, unit-tested.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace tma {

enum class AsmOperandRole {
  NotReferenced, // no instruction names the operand
  TensorRead,    // TMA copies/prefetches: accept a generic tensor-map address
  AcquireFence,  // fence.proxy.tensormap::generic.acquire.<scope> [op], 128
  Write,         // tensormap.replace, cp_fenceproxy, release fence, st/atom/red
  Unknown,       // any other instruction: cannot prove it works on a param
};

struct AsmOperandUse {
  AsmOperandRole Role = AsmOperandRole::NotReferenced;
  /// The instruction that decided Role (the worst one when several name it).
  std::string Instruction;
  /// True when the whole template is exactly one acquire fence on this
  /// operand, so the statement can be deleted without touching other PTX.
  bool SoleAcquireFence = false;
};

/// Splits a PTX template into instructions (without comments, braces, labels,
/// predicates and .reg declarations).
std::vector<std::string> splitPtxInstructions(llvm::StringRef AsmTemplate);

/// Classifies how the template uses operand \p Index (also named \p Name when
/// the operand is written as %[Name]).
AsmOperandUse classifyAsmOperand(llvm::StringRef AsmTemplate, unsigned Index,
                                 llvm::StringRef Name = "");

} // namespace tma
