#include "tma/Commit.h"

#include "tma/Output.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <set>
#include <sys/file.h>
#include <unistd.h>

namespace tma {

// --- the lock ------------------------------------------------------------------

llvm::Expected<RootLock> RootLock::acquire(llvm::StringRef Root,
                                           llvm::function_ref<void()> Waiting) {
  // The directory itself is locked, so nothing is added to the tree.
  int FD = ::open(Root.str().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (FD < 0)
    return llvm::createStringError(std::error_code(errno, std::generic_category()),
                                   "cannot open the root directory '%s' to lock it: %s",
                                   Root.str().c_str(), std::strerror(errno));
  auto Failed = [&](int Err) {
    ::close(FD);
    return llvm::createStringError(std::error_code(Err, std::generic_category()),
                                   "cannot lock '%s': %s", Root.str().c_str(),
                                   std::strerror(Err));
  };
  // A second of silent retries first: another run's write phase takes
  // milliseconds and is not worth a message.
  for (int Try = 0; ::flock(FD, LOCK_EX | LOCK_NB) != 0; ++Try) {
    if (errno != EWOULDBLOCK && errno != EINTR)
      return Failed(errno);
    if (Try < 100) {
      ::usleep(10000);
      continue;
    }
    Waiting();
    while (::flock(FD, LOCK_EX) != 0)
      if (errno != EINTR)
        return Failed(errno);
    break;
  }
  return RootLock(FD);
}

RootLock::~RootLock() {
  if (FD >= 0)
    ::close(FD); // releases the lock
}

// --- the journal ---------------------------------------------------------------

std::string journalPath(llvm::StringRef Root) {
  llvm::SmallString<256> P(Root);
  llvm::sys::path::append(P, ".tma-modernize-journal");
  return P.str().str();
}

namespace {

std::string sha256(llvm::StringRef Text) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(Text)), /*LowerCase=*/true);
}

/// One file of a run's transaction.
struct JournalEntry {
  std::string Path, Temp;
  std::string OldHash, NewHash;
  std::string OldText; // to undo a rename when the run cannot be finished
  std::string NewText; // in memory only
};

