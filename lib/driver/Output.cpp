#include "tma/Output.h"

#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/ReplacementsYaml.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/YAMLTraits.h"

#include <cerrno>
#include <fcntl.h>
#include <set>
#include <unistd.h>
#include <sys/stat.h>

namespace tma {

llvm::Expected<std::string> applyEdits(llvm::StringRef Code, llvm::StringRef File,
                                       const std::vector<TextEdit> &Edits) {
  clang::tooling::Replacements Reps;
  for (const TextEdit &E : Edits)
    if (llvm::Error Err =
            Reps.add(clang::tooling::Replacement(File, E.Offset, E.Length, E.Text)))
      return std::move(Err);
  return clang::tooling::applyAllReplacements(Code, Reps);
}

std::vector<TextEdit> finalUnitEdits(const RunResult &R, size_t Unit) {
  std::map<std::string, std::vector<TextEdit>> ByFile;
  for (const TextEdit &E : R.ThePlan.Units[Unit].Edits)
    ByFile[E.File].push_back(E);
  std::vector<TextEdit> Out;
  for (auto &[File, List] : ByFile) {
    auto Orig = R.Original.find(File);
    llvm::append_range(Out, Orig == R.Original.end() ? List : tidyDeletions(Orig->second, List));
  }
  return Out;
}

namespace {
struct LineTable {
  std::vector<unsigned> Starts;
  explicit LineTable(llvm::StringRef T) {
    Starts.push_back(0);
    for (unsigned I = 0; I < T.size(); ++I)
      if (T[I] == '\n')
        Starts.push_back(I + 1);
  }
  unsigned lineOf(unsigned Off) const { // 0-based
    return std::upper_bound(Starts.begin(), Starts.end(), Off) - Starts.begin() - 1;
  }
};

std::vector<std::string> splitLines(llvm::StringRef T) {
  std::vector<std::string> L;
  while (!T.empty()) {
    size_t N = T.find('\n');
    if (N == llvm::StringRef::npos) {
      L.push_back(T.str());
      break;
    }
    L.push_back(T.substr(0, N + 1).str());
    T = T.substr(N + 1);
  }
  return L;
}
} // namespace

std::string unifiedDiff(llvm::StringRef Path, llvm::StringRef Old,
                        std::vector<TextEdit> Edits) {
  if (Edits.empty())
    return std::string();
  // Whole-line deletions written as "\n...line" (see tidyDeletions) are shown
  // as the lines they remove.
  for (TextEdit &E : Edits)
    if (E.Text.empty() && E.Length && E.Offset < Old.size() && Old[E.Offset] == '\n' &&
        (E.Offset + E.Length == Old.size() || Old[E.Offset + E.Length] == '\n') &&
        E.Offset + E.Length < Old.size())
      ++E.Offset;
  llvm::sort(Edits);
  LineTable LT(Old);
  std::vector<std::string> OldLines = splitLines(Old);
  // Changed blocks: [A, B] old lines, replaced by NewLines.
  struct Block {
    unsigned A, B;
    std::vector<TextEdit> Edits;
    std::vector<std::string> NewLines;
  };
  std::vector<Block> Blocks;
  for (const TextEdit &E : Edits) {
    unsigned A = LT.lineOf(E.Offset);
    unsigned B = E.Length ? LT.lineOf(E.Offset + E.Length - 1) : A;
    if (!Blocks.empty() && A <= Blocks.back().B + 1) {
      Blocks.back().B = std::max(Blocks.back().B, B);
      Blocks.back().Edits.push_back(E);
    } else {
      Blocks.push_back({A, B, {E}, {}});
    }
  }
  for (Block &Bl : Blocks) {
    unsigned Start = LT.Starts[Bl.A];
    unsigned End = Bl.B + 1 < LT.Starts.size() ? LT.Starts[Bl.B + 1] : Old.size();
    std::vector<TextEdit> Local;
    for (TextEdit E : Bl.Edits) {
      E.Offset -= Start;
      Local.push_back(E);
    }
    llvm::Expected<std::string> New = applyEdits(Old.slice(Start, End), Path, Local);
    if (!New) {
      llvm::consumeError(New.takeError());
      return std::string();
    }
    Bl.NewLines = splitLines(*New);
  }
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "--- " << Path << "\n+++ " << Path << "\n";
  const unsigned Ctx = 3;
  long Delta = 0; // new line number minus old line number so far
  for (size_t I = 0; I < Blocks.size();) {
    size_t J = I;
    while (J + 1 < Blocks.size() && Blocks[J + 1].A <= Blocks[J].B + 2 * Ctx + 1)
      ++J;
    unsigned HA = Blocks[I].A >= Ctx ? Blocks[I].A - Ctx : 0;
    unsigned HB = std::min<unsigned>(Blocks[J].B + Ctx, OldLines.size() - 1);
    std::string Body;
    // A last line without its newline gets the usual marker.
    auto Emit = [&](char Prefix, const std::string &L) {
      Body += Prefix + L;
      if (L.empty() || L.back() != '\n')
        Body += "\n\\ No newline at end of file\n";
    };
    unsigned OldCount = 0, NewCount = 0;
    unsigned Line = HA;
    long HunkDelta = 0;
    for (size_t K = I; K <= J; ++K) {
      for (; Line < Blocks[K].A; ++Line, ++OldCount, ++NewCount)
        Emit(' ', OldLines[Line]);
      for (; Line <= Blocks[K].B; ++Line, ++OldCount)
        Emit('-', OldLines[Line]);
      for (const std::string &N : Blocks[K].NewLines) {
        Emit('+', N);
        ++NewCount;
      }
      HunkDelta += long(Blocks[K].NewLines.size()) - long(Blocks[K].B - Blocks[K].A + 1);
    }
    for (; Line <= HB; ++Line, ++OldCount, ++NewCount)
      Emit(' ', OldLines[Line]);
    long NewStart = long(HA) + 1 + Delta;
    OS << "@@ -" << (OldCount ? HA + 1 : HA) << "," << OldCount << " +"
       << (NewCount ? NewStart : NewStart - 1) << "," << NewCount << " @@\n"
       << Body;
    Delta += HunkDelta;
    I = J + 1;
  }
  return Out;
}

std::string temporaryNameFor(llvm::StringRef Path, llvm::StringRef Tag) {
  // The temporary name carries the file's name when it fits, so that a
  // leftover after a kill says whose it is; a name near NAME_MAX (255) gets
  // a short one.
  llvm::SmallString<256> Temp(llvm::sys::path::parent_path(Path));
  std::string Name = llvm::sys::path::filename(Path).str();
  llvm::sys::path::append(Temp, Name.size() <= 200 ? "." + Name + ".tma-" + Tag.str()
                                                   : ".tma-" + Tag.str());
  return Temp.str().str();
}

llvm::Error writeTemporaryFor(llvm::StringRef Path, llvm::StringRef Temp,
                              llvm::StringRef Contents) {
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(Path, Status))
    return llvm::createStringError(EC, "cannot stat '%s': %s", Path.str().c_str(),
                                   EC.message().c_str());
  int FD = ::open(Temp.str().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (FD < 0) {
    std::error_code EC(errno, std::generic_category());
    return llvm::createStringError(EC, "cannot create a temporary file next to '%s': %s",
                                   Path.str().c_str(), EC.message().c_str());
  }
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/false);
    OS << Contents;
    OS.flush();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      ::close(FD);
      llvm::sys::fs::remove(Temp);
      return llvm::createStringError(EC, "cannot write a temporary file next to '%s': %s",
                                     Path.str().c_str(), EC.message().c_str());
    }
  }
  ::fchmod(FD, static_cast<mode_t>(Status.permissions()));
  // Keep the owner and group (a root run on someone's checkout); allowed
  // for root, and a no-op for the owner themself.
  if (::fchown(FD, Status.getUser(), Status.getGroup()) != 0) {
    // Not allowed: the file now belongs to the user running the tool.
  }
  bool Synced = ::fsync(FD) == 0;
  std::error_code SyncEC(errno, std::generic_category());
  ::close(FD);
  if (!Synced) {
    llvm::sys::fs::remove(Temp);
    return llvm::createStringError(SyncEC, "cannot write a temporary file next to '%s': %s",
                                   Path.str().c_str(), SyncEC.message().c_str());
  }
  return llvm::Error::success();
}

llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Contents) {
  std::string Tag;
  for (int I = 0; I < 6; ++I)
    Tag += "0123456789abcdef"[llvm::sys::Process::GetRandomNumber() % 16];
  std::string Temp = temporaryNameFor(Path, Tag);
  if (llvm::Error E = writeTemporaryFor(Path, Temp, Contents))
    return E;
  if (std::error_code EC = llvm::sys::fs::rename(Temp, Path)) {
    llvm::sys::fs::remove(Temp);
    return llvm::createStringError(EC, "cannot replace '%s': %s", Path.str().c_str(),
                                   EC.message().c_str());
  }
  return llvm::Error::success();
}

std::string exportFixesYaml(llvm::StringRef MainFile,
                            const std::map<std::string, std::vector<TextEdit>> &Edits) {
  clang::tooling::TranslationUnitReplacements TUR;
  TUR.MainSourceFile = MainFile.str();
  for (const auto &[File, List] : Edits)
    for (const TextEdit &E : List)
      TUR.Replacements.emplace_back(File, E.Offset, E.Length, E.Text);
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  llvm::yaml::Output YAML(OS);
  YAML << TUR;
  return Out;
}

// ---------------------------------------------------------------------------

static void fillLineColumn(SourcePoint &P, std::map<std::string, std::string> &Cache) {
  if (P.File.empty() || P.Line)
    return;
  auto It = Cache.find(P.File);
  if (It == Cache.end()) {
    auto B = llvm::MemoryBuffer::getFile(P.File);
    It = Cache.emplace(P.File, B ? (*B)->getBuffer().str() : std::string()).first;
  }
  LineTable LT(It->second);
  unsigned L = LT.lineOf(P.Offset);
  P.Line = L + 1;
  P.Column = P.Offset - LT.Starts[L] + 1;
}

