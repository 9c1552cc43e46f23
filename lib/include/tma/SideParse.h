// Parsing one CUDA side of a translation unit, with its header parse kept
// for the verification re-parse.
//
// A run parses each side of a TU twice when it edits it: once to analyse,
// once to verify the edited text. The headers (CUDA's, CCCL's, the user's
// leading includes) are most of each parse and are the same both times. The
// first parse therefore precompiles the leading includes of the main file
// (clang's preamble, as clangd keeps one per open file) and parses the rest
// over it; the verification parse reuses it when neither the main file's
// leading includes nor any file the preamble read was edited, and parses
// everything again otherwise.
#pragma once

#include "tma/CompileArgs.h"
#include "tma/Facts.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class ASTUnit;
class DiagnosticConsumer;
} // namespace clang

namespace tma {

struct SidePreamble;

/// The preambles of a run, by TU and side. Bounded: past \p Capacity TUs a
/// new preamble is not kept (its TU is verified by a full parse).
class PreambleStore {
public:
  explicit PreambleStore(unsigned Capacity = 16);
  ~PreambleStore();
  std::shared_ptr<const SidePreamble> find(const std::string &File, CudaSide Side) const;
  /// False when the store is full.
  bool keep(const std::string &File, CudaSide Side, std::shared_ptr<const SidePreamble> P);
  /// Parses that read a kept preamble instead of the headers.
  unsigned reuses() const;
  void countReuse();

private:
  mutable std::mutex Lock;
  std::map<std::pair<std::string, int>, std::shared_ptr<const SidePreamble>> Kept;
  unsigned Capacity;
  unsigned Reuses = 0;
};

/// One side parsed. Members are destroyed in reverse order: the AST before
/// the consumer of its diagnostics and the preamble it reads.
struct ParsedSide {
  std::shared_ptr<const SidePreamble> Preamble; // the one read, if any
  /// Receives the AST's diagnostics as long as the AST lives.
  std::unique_ptr<clang::DiagnosticConsumer> Consumer;
  std::unique_ptr<clang::ASTUnit> AST; // null when clang could not start
  std::vector<CompilerError> Errors;
  /// A fatal error or one without a position: nothing can be trusted.
  bool Untrustworthy = false;
  /// A new preamble built by this parse, for the store.
  std::shared_ptr<const SidePreamble> Built;
};

/// How a side is parsed with respect to preambles.
enum class PreambleUse {
  None,      // parse everything
  Reuse,     // read the store's preamble when it still matches
  Build,     // build one (and read it) when the main file has leading includes
};

/// Parses \p Side of \p MainFile with \p MainText as its contents and
/// \p Mapped replacing other files' contents (the nvcc compatibility
/// header is always mapped).
ParsedSide parseSide(CudaSide Side, const std::string &MainFile, const std::string &MainText,
                     const std::map<std::string, std::string> &Mapped,
                     const CompileOptions &Compile, const PreambleStore *Store,
                     PreambleUse Use);

/// Every file \p P read (its SourceManager's, and its preamble's, which the
/// AST over the preamble lists only once it reads them), normalised, with
/// the other paths it opened them by in \p Aliases.
void collectFilesRead(const ParsedSide &P, std::vector<std::string> &Real,
                      std::map<std::string, std::set<std::string>> &Aliases);

} // namespace tma