/// "preparing": temporary files are being written, no file is replaced yet.
/// "committing": every temporary file is complete; renames under way.
llvm::Error writeJournal(llvm::StringRef Root, llvm::StringRef State,
                         const std::vector<JournalEntry> &Entries) {
  llvm::json::Array Files;
  for (const JournalEntry &E : Entries)
    // Paths and contents in hexadecimal, since JSON strings must be UTF-8
    // and neither file names nor sources need be; "file" is for people.
    Files.push_back(llvm::json::Object{{"file", llvm::json::fixUTF8(E.Path)},
                                       {"path_hex", llvm::toHex(E.Path)},
                                       {"temp_hex", llvm::toHex(E.Temp)},
                                       {"old_sha256", E.OldHash},
                                       {"new_sha256", E.NewHash},
                                       {"old_contents_hex", llvm::toHex(E.OldText)}});
  llvm::json::Object Doc{{"tool", "tma-modernize"},
                         {"version", 1},
                         {"state", State},
                         {"files", std::move(Files)}};
  std::string Text;
  llvm::raw_string_ostream(Text) << llvm::json::Value(std::move(Doc)) << "\n";
  // The journal is replaced atomically like any file; its temporary has a
  // fixed name, so a leftover is found and removed by the next run.
  std::string Path = journalPath(Root), Temp = Path + ".new";
  llvm::sys::fs::remove(Temp);
  int FD = ::open(Temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (FD < 0)
    return llvm::createStringError(std::error_code(errno, std::generic_category()),
                                   "cannot write the journal '%s': %s", Path.c_str(),
                                   std::strerror(errno));
  bool Ok = ::write(FD, Text.data(), Text.size()) == static_cast<ssize_t>(Text.size()) &&
            ::fsync(FD) == 0;
  int Err = errno;
  ::close(FD);
  if (!Ok || ::rename(Temp.c_str(), Path.c_str()) != 0) {
    Err = Ok ? errno : Err;
    llvm::sys::fs::remove(Temp);
    return llvm::createStringError(std::error_code(Err, std::generic_category()),
                                   "cannot write the journal '%s': %s", Path.c_str(),
                                   std::strerror(Err));
  }
  return llvm::Error::success();
}

llvm::Expected<std::pair<std::string, std::vector<JournalEntry>>>
readJournal(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read the journal '%s': %s",
                                   Path.str().c_str(), Buf.getError().message().c_str());
  llvm::Expected<llvm::json::Value> Doc = llvm::json::parse((*Buf)->getBuffer());
  if (!Doc)
    return llvm::createStringError("the journal '%s' is not valid JSON: %s", Path.str().c_str(),
                                   llvm::toString(Doc.takeError()).c_str());
  auto Bad = [&](llvm::StringRef What) {
    return llvm::createStringError("the journal '%s' is damaged: %s", Path.str().c_str(),
                                   What.str().c_str());
  };
  const llvm::json::Object *O = Doc->getAsObject();
  if (!O)
    return Bad("not an object");
  std::optional<llvm::StringRef> State = O->getString("state");
  const llvm::json::Array *Files = O->getArray("files");
  if (!State || (*State != "preparing" && *State != "committing") || !Files)
    return Bad("no state or no files");
  std::vector<JournalEntry> Entries;
  for (const llvm::json::Value &V : *Files) {
    const llvm::json::Object *F = V.getAsObject();
    JournalEntry E;
    auto Hex = [&](llvm::StringRef Key, std::string &Out) {
      std::optional<llvm::StringRef> S = F ? F->getString(Key) : std::nullopt;
      return S && llvm::tryGetFromHex(*S, Out);
    };
    auto Str = [&](llvm::StringRef Key, std::string &Out) {
      std::optional<llvm::StringRef> S = F ? F->getString(Key) : std::nullopt;
      if (S)
        Out = S->str();
      return S.has_value();
    };
    if (!Hex("path_hex", E.Path) || !Hex("temp_hex", E.Temp) ||
        !Hex("old_contents_hex", E.OldText) || !Str("old_sha256", E.OldHash) ||
        !Str("new_sha256", E.NewHash))
      return Bad("an entry lacks a field");
    Entries.push_back(std::move(E));
  }
  return std::make_pair(State->str(), std::move(Entries));
}

/// Contents of \p Path; nullopt when it cannot be read (or does not exist).
std::optional<std::string> contentsOf(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return std::nullopt;
  return (*Buf)->getBuffer().str();
}

