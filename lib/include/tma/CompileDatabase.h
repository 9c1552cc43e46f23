// Compile commands from a compilation database, translated for clang. nvcc's
// flags are kept, mapped or dropped one by one, on purpose; nothing is ever
// executed.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace clang::tooling {
class CompilationDatabase;
struct CompileCommand;
}

namespace tma {

struct TranslatedCommand {
  std::vector<std::string> Args; // for clang, without input and output
  std::string GpuArch;           // from -arch/-gencode, empty when not given
  unsigned LowestSm = 0;         // the lowest sm number they name, 0 when none
  /// The toolkit an absolute nvcc path names (`/opt/cuda-12.0` of
  /// `/opt/cuda-12.0/bin/nvcc`); empty otherwise.
  std::string CudaRoot;
  std::vector<std::string> Dropped; // flags with no meaning for the analysis
  bool FromNvcc = false;
  /// Why the response files (@file) were not all expanded (one that
  /// includes itself, one that cannot be read), for a message; empty when
  /// they were.
  std::string ResponseFileProblem;
};

/// Translates one compile command (argv[0] is the compiler) of \p File.
TranslatedCommand translateCommand(llvm::ArrayRef<std::string> CommandLine,
                                   llvm::StringRef File, llvm::StringRef Directory = "");

/// A compile database and where it comes from.
struct CompileDatabase {
  /// Null when none was loaded. Files it does not list get the command of
  /// their closest entry (clang's interpolation).
  std::unique_ptr<clang::tooling::CompilationDatabase> Commands;
  std::string File; // the compile_commands.json or compile_flags.txt read
  /// Why none was loaded, naming the file or directory; empty when the
  /// upward search found none.
  std::string Error;
  /// Entries whose "directory" is relative (not valid in a compile database,
  /// but written by hand and by some generators): they are taken relative to
  /// the database's own directory. The first one, as written and resolved.
  unsigned RelativeDirectories = 0;
  std::string FirstRelativeDirectory, FirstRelativeDirectoryResolved;

  CompileDatabase();
  CompileDatabase(CompileDatabase &&);
  CompileDatabase &operator=(CompileDatabase &&);
  ~CompileDatabase();
};

/// Loads compile_commands.json (else compile_flags.txt) from \p Dir (-p), or
/// searches upward from the directory of \p FirstSource when \p Dir is empty:
/// the first directory holding either file ends the search, so a broken
/// database there is an Error, not skipped.
CompileDatabase loadCompileDatabase(llvm::StringRef Dir, llvm::StringRef FirstSource);

/// The build tree: the directory of a loaded compile database when it lies
/// strictly inside \p InRoot (an out-of-source build, `build/` under the
/// project). Code there is generated, so it is never edited. Empty for an
/// in-source build or a database outside the root.
std::string buildTreeOf(const CompileDatabase &DB, llvm::StringRef InRoot);

/// The note for a source whose \p Commands from \p DB are not its own (none,
/// or inferred by clang from another entry), or "" when none is due: an
/// inferred command gets one only when relative directories may be why the
/// source's own entry was missed.
std::string missingEntryNote(const CompileDatabase &DB,
                             llvm::ArrayRef<clang::tooling::CompileCommand> Commands);

} // namespace tma
