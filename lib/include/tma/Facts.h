// What one analysis pass (one CUDA side of one translation unit) learned.
// Facts are plain data keyed by file offsets and USRs, so the facts of the
// device pass, the host pass and (later) other TUs merge before any decision.
#pragma once

#include "tma/Diagnostics.h"
#include "tma/Reasons.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace tma {

struct SourcePoint {
  std::string File; // absolute, normalised path
  unsigned Offset = 0;
  unsigned Line = 0, Column = 0;
  bool valid() const { return !File.empty(); }
  bool operator<(const SourcePoint &O) const {
    return std::tie(File, Offset) < std::tie(O.File, O.Offset);
  }
  bool operator==(const SourcePoint &O) const {
    return File == O.File && Offset == O.Offset;
  }
};

/// One text replacement; Length 0 is an insertion.
struct TextEdit {
  std::string File;
  unsigned Offset = 0, Length = 0;
  std::string Text;
  bool operator<(const TextEdit &O) const {
    return std::tie(File, Offset, Length, Text) <
           std::tie(O.File, O.Offset, O.Length, O.Text);
  }
  bool operator==(const TextEdit &O) const {
    return File == O.File && Offset == O.Offset && Length == O.Length &&
           Text == O.Text;
  }
};

/// A stretch of one file [Begin, End).
struct SourceSpan {
  SourcePoint Begin;
  unsigned End = 0;
  bool contains(const SourcePoint &P) const {
    return P.File == Begin.File && P.Offset >= Begin.Offset && P.Offset < End;
  }
  bool operator<(const SourceSpan &O) const {
    return std::tie(Begin, End) < std::tie(O.Begin, O.End);
  }
  bool operator==(const SourceSpan &O) const { return Begin == O.Begin && End == O.End; }
};

struct Note {
  std::string Message;
  SourcePoint Where;
};

/// A reason not to rewrite, with the site that causes it.
struct Blocker {
  /// Built only from a row of the reason table (tma/Reasons.def): the row
  /// gives the diagnostic and the message template, filled with \p Args, so
  /// every refusal has a stable ID and its wording lives in one place.
  Blocker(ReasonID R, llvm::ArrayRef<std::string> Args, SourcePoint Where,
          std::vector<Note> Notes = {});

  DiagID ID;
  std::string Message; // specific: names the use, the function, the variable
  SourcePoint Where;
  std::vector<Note> Notes;
  /// The row it was built from, the reports' `reasonId`.
  ReasonID Reason;
};

/// A blocker built from the reason table: the reason's diagnostic, its
/// template filled with \p Args, and its ID.
Blocker blockerFor(ReasonID R, llvm::ArrayRef<std::string> Args, SourcePoint Where,
                   std::vector<Note> Notes = {});

/// The text that stands for the array's element count N in the edits of a
/// DescriptorArrayForm; the planner puts N in when it has decided N from
/// the launches.
inline constexpr const char *ArrayCountPlaceholder = "@TMA_N@";

/// The bytes and alignment of one kernel parameter.
struct ParamBytes {
  unsigned Size = 0, Align = 1;
  bool operator==(const ParamBytes &O) const { return Size == O.Size && Align == O.Align; }
};

/// Bytes of parameters laid out in order, each at its alignment, after
/// \p Start bytes.
inline uint64_t parameterBytes(const std::vector<ParamBytes> &Layout, uint64_t Start = 0) {
  uint64_t Bytes = Start;
  for (const ParamBytes &P : Layout) {
    uint64_t Align = P.Align ? P.Align : 1;
    Bytes = (Bytes + Align - 1) / Align * Align + P.Size;
  }
  return Bytes;
}

/// A descriptor parameter that the kernel indexes at run time (`p[i]`,
/// `p + i`) taken as N descriptors by value: `const __grid_constant__
/// TmaDescriptorArray<N> p`, where N comes from the launches (every launch
/// passes a device array of N, filled by one whole-array copy).
struct DescriptorArrayForm {
  /// The body indexes the parameter at run time: its one-descriptor form is
  /// refused (ScalarBlockers), this form may apply.
  bool Candidate = false;
  /// Every redeclaration's parameter (N as ArrayCountPlaceholder), the body
  /// uses in this form, and the definition of the array type.
  std::vector<TextEdit> Edits;
  std::vector<SourcePoint> FencesRemoved;
  /// What refuses this form (a use in the body it cannot keep).
  std::vector<Blocker> Blockers;
  /// What refuses the one-descriptor form: the use walk's blockers, kept
  /// here rather than in DescriptorParam::Blockers when Candidate.
  std::vector<Blocker> ScalarBlockers;
  /// Bytes of the kernel's other parameters laid out around this one:
  /// (size, alignment) in order, this parameter's own entry 0 bytes.
  std::vector<ParamBytes> Layout;
  unsigned Slot = 0;            // this parameter's index in Layout
  unsigned ParamSpaceLimit = 0; // bytes of parameters the target accepts
};