void syncDirectoryOf(llvm::StringRef Path) {
  std::string Dir = llvm::sys::path::parent_path(Path).str();
  int FD = ::open(Dir.empty() ? "." : Dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (FD >= 0) {
    ::fsync(FD);
    ::close(FD);
  }
}

/// Removes the journal once its run is over; the directory is synced so the
/// removal cannot come back after a crash while renames do not.
void removeJournal(llvm::StringRef Root) {
  std::string Path = journalPath(Root);
  llvm::sys::fs::remove(Path);
  llvm::sys::fs::remove(Path + ".new");
  syncDirectoryOf(Path);
}

/// Test hook (TMA_MODERNIZE_TEST_FAULT), to put a run into the states a kill
/// or a failing disk leaves: "temp:<file name>" fails the temporary file of
/// that file; "exit-after-temps:N" and "exit-after-renames:N" end the
/// process abruptly (_exit, no clean-up) after N of them.
struct FaultHook {
  std::string FailTempOf;
  int ExitAfterTemps = -1, ExitAfterRenames = -1;
  FaultHook() {
    const char *V = std::getenv("TMA_MODERNIZE_TEST_FAULT");
    if (!V)
      return;
    llvm::StringRef S(V);
    if (S.consume_front("temp:"))
      FailTempOf = S.str();
    else if (S.consume_front("exit-after-temps:"))
      S.getAsInteger(10, ExitAfterTemps);
    else if (S.consume_front("exit-after-renames:"))
      S.getAsInteger(10, ExitAfterRenames);
  }
  static void exitNow() { ::_exit(70); }
};


/// The recovery proper; the caller holds the root's lock.
Recovery recoverLocked(llvm::StringRef Root) {
  Recovery Out;
  std::string Path = journalPath(Root);
  if (!llvm::sys::fs::exists(Path)) {
    // Killed while writing the first journal: no temporary file exists yet.
    llvm::sys::fs::remove(Path + ".new");
    return Out;
  }
  auto J = readJournal(Path);
  if (!J) {
    Out.What = Recovery::Stuck;
    Out.Problems.push_back(llvm::toString(J.takeError()));
    return Out;
  }
  auto &[State, Entries] = *J;
  if (State == "preparing") {
    for (const JournalEntry &E : Entries)
      llvm::sys::fs::remove(E.Temp);
    removeJournal(Root);
    Out.What = Recovery::Discarded;
    return Out;
  }
  // Committing: each file is replaced already, or still the original with
  // its complete temporary next to it, unless someone changed it since.
  bool CanFinish = true;
  std::vector<const JournalEntry *> Pending, Replaced;
  for (const JournalEntry &E : Entries) {
    std::optional<std::string> Now = contentsOf(E.Path);
    std::string Hash = Now ? sha256(*Now) : "";
    if (Hash == E.NewHash) {
      Replaced.push_back(&E);
    } else if (Hash == E.OldHash) {
      Pending.push_back(&E);
      std::optional<std::string> Temp = contentsOf(E.Temp);
      CanFinish &= Temp && sha256(*Temp) == E.NewHash;
    } else {
      Out.Problems.push_back("'" + E.Path + "' " +
                             (Now ? "has changed since the interrupted run"
                                  : "cannot be read") +
                             ": it is neither its contents before that run nor after it");
    }
  }
  if (!Out.Problems.empty()) {
    Out.What = Recovery::Stuck;
    return Out;
  }
  if (CanFinish) {
    for (const JournalEntry *E : Pending) {
      if (std::error_code EC = llvm::sys::fs::rename(E->Temp, E->Path)) {
        Out.Problems.push_back("cannot replace '" + E->Path + "': " + EC.message());
        Out.What = Recovery::Stuck;
        return Out;
      }
      Out.Files.push_back(E->Path);
      syncDirectoryOf(E->Path);
    }
    removeJournal(Root);
    Out.What = Recovery::Finished;
    return Out;
  }
  // A temporary file is missing or damaged: put back what was replaced.
  for (const JournalEntry *E : Replaced) {
    if (llvm::Error Err = writeFileAtomically(E->Path, E->OldText)) {
      Out.Problems.push_back(llvm::toString(std::move(Err)));
      Out.What = Recovery::Stuck;
      return Out;
    }
    Out.Files.push_back(E->Path);
  }
  for (const JournalEntry &E : Entries)
    llvm::sys::fs::remove(E.Temp);
  removeJournal(Root);
  Out.What = Recovery::Undone;
  return Out;
}

} // namespace

Recovery recoverInterruptedRun(llvm::StringRef Root, bool Apply,
                               llvm::function_ref<void()> Waiting) {
  Recovery Out;
  std::string Path = journalPath(Root);
  bool Journal = llvm::sys::fs::exists(Path);
  // A run killed while writing its first journal leaves only `.new` (and no
  // temporary file yet): removed, under the lock, by a run that writes.
  if (!Journal && !(Apply && llvm::sys::fs::exists(Path + ".new")))
    return Out;
  if (!Journal) {
    if (llvm::Expected<RootLock> Lock = RootLock::acquire(Root, Waiting))
      recoverLocked(Root);
    else
      llvm::consumeError(Lock.takeError());
    return Out;
  }
  // A journal seen without the lock may belong to a run writing right now:
  // look again once that run is over (a run that only reads too, which
  // would otherwise call a run in progress interrupted).
  if (!Apply) {
    if (llvm::Expected<RootLock> Lock = RootLock::acquire(Root, Waiting)) {
      if (!llvm::sys::fs::exists(Path))
        return Out;
    } else {
      llvm::consumeError(Lock.takeError());
    }
    Out.What = Recovery::Pending;
    return Out;
  }
  llvm::Expected<RootLock> Lock = RootLock::acquire(Root, Waiting);
  if (!Lock) {
    Out.What = Recovery::Stuck;
    Out.Problems.push_back(llvm::toString(Lock.takeError()));
    return Out;
  }
  return recoverLocked(Root);
}

