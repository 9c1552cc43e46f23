// Decides, from the merged facts of every pass, which descriptor parameters
// are rewritten, and groups their edits into units applied all or nothing.
#pragma once

#include "tma/Facts.h"

#include <map>
#include <string>
#include <vector>

namespace tma {

/// One launch of a descriptor parameter: where it is, and what it passes
/// once rewritten (the report's per-launch form: by value, snapshot, or
/// refused when the parameter is).
struct LaunchChoice {
  SourcePoint Where;
  LaunchForm Form = LaunchForm::ByValue;
  std::string Passed; // the argument's spelling once rewritten
};

struct ParamDecision {
  std::string Key, KernelName, ParamName;
  unsigned Index = 0;
  SourcePoint Where;
  bool Rewrite = false;
  std::vector<Blocker> Blockers; // why not; the first is the main reason
  unsigned Launches = 0;
  std::vector<LaunchChoice> LaunchChoices; // in source order
  size_t Unit = ~size_t(0);
  std::vector<SourceSpan> ReliesOn; // kernel, helpers, launching functions
  bool ExternallyVisible = true;
  bool FromConstant = false; // see DescriptorParam::FromConstant
  /// Taken as an array of this many descriptors (issue 21); 0: one.
  unsigned ArrayCount = 0;
};

/// Everything that changes together: descriptor parameters whose launches
/// share a device buffer, their signatures, bodies, launches and host copies.
struct EditUnit {
  std::vector<std::string> ParamKeys;
  std::vector<TextEdit> Edits; // sorted, unique
  unsigned LaunchesChanged = 0, CopiesRemoved = 0, AllocsRemoved = 0,
           FreesRemoved = 0, FencesRemoved = 0;
  std::vector<Note> LeftInPlace; // host code kept on purpose, and why
  bool Refused = false;
};

struct Plan {
  std::vector<ParamDecision> Params; // sorted by location
  std::vector<EditUnit> Units;

  /// Refuses a unit after planning (e.g. verification failed).
  void refuseUnit(size_t U, const Blocker &Why);
  /// Edits of the units still accepted, by file.
  std::map<std::string, std::vector<TextEdit>> editsByFile() const;
  std::map<std::string, std::vector<TextEdit>> editsByFile(size_t OnlyUnit) const;
};

struct PlanOptions {
  /// Only files under this directory may be edited (empty: anywhere).
  std::string InRoot;
  /// Files under this directory are build outputs (code generated into the
  /// build tree): never edited (empty: none).
  std::string BuildTree;
  /// Reasons found outside the facts (compiler errors in a descriptor's
  /// code), by parameter key: the main reason, applied before units form.
  std::map<std::string, Blocker> Preblocked;
};

Plan makePlan(const std::vector<PassFacts> &Facts, const PlanOptions &Opts);

/// True when two edits touch the same text (or insert different text at one
/// point). Identical edits do not conflict.
bool editsConflict(const TextEdit &A, const TextEdit &B);

} // namespace tma
