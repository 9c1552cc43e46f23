// Turning accepted edits into files, diffs, fix files and messages.
#pragma once

#include "tma/Engine.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace tma {

/// Applies non-conflicting edits; an error when two of them overlap.
llvm::Expected<std::string> applyEdits(llvm::StringRef Code, llvm::StringRef File,
                                       const std::vector<TextEdit> &Edits);

/// Joins deletions separated only by blanks and removes lines that the
/// deletions leave empty, so that removed statements leave no blank gaps.
std::vector<TextEdit> tidyDeletions(llvm::StringRef Code, std::vector<TextEdit> Edits);

/// The edits of one accepted unit as they are written (deletions tidied).
std::vector<TextEdit> finalUnitEdits(const RunResult &R, size_t Unit);

/// A unified diff (3 lines of context) of \p Edits applied to \p Old.
std::string unifiedDiff(llvm::StringRef Path, llvm::StringRef Old,
                        std::vector<TextEdit> Edits);

/// The temporary file next to \p Path that a write tagged \p Tag uses.
std::string temporaryNameFor(llvm::StringRef Path, llvm::StringRef Tag);
/// Creates \p Temp (it must not exist) with \p Contents and \p Path's mode,
/// owner and group, and syncs it to disk.
llvm::Error writeTemporaryFor(llvm::StringRef Path, llvm::StringRef Temp,
                              llvm::StringRef Contents);

/// Writes through a temporary file in the same directory and a rename, so a
/// reader sees the old or the new file, never a part; keeps the file's mode.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Contents);

/// clang-apply-replacements YAML for the edits of one main file.
std::string exportFixesYaml(llvm::StringRef MainFile,
                            const std::map<std::string, std::vector<TextEdit>> &Edits);

/// A message for the user, from the diagnostic table.
struct Message {
  DiagID ID;
  std::string Text;
  SourcePoint Where;
  std::vector<Note> Notes;
};

/// One message per descriptor parameter (rewritten or refused), in source
/// order. \p Applied says whether the edits are written (wording only).
std::vector<Message> messagesFor(const RunResult &R, bool Applied);
void printMessage(llvm::raw_ostream &OS, const Message &M);

/// One tma-201 error per compiler error that may hide a descriptor
/// (TUStatus::MayHide) in a TU that was analysed, at the error's line.
std::vector<Message> hiddenDescriptorMessages(const RunResult &R);

struct Summary {
  unsigned TUs = 0, TUsFailed = 0, TUsSkipped = 0;
  unsigned KernelsRewritten = 0, KernelsRefused = 0; // a kernel counts as rewritten when any descriptor is
  unsigned ParamsRewritten = 0, ParamsRefused = 0;
  std::map<std::string, unsigned> RefusedByID;
  unsigned Launches = 0, Copies = 0, Allocs = 0, Frees = 0, Fences = 0;
  unsigned FilesChanged = 0;
  unsigned ErrorsLeft = 0; // pre-existing compiler errors in TUs that were processed
  void add(const RunResult &R);
};
void printSummary(llvm::raw_ostream &OS, const Summary &S, llvm::StringRef Mode);
/// The same figures as a table, for runs over several translation units.
void printSummaryTable(llvm::raw_ostream &OS, const Summary &S);

} // namespace tma