std::vector<Message> messagesFor(const RunResult &R, bool Applied) {
  std::vector<Message> Out;
  std::map<std::string, std::string> Cache = R.Original;
  for (const ParamDecision &D : R.ThePlan.Params) {
    Message M;
    M.Where = D.Where;
    if (D.Rewrite) {
      const EditUnit &U = R.ThePlan.Units[D.Unit];
      M.ID = DiagID::ReadsThroughGlobal;
      if (D.ArrayCount)
        M.Text = "kernel '" + D.KernelName + "' reads " + std::to_string(D.ArrayCount) +
                 " descriptors '" + D.ParamName + "' through global memory, indexed at run time; " +
                 (Applied ? "now passed by value" : "they can be passed by value") +
                 " as one TmaDescriptorArray<" + std::to_string(D.ArrayCount) + ">";
      else
        M.Text = "kernel '" + D.KernelName + "' reads descriptor '" + D.ParamName +
                 (D.FromConstant ? "' from __constant__ memory, filled by cudaMemcpyToSymbol; "
                                 : "' through global memory; ") +
                 (Applied ? "now passed by value" : "it can be passed by value");
      for (const Note &N : U.LeftInPlace)
        M.Notes.push_back(N);
    } else {
      const Blocker &B = D.Blockers.front();
      M.ID = B.ID;
      M.Text = "descriptor '" + D.ParamName + "' of kernel '" + D.KernelName +
               (D.FromConstant ? "' is left in __constant__ memory: " : "' is left by reference: ") +
               B.Message;
      if (B.Where.valid() && !(B.Where == D.Where))
        M.Notes.push_back({"blocked here", B.Where});
      for (const Note &N : B.Notes)
        M.Notes.push_back(N);
      for (size_t I = 1; I < D.Blockers.size(); ++I)
        M.Notes.push_back({"also: " + D.Blockers[I].Message + " [" +
                               info(D.Blockers[I].ID).Code.str() + "]",
                           D.Blockers[I].Where});
    }
    fillLineColumn(M.Where, Cache);
    for (Note &N : M.Notes)
      fillLineColumn(N.Where, Cache);
    Out.push_back(std::move(M));
  }
  return Out;
}

void printMessage(llvm::raw_ostream &OS, const Message &M) {
  const DiagInfo &I = info(M.ID);
  auto Loc = [&](const SourcePoint &P) {
    if (P.valid())
      OS << P.File << ":" << P.Line << ":" << P.Column << ": ";
    else
      OS << "tma-modernize: ";
  };
  Loc(M.Where);
  OS << severityName(I.Level) << ": " << M.Text << " [" << I.Code << "]\n";
  for (const Note &N : M.Notes) {
    Loc(N.Where.valid() ? N.Where : M.Where);
    OS << "note: " << N.Message << "\n";
  }
}

std::vector<Message> hiddenDescriptorMessages(const RunResult &R) {
  std::vector<Message> Out;
  for (const TUStatus &TU : R.TUs) {
    if (TU.Failed)
      continue; // its errors are listed with the failure
    for (const CompilerError &E : TU.MayHide)
      Out.push_back({DiagID::ParseError,
                     "this compiler error may hide descriptors: it is outside any function "
                     "body or in a statement that names a descriptor type, so a kernel, a "
                     "parameter or a declaration may be missing from the analysis of '" +
                         TU.File + "' (fix it, or give the flags of the build)",
                     E.Where,
                     {{"compiler error: " + E.Message, E.Where}}});
  }
  return Out;
}