/// One pointer-to-CUtensorMap parameter of one kernel.
struct DescriptorParam {
  std::string Key; // kernel USR (the template pattern's) + "#" + index
  std::string KernelName, ParamName;
  unsigned Index = 0;
  SourcePoint Where;          // the parameter in the definition
  bool DefinitionSeen = false;
  bool ExternallyVisible = true; // may be launched from another TU
  /// Not a pointer parameter: the kernel reads a `__constant__ CUtensorMap`
  /// (ParamName) and gains it as its first parameter.
  bool FromConstant = false;
  std::vector<TextEdit> Edits; // every redeclaration's parameter, body uses
  std::vector<SourcePoint> FencesRemoved;
  std::vector<Blocker> Blockers;
  /// Code the decision rests on (the kernel, helpers it was followed into): a
  /// compiler error inside may hide a use, so it refuses the descriptor.
  std::vector<SourceSpan> ReliesOn;
  /// The parameter as an array of descriptors (issue 21), for when the body
  /// indexes it at run time and every launch passes a whole device array.
  DescriptorArrayForm Array;
};

enum class HostUseKind { Declaration, Alloc, Copy, Free, Launch, Other };

/// A use of a host variable that holds the device copy of a descriptor.
struct HostUse {
  HostUseKind Kind = HostUseKind::Other;
  SourcePoint Where;
  std::string What;              // "cudaMemcpy", "launch of k", ...
  std::vector<TextEdit> Removal; // empty when the statement cannot be removed alone
  std::string ParamKey;          // Launch: the descriptor parameter it is passed to
  /// Declaration: the keys of the other variables the same statement
  /// declares; Removal applies only when they all go too.
  std::vector<std::string> SharedWith;
  /// Launch: a call of a launcher whose body another translation unit holds,
  /// by the launcher parameter's key. The planner maps it to the kernel's
  /// ParamKey (LauncherForward), or counts the use as Other.
  std::string LauncherKey;
};

/// What holds a device copy, set by the pass that finds it, so that the
/// planner decides on the kind and never on the spelling of a key.
enum class BufferKind {
  Variable,       // a host variable holding a device pointer (H1..H5)
  UploadHelper,   // every caller's result of one upload helper (H6, H8)
  ConstantSymbol, // a `__constant__ CUtensorMap` (H12): not changed on the device
  /// A storage group the storage rule retargets to host memory: every use
  /// carries its edit (allocation -> new, copy -> assignment, free ->
  /// delete), applied together with its launches or not at all.
  Retargeted,
  /// A storage group kept on the device for the kernels that write it, with
  /// a host CUtensorMap beside it (DeviceBuffer::ValueName) that each whole
  /// copy also assigns; its other launches pass that value. Every use
  /// carries its edit, applied together with its launches or not at all.
  Mirrored,
};

/// A host variable (`CUtensorMap* d`) holding a device copy of a descriptor.
struct DeviceBuffer {
  std::string Key; // declaration's file:offset (opaque: only compared)
  std::string Name;
  SourcePoint Where;
  std::vector<HostUse> Uses;
  BufferKind Kind = BufferKind::Variable;
  /// Retargeted: the keys of the storages of the group (StorageVetoes of any
  /// translation unit may name them).
  std::vector<std::string> Storages;
  /// Mirrored: the host CUtensorMap beside the device copy.
  std::string ValueName;
  /// Mirrored: some copies into the device copy land after every launch,
  /// and the value does not take them (DeviceStorage::findLateCopies).
  bool ValueSkipsLateCopies = false;
};

/// What a rewritten launch passes (issue 40's words): the host descriptor as
/// it is at the launch call, or a copy of it taken where the device copy
/// was written (a retargeted storage, an upload helper's cache).
enum class LaunchForm { ByValue, Snapshot };

