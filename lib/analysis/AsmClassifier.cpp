#include "tma/AsmClassifier.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

using namespace llvm;

namespace tma {

static std::string stripComments(StringRef S) {
  std::string Out;
  for (size_t I = 0; I < S.size(); ++I) {
    if (S.substr(I).starts_with("//")) {
      while (I < S.size() && S[I] != '\n')
        ++I;
      Out += '\n';
      continue;
    }
    if (S.substr(I).starts_with("/*")) {
      size_t End = S.find("*/", I + 2);
      I = End == StringRef::npos ? S.size() : End + 1;
      Out += ' ';
      continue;
    }
    Out += S[I];
  }
  return Out;
}

std::vector<std::string> splitPtxInstructions(StringRef AsmTemplate) {
  std::string Clean = stripComments(AsmTemplate);
  std::vector<std::string> Result;
  SmallVector<StringRef, 16> Pieces;
  StringRef(Clean).split(Pieces, ';');
  for (StringRef Piece : Pieces) {
    SmallVector<StringRef, 4> Lines;
    // Braces open and close PTX scopes; they are not part of an instruction.
    std::string Flat = Piece.str();
    for (char &C : Flat)
      if (C == '{' || C == '}' || C == '\n' || C == '\t' || C == '\r')
        C = ' ';
    StringRef Insn = StringRef(Flat).trim();
    // Labels: "L1:".
    while (true) {
      size_t Colon = Insn.find(':');
      if (Colon == StringRef::npos || Colon == 0)
        break;
      StringRef Head = Insn.substr(0, Colon);
      if (Head.find_first_of(" \t[,") != StringRef::npos ||
          Insn.substr(Colon).starts_with("::"))
        break;
      Insn = Insn.substr(Colon + 1).trim();
    }
    // Guard predicates: "@p", "@!p", "@%p1".
    if (Insn.starts_with("@")) {
      size_t Space = Insn.find(' ');
      Insn = Space == StringRef::npos ? StringRef() : Insn.substr(Space).trim();
    }
    if (Insn.empty() || Insn.starts_with(".reg") || Insn.starts_with(".pragma"))
      continue;
    // Collapse runs of blanks so patterns are simple.
    std::string Norm;
    bool Blank = false;
    for (char C : Insn) {
      if (C == ' ') {
        if (!Blank)
          Norm += ' ';
        Blank = true;
      } else {
        Norm += C;
        Blank = false;
      }
    }
    Result.push_back(Norm);
  }
  return Result;
}

static bool referencesOperand(StringRef Insn, unsigned Index, StringRef Name) {
  std::string Num = "%" + std::to_string(Index);
  size_t Pos = 0;
  while ((Pos = Insn.find(Num, Pos)) != StringRef::npos) {
    size_t After = Pos + Num.size();
    // "%%" is a literal percent (special registers); %1 must not match %10.
    bool Escaped = Pos > 0 && Insn[Pos - 1] == '%';
    if (!Escaped && (After >= Insn.size() || !isDigit(Insn[After])))
      return true;
    Pos = After;
  }
  if (!Name.empty() && Insn.contains(("%[" + Name + "]").str()))
    return true;
  return false;
}

static StringRef opcodeOf(StringRef Insn) {
  return Insn.substr(0, Insn.find(' '));
}

static bool isTensorRead(StringRef Op) {
  return Op.starts_with("cp.async.bulk.tensor.") ||
         Op.starts_with("cp.reduce.async.bulk.tensor.") ||
         Op.starts_with("cp.async.bulk.prefetch.tensor.") ||
         Op == "prefetch.tensormap";
}

// The tensor map is the address opening the bracket of coordinates
// (`[%1, {%2, %3}]`), or the whole bracket of `prefetch.tensormap [%0]`; the
// other operands of a TMA instruction are shared memory, barriers and
// coordinates.
static bool isTensorMapOperand(StringRef Insn, unsigned Index, StringRef Name) {
  std::string Num = "%" + std::to_string(Index);
  std::string Named = ("%[" + Name + "]").str();
  char Closer = opcodeOf(Insn) == "prefetch.tensormap" ? ']' : ',';
  for (size_t Open = Insn.find('['); Open != StringRef::npos; Open = Insn.find('[', Open + 1)) {
    StringRef Rest = Insn.substr(Open + 1).ltrim();
    for (StringRef Op : {StringRef(Num), StringRef(Named)}) {
      if (Op == Named && Name.empty())
        continue;
      if (Rest.consume_front(Op) && Rest.ltrim().starts_with(StringRef(&Closer, 1)))
        return true;
    }
  }
  return false;
}

static bool isWrite(StringRef Op) {
  return Op.starts_with("tensormap.replace") ||
         Op.starts_with("tensormap.cp_fenceproxy") ||
         Op.starts_with("fence.proxy.tensormap::generic.release") ||
         Op == "st" || Op.starts_with("st.") || Op.starts_with("atom.") ||
         Op.starts_with("red.") || Op.starts_with("cp.async.bulk.global.") ||
         Op.starts_with("cp.reduce.async.bulk.global.");
}

static bool isAcquireFence(StringRef Insn, unsigned Index, StringRef Name) {
  static const Regex Fence(
      "^fence\\.proxy\\.tensormap::generic\\.acquire\\.(cta|cluster|gpu|sys) "
      "?\\[ ?(%[0-9]+|%\\[[A-Za-z_][A-Za-z0-9_]*\\]) ?\\] ?, ?128$");
  SmallVector<StringRef, 3> M;
  if (!Fence.match(Insn, &M))
    return false;
  return M[2] == ("%" + std::to_string(Index)) ||
         (!Name.empty() && M[2] == ("%[" + Name + "]").str());
}

AsmOperandUse classifyAsmOperand(StringRef AsmTemplate, unsigned Index,
                                 StringRef Name) {
  AsmOperandUse Use;
  std::vector<std::string> Insns = splitPtxInstructions(AsmTemplate);
  auto Rank = [](AsmOperandRole R) {
    switch (R) {
    case AsmOperandRole::NotReferenced:
      return 0;
    case AsmOperandRole::TensorRead:
      return 1;
    case AsmOperandRole::AcquireFence:
      return 2;
    case AsmOperandRole::Unknown:
      return 3;
    case AsmOperandRole::Write:
      return 4;
    }
    return 4;
  };
  for (const std::string &Insn : Insns) {
    if (!referencesOperand(Insn, Index, Name))
      continue;
    StringRef Op = opcodeOf(Insn);
    AsmOperandRole R = AsmOperandRole::Unknown;
    if (isAcquireFence(Insn, Index, Name))
      R = AsmOperandRole::AcquireFence;
    else if (isWrite(Op))
      R = AsmOperandRole::Write;
    else if (isTensorRead(Op) && isTensorMapOperand(Insn, Index, Name))
      R = AsmOperandRole::TensorRead;
    if (Rank(R) > Rank(Use.Role)) {
      Use.Role = R;
      Use.Instruction = Insn;
    }
  }
  Use.SoleAcquireFence = Use.Role == AsmOperandRole::AcquireFence &&
                         Insns.size() == 1;
  return Use;
}

} // namespace tma
