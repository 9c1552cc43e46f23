// The program scope of a run (ProgramScope.h): compares the run's sources
// with the compile database's entries; nothing is parsed or executed.
#include "tma/ProgramScope.h"

#include "tma/SourceText.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace tma {

ProgramScope programScopeOf(const CompileDatabase &DB, const std::vector<std::string> &Sources,
                            std::vector<std::string> &NotInRun) {
  NotInRun.clear();
  if (!DB.Commands)
    return Sources.size() == 1 ? ProgramScope::WholeIfDefinesMain : ProgramScope::Partial;
  llvm::StringSet<> InRun;
  for (const std::string &S : Sources)
    InRun.insert(normalizePath(S));
  std::string Dir = normalizePath(llvm::sys::path::parent_path(DB.File));
  for (const std::string &F : DB.Commands->getAllFiles()) {
    std::string File = normalizePath(F);
    if (InRun.contains(File))
      continue;
    llvm::StringRef Shown(File);
    if (!Dir.empty() && Shown.consume_front(Dir + "/"))
      NotInRun.push_back(Shown.str());
    else
      NotInRun.push_back(File);
  }
  std::sort(NotInRun.begin(), NotInRun.end());
  NotInRun.erase(std::unique(NotInRun.begin(), NotInRun.end()), NotInRun.end());
  return NotInRun.empty() ? ProgramScope::Whole : ProgramScope::Partial;
}

} // namespace tma
