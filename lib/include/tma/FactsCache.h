// Where a TU's facts are kept between runs: a directory of FactsJson
// documents, one per TU (and pre-filter mode), each with the fingerprint of
// the inputs it was computed from. The facts cache (--facts-cache) and the
// facts directories of --export-facts / --plan-from share the format.
#pragma once

#include "tma/Engine.h"

#include "llvm/Support/Error.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace tma {

/// Content hashes of files (xxh3, 128 bits, hex), each file read once per
/// object; safe to share between threads. "" for a file that cannot be read.
class FileHashes {
public:
  std::string of(const std::string &Path);

private:
  std::mutex Lock;
  std::map<std::string, std::string> Known;
};

/// The key of \p In's facts: the facts format, the tool build, the file's
/// path, its flags and every option the analysis reads. \p PrefilterApplies:
/// whether the pre-filter may skip the TU (round one) or not (a TU named by
/// the second round, or --no-prefilter).
std::string factsKey(const TUInput &In, const EngineOptions &Opts, bool PrefilterApplies);

/// \p Key with the content hash of every file \p TU read: its own file, the
/// headers of both passes, and the files the pre-filter looked at.
InputFingerprint fingerprintOf(std::string Key, const TUStatus &TU, FileHashes &Hashes);

/// Whether every file of \p F still has the content it had.
bool fingerprintHolds(const InputFingerprint &F, FileHashes &Hashes);

/// The document of TU \p File in a facts directory: its base name and a
/// hash of its path ("kernels.cu-1f2e....json"); ".full" before ".json"
/// for facts computed without the pre-filter.
std::string factsFileName(llvm::StringRef File, bool PrefilterApplies = true);

/// Writes \p Unit to \p Path (through a temporary file and a rename, so a
/// reader never sees half a document).
llvm::Error writeFactsFile(const std::string &Path, const TUFacts &Unit);

/// Reads the document at \p Path.
llvm::Expected<TUFacts> readFactsFile(const std::string &Path);

/// The cached facts of \p File under \p Key in \p Dir, when they exist and
/// every input still has the content it had; nothing otherwise.
std::optional<TUFacts> loadCachedFacts(const std::string &Dir, const std::string &File,
                                       const std::string &Key, bool PrefilterApplies,
                                       FileHashes &Hashes);

} // namespace tma

namespace tma {

/// --export-facts: writes the document of every unit of \p Units to \p Dir
/// (created when missing), one file per TU.
llvm::Error exportFacts(const std::string &Dir, const std::vector<TUFacts> &Units);

/// --plan-from: the documents of \p Inputs in \p Dir, in input order. An
/// error names a TU whose document is missing, or was computed from other
/// inputs (the file or a header edited since, other flags, another build of
/// the tool): its shard must export it again.
llvm::Expected<std::vector<TUFacts>> loadExportedFacts(const std::string &Dir,
                                                       const std::vector<TUInput> &Inputs,
                                                       const EngineOptions &Opts);

/// The sources of shard \p Index (from 1) of \p Count: every Count-th one,
/// starting with the Index-th, so that shards of one list never overlap and
/// together hold all of it.
std::vector<TUInput> shardOf(const std::vector<TUInput> &Inputs, unsigned Index, unsigned Count);

} // namespace tma

namespace tma {

/// The key of one verification parse: \p TU (its file, flags, the errors
/// of its original and the content of every file it read) with \p Edits
/// applied (\p Overlay: the edited texts). Equal keys give the same outcome.
std::string verificationKey(const TUStatus &TU,
                            const std::map<std::string, std::vector<TextEdit>> &Edits,
                            const std::map<std::string, std::string> &Overlay,
                            FileHashes &Hashes);

/// A verification's outcome (the first new error, "" for none) kept in the
/// facts cache \p Dir under \p Key, or nothing.
std::optional<std::string> loadVerification(const std::string &Dir, const std::string &Key);
void saveVerification(const std::string &Dir, const std::string &Key, const std::string &Outcome);

} // namespace tma