void Summary::add(const RunResult &R) {
  for (const TUStatus &TU : R.TUs) {
    ++TUs;
    TUsFailed += TU.Failed;
    TUsSkipped += TU.Skipped;
    if (!TU.Failed)
      ErrorsLeft += TU.Errors.size();
  }
  std::map<std::string, bool> Kernels; // kernel -> any descriptor rewritten
  for (const ParamDecision &D : R.ThePlan.Params) {
    Kernels[D.KernelName] |= D.Rewrite;
    if (D.Rewrite) {
      ++ParamsRewritten;
    } else {
      ++ParamsRefused;
      ++RefusedByID[info(D.Blockers.front().ID).Code.str()];
    }
  }
  for (auto &[K, Any] : Kernels)
    (Any ? KernelsRewritten : KernelsRefused)++;
  for (const EditUnit &U : R.ThePlan.Units)
    if (!U.Refused) {
      Launches += U.LaunchesChanged;
      Copies += U.CopiesRemoved;
      Allocs += U.AllocsRemoved;
      Frees += U.FreesRemoved;
      Fences += U.FencesRemoved;
    }
  FilesChanged += R.Edits.size();
}

void printSummary(llvm::raw_ostream &OS, const Summary &S, llvm::StringRef Mode) {
  OS << "tma-modernize: " << S.KernelsRewritten << " kernel"
     << (S.KernelsRewritten == 1 ? "" : "s") << " " << Mode << ", " << S.KernelsRefused
     << " refused (descriptors: " << S.ParamsRewritten << " by value, " << S.ParamsRefused
     << " refused";
  for (auto &[ID, N] : S.RefusedByID)
    OS << ", " << ID << ": " << N;
  OS << "); " << S.Launches << " launch" << (S.Launches == 1 ? "" : "es") << " changed, "
     << S.Copies << " cop" << (S.Copies == 1 ? "y" : "ies") << " removed (" << S.Allocs
     << " alloc, " << S.Frees << " free), " << S.Fences << " fence"
     << (S.Fences == 1 ? "" : "s") << " removed; " << S.FilesChanged << " file"
     << (S.FilesChanged == 1 ? "" : "s") << ", " << S.TUs << " translation unit"
     << (S.TUs == 1 ? "" : "s");
  if (S.TUsSkipped)
    OS << " (" << S.TUsSkipped << " skipped: nothing spells a descriptor)";
  if (S.TUsFailed)
    OS << " (" << S.TUsFailed << " not parsed [tma-201])";
  if (S.ErrorsLeft)
    OS << "; " << S.ErrorsLeft << " pre-existing clang error" << (S.ErrorsLeft == 1 ? "" : "s")
       << " left untouched";
  OS << "\n";
}

void printSummaryTable(llvm::raw_ostream &OS, const Summary &S) {
  auto Row = [&](llvm::StringRef Name, const std::string &Value) {
    OS << "  " << Name;
    for (size_t I = Name.size(); I < 22; ++I)
      OS << ' ';
    OS << Value << "\n";
  };
  std::string Refused;
  for (auto &[ID, N] : S.RefusedByID)
    Refused += (Refused.empty() ? "" : ", ") + ID + " x" + std::to_string(N);
  OS << "tma-modernize summary:\n";
  Row("translation units", std::to_string(S.TUs) + " (" +
                               std::to_string(S.TUs - S.TUsSkipped - S.TUsFailed) + " analysed, " +
                               std::to_string(S.TUsSkipped) + " skipped, " +
                               std::to_string(S.TUsFailed) + " not parsed)");
  Row("kernels", std::to_string(S.KernelsRewritten) + " rewritten, " +
                     std::to_string(S.KernelsRefused) + " refused");
  Row("descriptors", std::to_string(S.ParamsRewritten) + " by value, " +
                         std::to_string(S.ParamsRefused) + " refused" +
                         (Refused.empty() ? "" : " (" + Refused + ")"));
  Row("launches changed", std::to_string(S.Launches));
  Row("copies removed", std::to_string(S.Copies) + " (" + std::to_string(S.Allocs) +
                            " alloc, " + std::to_string(S.Frees) + " free)");
  Row("fences removed", std::to_string(S.Fences));
  Row("files changed", std::to_string(S.FilesChanged));
  Row("clang errors", std::to_string(S.ErrorsLeft) + " pre-existing, left untouched");
}

} // namespace tma
