#include "tma/Diagnostics.h"

#include <cassert>

namespace tma {

static const DiagInfo Table[] = {
    {DiagID::ReadsThroughGlobal, "tma-001", Severity::Warning,
     "kernel reads a TMA descriptor through global memory",
     "pass it by value as a 'const __grid_constant__ CUtensorMap' parameter "
     "(tma-modernize does this)"},
    {DiagID::DeviceWrite, "tma-101", Severity::Warning,
     "descriptor is written on the device",
     "a descriptor modified in the kernel (tensormap.replace, release fence, "
     "store, non-const use) must stay in global memory; nothing to do"},
    {DiagID::RuntimeIndex, "tma-102", Severity::Warning,
     "descriptor pointer is indexed at run time or used in pointer arithmetic",
     "pass each descriptor as its own parameter, or keep the global array"},
    {DiagID::Escapes, "tma-103", Severity::Warning,
     "descriptor pointer escapes or is used in a way that cannot be proved "
     "read-only",
     "make the callee's body visible in this translation unit, or pass only "
     "to TMA instructions and helpers taking 'const CUtensorMap*'"},
    {DiagID::LaunchNotRewritable, "tma-104", Severity::Warning,
     "a launch of the kernel cannot be rewritten",
     "launch the kernel directly (<<<>>>) in the given sources, or give every "
     "file that launches it"},
    {DiagID::HostNotTraceable, "tma-105", Severity::Warning,
     "the host descriptor cannot be traced, or it changes between the copy "
     "and the launch",
     "copy a local CUtensorMap with cudaMemcpy right before the launch and do "
     "not modify it in between"},
    {DiagID::ParamSpace, "tma-106", Severity::Warning,
     "kernel parameters would exceed the parameter space",
     "move other large parameters to global or constant memory"},
    {DiagID::InMacro, "tma-107", Severity::Warning,
     "the text to change lies in a macro expansion that cannot be edited "
     "safely",
     "write the descriptor argument at the macro's call site, or expand the "
     "macro by hand"},
    {DiagID::Declaration, "tma-108", Severity::Warning,
     "a declaration of the kernel cannot be edited",
     "declarations in system headers or outside --in-root are never edited; "
     "widen --in-root or edit the declaration by hand"},
    {DiagID::Conflict, "tma-109", Severity::Warning,
     "the edits for this descriptor conflict",
     "report the input: two analyses disagreed on the same text"},
    {DiagID::VerifyFailed, "tma-110", Severity::Warning,
     "the rewritten translation unit has a compiler error the original did "
     "not have; nothing for this descriptor is changed",
     "report the input; the message names the new error"},
    {DiagID::InactiveBranch, "tma-111", Severity::Warning,
     "code the rewrite would change is also named in a preprocessor branch "
     "that this configuration skips; the other configuration would no longer "
     "build, so nothing for this descriptor is changed",
     "make the change by hand in every configuration, or run the tool with "
     "flags that make the branch active and check both"},
    {DiagID::OutsideBuild, "tma-112", Severity::Warning,
     "a file the rewrite would change is read by a build outside the run "
     "and the compile database that cannot be checked; nothing for this "
     "descriptor is changed",
     "add that build to the compile database (or give the flags it needs "
     "after --), or narrow the source root with --in-root"},
    {DiagID::NotWritable, "tma-202", Severity::Error,
     "a file the rewrite would change is read-only; nothing for this "
     "descriptor is changed",
     "make the file writable (chmod u+w) if it is meant to be edited"},
    {DiagID::WriteFailed, "tma-203", Severity::Error,
     "a file the rewrite would change could not be written, or changed "
     "while the tool ran; nothing for this descriptor is changed",
     "the message gives the reason (a directory without write permission, a "
     "full disk, another program editing the file); fix it and run again"},
    {DiagID::ParseError, "tma-201", Severity::Error,
     "the translation unit does not parse; nothing in it is changed",
     "fix the compiler errors listed, or pass the right flags after '--' or "
     "with -p"},
};

llvm::ArrayRef<DiagInfo> allDiagnostics() { return Table; }

const DiagInfo &info(DiagID ID) {
  for (const DiagInfo &D : Table)
    if (D.ID == ID)
      return D;
  assert(false && "diagnostic missing from the table");
  return Table[0];
}

const DiagInfo *findDiagnostic(llvm::StringRef Code) {
  for (const DiagInfo &D : Table)
    if (Code == D.Code)
      return &D;
  return nullptr;
}

llvm::StringRef severityName(Severity S) {
  switch (S) {
  case Severity::Remark:
    return "remark";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  return "warning";
}

} // namespace tma