/// Each edited file read again, compared with what was analysed, and its new
/// contents; a file that changed or whose edits do not apply goes to
/// \p Failed, one with several hard links to \p HardLinks.
static std::vector<JournalEntry> prepareEntries(RunResult &R, const std::string &Tag,
                                                std::map<std::string, Blocker> &Failed,
                                                std::map<std::string, unsigned> &HardLinks) {
  std::vector<JournalEntry> Entries;
  for (auto &[File, List] : R.Edits) {
    const std::string &Old = R.Original[File];
    std::optional<std::string> Now = contentsOf(File);
    if (!Now) {
      Failed.insert_or_assign(File, blockerFor(ReasonID::CommitFileUnreadable, {File}, {}));
      continue;
    }
    if (*Now != Old) {
      Failed.insert_or_assign(File, blockerFor(ReasonID::CommitFileChanged, {File}, {}));
      continue;
    }
    llvm::Expected<std::string> New = applyEdits(Old, File, List);
    if (!New) {
      Failed.insert_or_assign(File, blockerFor(ReasonID::CommitEditsDoNotApply,
                                               {File, llvm::toString(New.takeError())}, {}));
      continue;
    }
    // A rename gives the path a new inode; other hard links keep the old
    // one. Said, not refused: like an editor's save-by-rename.
    llvm::sys::fs::file_status Status;
    if (!llvm::sys::fs::status(File, Status) && Status.getLinkCount() > 1)
      HardLinks[File] = Status.getLinkCount();
    Entries.push_back({File, temporaryNameFor(File, Tag), sha256(Old), sha256(*New), Old,
                       std::move(*New)});
  }
  return Entries;
}

/// The temporary file of each entry, in order, until one fails (into
/// \p Failed); \p Created lists those written.
static void writeTemporaries(const std::vector<JournalEntry> &Entries, const FaultHook &Fault,
                             std::map<std::string, Blocker> &Failed,
                             std::vector<std::string> &Created) {
  int Temps = 0;
  for (const JournalEntry &E : Entries) {
    llvm::Error Err = llvm::Error::success();
    if (llvm::sys::path::filename(E.Path) == Fault.FailTempOf)
      Err = llvm::createStringError(std::make_error_code(std::errc::io_error),
                                    "cannot create a temporary file next to '%s': injected "
                                    "fault (TMA_MODERNIZE_TEST_FAULT)",
                                    E.Path.c_str());
    else
      Err = writeTemporaryFor(E.Path, E.Temp, E.NewText);
    if (Err) {
      Failed.insert_or_assign(E.Path, blockerFor(ReasonID::CommitTemporaryFailed,
                                                 {llvm::toString(std::move(Err))}, {}));
      break;
    }
    Created.push_back(E.Temp);
    if (++Temps == Fault.ExitAfterTemps)
      FaultHook::exitNow();
  }
}

/// After the renames: the hard-link warnings, the directories synced, the
/// journal removed, the files listed as written.
static void finishWrites(llvm::StringRef Root, const std::vector<JournalEntry> &Entries,
                         const std::map<std::string, unsigned> &HardLinks, CommitResult &Out) {
  std::set<std::string> Dirs;
  for (const JournalEntry &E : Entries) {
    auto Links = HardLinks.find(E.Path);
    if (Links != HardLinks.end())
      Out.Warnings.push_back("'" + E.Path + "' had " + std::to_string(Links->second) +
                             " hard links: it is now a new file, and its other names "
                             "keep the old contents");
  }
  for (const JournalEntry &E : Entries)
    if (Dirs.insert(llvm::sys::path::parent_path(E.Path).str()).second)
      syncDirectoryOf(E.Path);
  removeJournal(Root);
  for (const JournalEntry &E : Entries)
    Out.Written.push_back(E.Path);
}

