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
}

namespace tma {

struct TranslatedCommand {
  std::vector<std::string> Args; // for clang, without input and output
  std::string GpuArch;           // from -arch/-gencode, empty when not given
  std::vector<std::string> Dropped; // flags with no meaning for the analysis
  bool FromNvcc = false;
};

/// Translates one compile command (argv[0] is the compiler) of \p File.
TranslatedCommand translateCommand(llvm::ArrayRef<std::string> CommandLine,
                                   llvm::StringRef File, llvm::StringRef Directory = "");

/// Loads compile_commands.json from \p Dir (-p), or searches upward from
/// \p FirstSource when \p Dir is empty. Null with \p Error set on failure.
std::unique_ptr<clang::tooling::CompilationDatabase>
loadCompileDatabase(llvm::StringRef Dir, llvm::StringRef FirstSource, std::string &Error);

} // namespace tma