/// A range of a user's file that this pass's preprocessor skipped (an
/// inactive `#if` branch), with the names in it that a rewrite may change:
/// the kernels, descriptor parameters, device copies and launchers of the
/// pass's facts. Code there is not analysed, so an edit of those names
/// would leave it behind (issue 33).
struct SkippedRange {
  SourceSpan Span;
  std::vector<std::string> Names;
};

/// One descriptor argument of one launch.
struct LaunchSite {
  std::string ParamKey;
  std::string KernelName;
  SourcePoint Where;
  std::vector<TextEdit> Edits; // the argument becomes the host descriptor
  std::string BufferKey;       // DeviceBuffer it passed, when traced
  std::string HostDescriptor;  // spelling of what is passed now
  std::vector<Blocker> Blockers;
  std::vector<SourceSpan> ReliesOn; // the host function around the launch
  /// A call of a launcher whose body another translation unit holds: the
  /// launcher parameter's key, ParamKey empty; the planner maps it to the
  /// kernel's (LauncherForward) or drops the site.
  std::string LauncherKey;
  /// Blockers that hold unless the launcher key they come with names a
  /// launcher the run follows: the device copy is passed to a function of
  /// another translation unit between the copy and this launch.
  std::vector<std::pair<std::string, Blocker>> UnlessLaunchers;
  /// A launch that passes a whole device array of N descriptors (issue 21):
  /// N; Edits pass N host descriptors by value. 0: one descriptor.
  unsigned ArrayCount = 0;
  /// What Edits make the launch pass, when it is rewritten.
  LaunchForm Form = LaunchForm::ByValue;
};

/// H7 across translation units: launcher parameter LauncherKey is forwarded
/// (through launchers, LauncherName's body) to the launch of descriptor
/// ParamKey. The calls of the launcher in other translation units are
/// launch sites keyed by LauncherKey; the planner joins them with ParamKey.
struct LauncherForward {
  std::string LauncherKey; // launcher USR + "#" + index
  std::string ParamKey;
  std::string LauncherName;
  /// The parameter's type in every declaration the defining TU sees (and
  /// those of the launchers it forwards through): what every call needs.
  std::vector<TextEdit> Edits;
  /// The launcher's body: an error in it may hide a use of the parameter.
  SourceSpan Body;
  /// Calls of the launcher in its own translation unit.
  unsigned LocalCalls = 0;
  /// Set when calls in other translation units cannot all be in the run
  /// (external linkage, not the whole program): refuses those calls.
  std::vector<Blocker> CalledElsewhere;
  /// The launch inside the launcher as a refused site, for when no
  /// translation unit calls the launcher.
  LaunchSite Uncalled;
};

/// A compiler error, positioned so that errors before and after an edit can
/// be compared.
struct CompilerError {
  std::string Message;
  SourcePoint Where;
  /// Reported inside a macro expansion (Where is the expansion's position).
  bool InMacro = false;
  /// clang's diagnostic ID (clang::diag), to tell the errors whose recovery
  /// is exact (ErrorContainment.h).
  unsigned DiagID = 0;
  /// The code around it provably carries no descriptor (ErrorContainment.h):
  /// it blocks no descriptor unless an edit touches it.
  bool Contained = false;
  bool operator<(const CompilerError &O) const {
    return std::tie(Where, Message) < std::tie(O.Where, O.Message);
  }
};

struct PassFacts {
  std::string Side; // "device" or "host"
  std::vector<DescriptorParam> Params;
  std::vector<LaunchSite> Launches;
  std::vector<DeviceBuffer> Buffers;
  /// Blockers found away from the kernel (e.g. the kernel used as a pointer).
  std::vector<std::pair<std::string, Blocker>> ParamBlockers;
  /// Code a descriptor's decision rests on, found away from the kernel.
  std::vector<std::pair<std::string, SourceSpan>> ParamSpans;
  /// Parameters that are rewritten together or not at all (the kernels one
  /// function pointer may launch), with the site that ties them.
  std::vector<std::pair<std::vector<std::string>, Note>> TiedParams;
  /// Launcher parameters forwarded to a kernel's descriptor (H7).
  std::vector<LauncherForward> Launchers;
  /// Storages declared in a header (a class's field, a header function's
  /// parameter or result) that this translation unit uses in a way the
  /// storage rule cannot classify: no unit may retarget them.
  std::vector<std::pair<std::string, Blocker>> StorageVetoes;
  /// The ranges this pass's preprocessor skipped in the user's files, each
  /// with the changeable names it spells (SkippedRanges.h).
  std::vector<SkippedRange> Skipped;
};

} // namespace tma