CommitResult commitEdits(RunResult &R, llvm::StringRef Root,
                         llvm::function_ref<void()> Waiting) {
  CommitResult Out;
  if (R.Edits.empty())
    return Out;
  FaultHook Fault;
  std::string Tag;
  for (int I = 0; I < 8; ++I)
    Tag += "0123456789abcdef"[llvm::sys::Process::GetRandomNumber() % 16];

  // Refuses every accepted unit that edits \p File, then recomputes the edits.
  // The blocker of a file comes without a place: each unit's is its edit.
  auto RefuseFile = [&](const std::string &File, const Blocker &Why) {
    for (size_t U = 0; U < R.ThePlan.Units.size(); ++U) {
      if (R.ThePlan.Units[U].Refused)
        continue;
      for (const TextEdit &E : R.ThePlan.Units[U].Edits)
        if (E.File == File) {
          Blocker AtEdit = Why;
          AtEdit.Where = {E.File, E.Offset, 0, 0};
          R.ThePlan.refuseUnit(U, AtEdit);
          break;
        }
    }
  };
  auto RefuseAll = [&](ReasonID Reason, llvm::ArrayRef<std::string> Args) {
    Blocker Why = blockerFor(Reason, Args, {});
    for (size_t U = 0; U < R.ThePlan.Units.size(); ++U)
      if (!R.ThePlan.Units[U].Refused)
        R.ThePlan.refuseUnit(U, Why);
    collectAcceptedEdits(R);
    Out.Errors.push_back(Why.Message + "; nothing was written");
  };

  llvm::Expected<RootLock> Lock = RootLock::acquire(Root, Waiting);
  if (!Lock) {
    RefuseAll(ReasonID::CommitLockFailed, {llvm::toString(Lock.takeError())});
    return Out;
  }
  // A run killed while writing after this run looked for a journal: finish
  // it first, or write nothing.
  Recovery Before = recoverLocked(Root);
  if (Before.What == Recovery::Stuck) {
    RefuseAll(ReasonID::CommitJournalStuck, {journalPath(Root), Before.Problems.front()});
    return Out;
  }

  // Each round either writes everything left or refuses at least one unit.
  for (;;) {
    std::map<std::string, Blocker> Failed; // file -> why
    std::map<std::string, unsigned> HardLinks;  // file -> link count, when > 1
    std::vector<JournalEntry> Entries = prepareEntries(R, Tag, Failed, HardLinks);
    if (Failed.empty() && Entries.empty())
      return Out;

    std::vector<std::string> Created;
    auto RemoveTemps = [&] {
      for (const std::string &T : Created)
        llvm::sys::fs::remove(T);
    };
    if (Failed.empty()) {
      if (llvm::Error E = writeJournal(Root, "preparing", Entries)) {
        RefuseAll(ReasonID::CommitJournalNotWritten, {llvm::toString(std::move(E))});
        return Out;
      }
      writeTemporaries(Entries, Fault, Failed, Created);
      if (!Failed.empty()) {
        RemoveTemps();
        removeJournal(Root);
      }
    }
    if (!Failed.empty()) {
      for (const auto &[File, Why] : Failed) {
        Out.Errors.push_back(Why.Message);
        RefuseFile(File, Why);
      }
      collectAcceptedEdits(R);
      continue;
    }

    // Every temporary file is complete: from here the run can always be
    // finished, by this process or by the next run's recovery.
    if (llvm::Error E = writeJournal(Root, "committing", Entries)) {
      RemoveTemps();
      removeJournal(Root);
      RefuseAll(ReasonID::CommitJournalNotWritten, {llvm::toString(std::move(E))});
      return Out;
    }
    syncDirectoryOf(journalPath(Root));
    int Renames = 0;
    for (const JournalEntry &E : Entries) {
      if (std::error_code EC = llvm::sys::fs::rename(E.Temp, E.Path)) {
        // Rare (the temporary sits next to the file): undo what is done.
        Recovery Back = recoverLocked(Root);
        if (Back.What == Recovery::Finished)
          break; // the recovery's own rename succeeded
        if (Back.What == Recovery::Undone)
          RefuseAll(ReasonID::CommitReplaceFailedRestored, {E.Path, EC.message()});
        else
          RefuseAll(ReasonID::CommitReplaceFailedKept, {E.Path, EC.message(), journalPath(Root)});
        return Out;
      }
      if (++Renames == Fault.ExitAfterRenames)
        FaultHook::exitNow();
    }
    finishWrites(Root, Entries, HardLinks, Out);
    return Out;
  }
}

} // namespace tma
