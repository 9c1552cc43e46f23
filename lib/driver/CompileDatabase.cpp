#include "tma/CompileDatabase.h"
#include "tma/SourceText.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/YAMLParser.h"

namespace tma {

TranslatedCommand translateFlags(llvm::ArrayRef<std::string> CommandLine,
                                 llvm::StringRef File, llvm::StringRef Directory);

static int smNumber(llvm::StringRef Arch) {
  // "sm_90a" -> 90, "compute_90a" -> 90
  Arch.consume_front("sm_") || Arch.consume_front("compute_");
  int N = 0;
  Arch.take_while([](char C) { return C >= '0' && C <= '9'; }).getAsInteger(10, N);
  return N;
}

/// Keeps the highest real architecture: TMA code is guarded for sm_90+.
static void noteArch(TranslatedCommand &T, llvm::StringRef Arch) {
  Arch = Arch.trim();
  if (Arch.starts_with("compute_"))
    Arch = Arch.drop_front(8);
  std::string Sm = Arch.starts_with("sm_") ? Arch.str() : "sm_" + Arch.str();
  if (Arch.empty() || Arch == "native" || Arch == "all" || Arch == "all-major")
    return;
  if (unsigned N = smNumber(Sm); N && (!T.LowestSm || N < T.LowestSm))
    T.LowestSm = N;
  if (T.GpuArch.empty() || smNumber(Sm) > smNumber(T.GpuArch) ||
      (smNumber(Sm) == smNumber(T.GpuArch) && llvm::StringRef(Sm).ends_with("a")))
    T.GpuArch = Sm;
}

static void noteGencode(TranslatedCommand &T, llvm::StringRef Spec) {
  // arch=compute_90a,code=sm_90a  |  arch=compute_90a,code=[sm_90a,compute_90a]
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Spec.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    P = P.trim().trim("[]");
    if (P.consume_front("code=") || P.consume_front("arch="))
      P = P.trim("[]");
    if (P.starts_with("sm_") || P.starts_with("compute_"))
      noteArch(T, P);
  }
}

TranslatedCommand translateCommand(llvm::ArrayRef<std::string> CommandLine,
                                   llvm::StringRef File, llvm::StringRef Directory) {
  TranslatedCommand T = translateFlags(CommandLine, File, Directory);
  if (Directory.empty())
    return T;
  // Relative paths in a database entry are relative to its directory, not to
  // wherever the tool runs.
  auto Abs = [&](llvm::StringRef P) {
    if (P.empty() || llvm::sys::path::is_absolute(P))
      return P.str();
    llvm::SmallString<256> A(Directory);
    llvm::sys::path::append(A, P);
    return std::string(A);
  };
  for (size_t I = 0; I < T.Args.size(); ++I) {
    llvm::StringRef A(T.Args[I]);
    for (llvm::StringRef Flag : {"-isystem", "-iquote", "-include", "-I"}) {
      if (A == Flag && I + 1 < T.Args.size()) {
        T.Args[I + 1] = Abs(T.Args[I + 1]);
        ++I;
        break;
      }
      if (A.starts_with(Flag) && A.size() > Flag.size()) {
        T.Args[I] = Flag.str() + Abs(A.drop_front(Flag.size()));
        break;
      }
    }
  }
  return T;
}

/// LLVM's reason for a failed expansion, reworded for a message.
static std::string responseFileProblem(std::string Reason) {
  llvm::StringRef R(Reason);
  if (R.consume_front("recursive expansion of: ")) // '<file>'
    return ("response file " + R + " includes itself").str();
  if (R.consume_front("cannot not open file ")) // sic, LLVM's spelling
    return ("cannot read response file " + R).str();
  return Reason;
}

namespace {

// Flags whose value is the next argument, dropped with it.
const llvm::StringSet<> DropWithValue = {
    "-o", "-ccbin", "--compiler-bindir", "-MF", "-MT", "-MQ", "--threads", "-t",
    "-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options", "-Xcudafe",
    "-Xfatbin", "-Xarchive", "-maxrregcount", "--maxrregcount", "-Xlinker",
    "--linker-options", "-L", "-l", "--library-path", "--library", "-odir",
    "--output-directory", "-diag-suppress", "--diag-suppress", "-split-compile",
    "--split-compile", "--options-file", "-optf"};
// Flags with no meaning for an analysis; dropped alone.
const llvm::StringSet<> DropAlone = {
    "-c", "-dc", "-dw", "-lineinfo", "--generate-line-info", "-G", "--device-debug",
    "-g", "--use_fast_math", "-use_fast_math", "--expt-relaxed-constexpr",
    "-expt-relaxed-constexpr", "--extended-lambda", "-extended-lambda",
    "--expt-extended-lambda", "-expt-extended-lambda", "-forward-unknown-to-host-compiler",
    "--forward-unknown-to-host-compiler", "-MD", "-MMD", "-M", "-MM", "-MP",
    "--keep", "-keep", "-v", "--verbose", "-w", "--disable-warnings", "-Werror",
    "--resource-usage", "-res-usage", "--source-in-ptx", "-src-in-ptx",
    "-static-global-template-stub=true", "-static-global-template-stub=false"};

/// One pass over a command's arguments (response files expanded). Each
/// group of flags has its own method, which says whether it took \p A.
class FlagTranslator {
public:
  FlagTranslator(llvm::ArrayRef<const char *> Argv, TranslatedCommand &T) : Argv(Argv), T(T) {}

  void run(llvm::StringRef FileName) {
    for (I = 1; I < Argv.size(); ++I) {
      llvm::StringRef A(Argv[I]);
      // The input itself.
      if (llvm::sys::path::filename(A) == FileName && !A.starts_with("-"))
        continue;
      if (!(dropped(A) || language(A) || architecture(A) || relocatable(A) ||
            hostCompiler(A) || includeOrMacro(A) || standard(A) || defaultStream(A)))
        other(A);
    }
  }

private:
  llvm::StringRef next() {
    return I + 1 < Argv.size() ? llvm::StringRef(Argv[++I]) : llvm::StringRef();
  }
  void drop(llvm::StringRef What) { T.Dropped.push_back(What.str()); }

  bool dropped(llvm::StringRef A) {
    if (DropWithValue.contains(A)) {
      drop((A + " " + next()).str());
      return true;
    }
    if (DropAlone.contains(A) || A.starts_with("-O") || A.starts_with("-o") ||
        A.starts_with("--threads=") || A.starts_with("-ccbin=") ||
        A.starts_with("--compiler-bindir=") || A.starts_with("-Xptxas=") ||
        A.starts_with("-Xcudafe=") || A.starts_with("-MF") || A.starts_with("-MT") ||
        A.starts_with("-maxrregcount=") || A.starts_with("--maxrregcount=") ||
        A.starts_with("--diag-suppress=") || A.starts_with("-diag-suppress=") ||
        A.starts_with("--use_fast_math") || A.starts_with("-Xfatbin=")) {
      drop(A);
      return true;
    }
    return false;
  }

  /// The engine parses every TU as CUDA itself.
  bool language(llvm::StringRef A) {
    if (A == "-x" || A == "--x") {
      drop((A + " " + next()).str());
      return true;
    }
    if (A.starts_with("-x") && A.size() > 2) {
      drop(A);
      return true;
    }
    return false;
  }

  bool architecture(llvm::StringRef A) {
    if (A == "-arch" || A == "--gpu-architecture" || A == "-code" || A == "--gpu-code") {
      noteArch(T, next());
      return true;
    }
    if (A.consume_front("-arch=") || A.consume_front("--gpu-architecture=") ||
        A.consume_front("-code=") || A.consume_front("--gpu-code=")) {
      llvm::SmallVector<llvm::StringRef, 4> Archs;
      A.split(Archs, ',');
      for (llvm::StringRef X : Archs)
        noteArch(T, X);
      return true;
    }
    if (A == "-gencode" || A == "--generate-code") {
      noteGencode(T, next());
      return true;
    }
    if (A.consume_front("-gencode=") || A.consume_front("--generate-code=")) {
      noteGencode(T, A);
      return true;
    }
    if (A.starts_with("--cuda-gpu-arch=") || A.starts_with("--offload-arch=")) {
      noteArch(T, A.substr(A.find('=') + 1));
      return true;
    }
    return false;
  }

  /// Relocatable device code changes what clang accepts (device launches).
  bool relocatable(llvm::StringRef A) {
    if (A == "-rdc=true" || A == "--relocatable-device-code=true" || A == "-fgpu-rdc" ||
        (A == "-rdc" && I + 1 < Argv.size() && llvm::StringRef(Argv[I + 1]) == "true")) {
      if (A == "-rdc")
        ++I;
      T.Args.push_back("-fgpu-rdc");
      return true;
    }
    if (A == "-rdc=false" || A == "--relocatable-device-code=false") {
      drop(A);
      return true;
    }
    return false;
  }

  /// Host compiler flags: only what changes parsing is kept.
  bool hostCompiler(llvm::StringRef A) {
    if (!(A == "-Xcompiler" || A == "--compiler-options" || A.starts_with("-Xcompiler=") ||
          A.starts_with("--compiler-options=")))
      return false;
    llvm::StringRef Val = A.contains('=') ? A.substr(A.find('=') + 1) : next();
    llvm::SmallVector<llvm::StringRef, 4> Host;
    Val.split(Host, ',');
    for (llvm::StringRef H : Host) {
      if (H.starts_with("-D") || H.starts_with("-U") || H.starts_with("-I") ||
          H.starts_with("-std=") || H == "-fopenmp")
        T.Args.push_back(H == "-fopenmp" ? "-D_OPENMP=201511" : H.str());
      else
        drop(("-Xcompiler " + H).str());
    }
    return true;
  }

  /// Include paths and macros: kept, nvcc's spellings normalised.
  bool includeOrMacro(llvm::StringRef A) {
    if (A == "-I" || A == "-isystem" || A == "-include" || A == "-D" || A == "-U" ||
        A == "-iquote" || A == "--include-path" || A == "--system-include" ||
        A == "--define-macro" || A == "--undefine-macro" || A == "--pre-include") {
      static const llvm::StringMap<std::string> Long = {
          {"--include-path", "-I"}, {"--system-include", "-isystem"},
          {"--define-macro", "-D"}, {"--undefine-macro", "-U"}, {"--pre-include", "-include"}};
      std::string Flag = Long.count(A) ? Long.lookup(A) : A.str();
      T.Args.push_back(Flag);
      T.Args.push_back(next().str());
      return true;
    }
    if (A.consume_front("-isystem=")) {
      T.Args.push_back("-isystem");
      T.Args.push_back(A.str());
      return true;
    }
    if (A.consume_front("--include-path=")) {
      T.Args.push_back("-I" + A.str());
      return true;
    }
    if (A.consume_front("--define-macro=")) {
      T.Args.push_back("-D" + A.str());
      return true;
    }
    if (A.starts_with("-I") || A.starts_with("-D") || A.starts_with("-U") ||
        A.starts_with("-isystem") || A.starts_with("-iquote") || A.starts_with("-include")) {
      T.Args.push_back(A.str());
      return true;
    }
    return false;
  }

  bool standard(llvm::StringRef A) {
    if (A.consume_front("--std=") || A.consume_front("-std=")) {
      T.Args.push_back("-std=" + A.str());
      return true;
    }
    if (A == "-std" || A == "--std") {
      T.Args.push_back("-std=" + next().str());
      return true;
    }
    return false;
  }

  /// Anything else: nvcc's own flags mean nothing to clang; a clang or gcc
  /// command's -f/-W/-m flags are kept only when they are clang's too (gcc-only
  /// flags would be errors in clang: warnings are kept, the rest dropped).
  /// nvcc's `--default-stream per-thread` (clang's
  /// `-fgpu-default-stream=per-thread`) defines the macro the CUDA headers
  /// read: the stream a launch without one is enqueued on is then the
  /// thread's, which a graph may capture. `legacy` and `null` are the
  /// default and define nothing.
  bool defaultStream(llvm::StringRef A) {
    llvm::StringRef Value;
    std::string Flag = A.str();
    if (A == "--default-stream" || A == "-default-stream") {
      Value = next();
      Flag += " " + Value.str();
    } else if (!(A.consume_front("--default-stream=") || A.consume_front("-default-stream=") ||
                 A.consume_front("-fgpu-default-stream="))) {
      return false;
    } else {
      Value = A;
    }
    if (Value == "per-thread")
      T.Args.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
    else
      drop(Flag);
    return true;
  }

  void other(llvm::StringRef A) {
    if (!T.FromNvcc && A.starts_with("-W"))
      T.Args.push_back(A.str());
    else
      drop(A);
  }

  llvm::ArrayRef<const char *> Argv;
  TranslatedCommand &T;
  size_t I = 1;
};

} // namespace

TranslatedCommand translateFlags(llvm::ArrayRef<std::string> CommandLine,
                                 llvm::StringRef File, llvm::StringRef Directory) {
  TranslatedCommand T;
  if (CommandLine.empty())
    return T;
  // Response files (@file) are expanded; their contents are read, not run.
  // A relative name is the entry's directory's, like the other paths of the
  // entry. A failure is reported by the caller, not printed by LLVM: the
  // expansion stops there, and the arguments read so far are used.
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver(Alloc);
  llvm::SmallVector<const char *, 64> Argv;
  for (const std::string &A : CommandLine)
    Argv.push_back(Saver.save(A).data());
  llvm::cl::ExpansionContext Expansion(Alloc, llvm::cl::TokenizeGNUCommandLine);
  Expansion.setCurrentDir(Directory);
  if (llvm::Error E = Expansion.expandResponseFiles(Argv))
    T.ResponseFileProblem = responseFileProblem(llvm::toString(std::move(E))) +
                            "; the response files from there on are not read";

  llvm::StringRef Compiler = llvm::sys::path::filename(Argv[0]);
  T.FromNvcc = Compiler.contains("nvcc");
  // `/opt/cuda-12.0/bin/nvcc`: the command's own toolkit, for its version.
  llvm::StringRef Bin = llvm::sys::path::parent_path(Argv[0]);
  if (T.FromNvcc && llvm::sys::path::is_absolute(Argv[0]) &&
      llvm::sys::path::filename(Bin) == "bin")
    T.CudaRoot = llvm::sys::path::parent_path(Bin).str();
  FlagTranslator(Argv, T).run(llvm::sys::path::filename(File));
  return T;
}

CompileDatabase::CompileDatabase() = default;
CompileDatabase::CompileDatabase(CompileDatabase &&) = default;
CompileDatabase &CompileDatabase::operator=(CompileDatabase &&) = default;
CompileDatabase::~CompileDatabase() = default;

/// clang's "Expected array." as "expected array", to follow "...: ".
static std::string reason(llvm::StringRef Why) {
  std::string R = Why.trim().rtrim('.').str();
  if (R.size() > 1 && llvm::isUpper(R[0]) && llvm::isLower(R[1]))
    R[0] = llvm::toLower(R[0]);
  return R;
}

namespace {
/// clang's expandResponseFiles() wrapper, without its printing of LLVM's raw
/// error on stderr: the response files are expanded before clang infers a
/// command for a file the database does not list (so that the inferred
/// command has their flags), and what fails to expand is left as it is, for
/// translateCommand to expand again and report.
class ResponseFilesExpanded : public clang::tooling::CompilationDatabase {
public:
  explicit ResponseFilesExpanded(std::unique_ptr<clang::tooling::CompilationDatabase> Base)
      : Base(std::move(Base)) {}

  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(llvm::StringRef File) const override {
    return expand(Base->getCompileCommands(File));
  }
  std::vector<std::string> getAllFiles() const override { return Base->getAllFiles(); }
  std::vector<clang::tooling::CompileCommand> getAllCompileCommands() const override {
    return expand(Base->getAllCompileCommands());
  }

private:
  static std::vector<clang::tooling::CompileCommand>
  expand(std::vector<clang::tooling::CompileCommand> Commands) {
    for (clang::tooling::CompileCommand &C : Commands) {
      if (llvm::none_of(C.CommandLine,
                        [](const std::string &A) { return llvm::StringRef(A).starts_with("@"); }))
        continue;
      llvm::BumpPtrAllocator Alloc;
      llvm::SmallVector<const char *, 64> Argv;
      for (const std::string &A : C.CommandLine)
        Argv.push_back(A.c_str());
      llvm::cl::ExpansionContext Expansion(Alloc, llvm::cl::TokenizeGNUCommandLine);
      Expansion.setCurrentDir(C.Directory);
      llvm::consumeError(Expansion.expandResponseFiles(Argv));
      // Argv points into CommandLine: copied before it is replaced.
      std::vector<std::string> Expanded(Argv.begin(), Argv.end());
      C.CommandLine = std::move(Expanded);
    }
    return Commands;
  }

  std::unique_ptr<clang::tooling::CompilationDatabase> Base;
};
} // namespace

/// The JSON database in \p Text, read from \p Path. Its syntax is checked
/// first so that a syntax error is one message naming the file, not the YAML
/// parser's lines printed on stderr by clang's loader.
static void loadJsonDatabase(llvm::StringRef Path, llvm::StringRef Text, CompileDatabase &DB) {
  using clang::tooling::JSONCommandLineSyntax;
  using clang::tooling::JSONCompilationDatabase;
  {
    llvm::SourceMgr SM;
    std::string SyntaxError;
    SM.setDiagHandler(
        [](const llvm::SMDiagnostic &D, void *Out) {
          std::string &S = *static_cast<std::string *>(Out);
          if (S.empty())
            S = "line " + std::to_string(D.getLineNo()) + ", column " +
                std::to_string(D.getColumnNo() + 1) + ": " + reason(D.getMessage());
        },
        &SyntaxError);
    llvm::yaml::Stream Stream(Text, SM);
    if (!Stream.validate()) {
      DB.Error = "cannot load '" + Path.str() + "': " +
                 (SyntaxError.empty() ? std::string("not valid JSON") : SyntaxError);
      return;
    }
  }
  std::string Why;
  std::unique_ptr<JSONCompilationDatabase> Json =
      JSONCompilationDatabase::loadFromBuffer(Text, Why, JSONCommandLineSyntax::AutoDetect);
  if (!Json) {
    DB.Error = "cannot load '" + Path.str() + "': " + reason(Why);
    return;
  }
  // clang takes a relative "directory" as it is, so that the entry's file
  // is looked for relative to wherever the tool runs, and matches nothing.
  // The database's own directory is the one anchor that does not depend on
  // that (as proposed for clang: llvm/llvm-project#127734): the database is
  // rebuilt with the directories resolved against it, entries in order.
  llvm::StringRef DatabaseDir = llvm::sys::path::parent_path(Path);
  std::vector<clang::tooling::CompileCommand> All = Json->getAllCompileCommands();
  llvm::json::Array Entries;
  for (const clang::tooling::CompileCommand &C : All) {
    std::string Directory = C.Directory;
    if (llvm::sys::path::is_relative(C.Directory)) {
      llvm::SmallString<256> Resolved(DatabaseDir);
      llvm::sys::path::append(Resolved, C.Directory);
      llvm::sys::path::remove_dots(Resolved, /*remove_dot_dot=*/false);
      Directory = std::string(Resolved);
      if (DB.RelativeDirectories++ == 0) {
        DB.FirstRelativeDirectory = C.Directory;
        DB.FirstRelativeDirectoryResolved = Directory;
      }
    }
    llvm::json::Object Entry{{"directory", Directory},
                             {"file", C.Filename},
                             {"arguments", llvm::json::Array(C.CommandLine)}};
    if (!C.Output.empty())
      Entry["output"] = C.Output;
    Entries.push_back(std::move(Entry));
  }
  if (DB.RelativeDirectories) {
    std::string Rebuilt;
    llvm::raw_string_ostream(Rebuilt) << llvm::json::Value(std::move(Entries));
    Json = JSONCompilationDatabase::loadFromBuffer(Rebuilt, Why, JSONCommandLineSyntax::Gnu);
    if (!Json) {
      DB.Error = "cannot load '" + Path.str() + "': " + reason(Why);
      return;
    }
  }
  // As clang's loader does, with its own expansion of response files.
  using namespace clang::tooling;
  DB.Commands = inferTargetAndDriverMode(
      inferMissingCompileCommands(std::make_unique<ResponseFilesExpanded>(std::move(Json))));
}

/// Loads the database of \p Dir (absolute) into \p DB; false when \p Dir holds
/// neither file.
static bool loadFromDirectory(llvm::StringRef Dir, CompileDatabase &DB) {
  for (llvm::StringRef Name : {"compile_commands.json", "compile_flags.txt"}) {
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, Name);
    if (!llvm::sys::fs::exists(Path))
      continue;
    DB.File = std::string(Path);
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Text =
        llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/true,
                                    /*IsVolatile=*/true);
    if (!Text) {
      DB.Error = "cannot read '" + DB.File + "': " + reason(Text.getError().message());
      return true;
    }
    if (Name == "compile_commands.json") {
      loadJsonDatabase(DB.File, (*Text)->getBuffer(), DB);
      return true;
    }
    std::string Why;
    DB.Commands = clang::tooling::FixedCompilationDatabase::loadFromBuffer(
        Dir, (*Text)->getBuffer(), Why);
    if (!DB.Commands)
      DB.Error = "cannot load '" + DB.File + "': " + reason(Why);
    return true;
  }
  return false;
}

CompileDatabase loadCompileDatabase(llvm::StringRef Dir, llvm::StringRef FirstSource) {
  CompileDatabase DB;
  // Absolute, so that messages and the entries' resolved directories do not
  // depend on where the tool runs; symbolic links are kept, as clang does.
  llvm::SmallString<256> Start(Dir.empty() ? FirstSource : Dir);
  llvm::sys::fs::make_absolute(Start);
  // '..' stays in a -p directory (it is not climbed), not in the search,
  // which climbs: "a/../b.cu" is searched from the directory above "a".
  llvm::sys::path::remove_dots(Start, /*remove_dot_dot=*/Dir.empty());
  if (!Dir.empty()) {
    llvm::sys::fs::file_status Status;
    if (std::error_code EC = llvm::sys::fs::status(Start, Status))
      DB.Error = "no compile database in '" + std::string(Start) + "': " + reason(EC.message());
    else if (!llvm::sys::fs::is_directory(Status))
      DB.Error = "no compile database in '" + std::string(Start) + "': not a directory";
    else if (!loadFromDirectory(Start, DB))
      DB.Error = "no compile database in '" + std::string(Start) +
                 "': neither compile_commands.json nor compile_flags.txt is there";
    return DB;
  }
  for (llvm::StringRef D = llvm::sys::path::parent_path(Start); !D.empty();
       D = llvm::sys::path::parent_path(D))
    if (loadFromDirectory(D, DB))
      return DB;
  return DB;
}

std::string missingEntryNote(const CompileDatabase &DB,
                             llvm::ArrayRef<clang::tooling::CompileCommand> Commands) {
  bool Inferred = !Commands.empty() && !Commands.front().Heuristic.empty();
  if (!Commands.empty() && !Inferred)
    return "";
  if (!DB.RelativeDirectories)
    return Inferred ? "" : "not in the compile database: using the defaults";
  std::string Using = "using the defaults";
  if (Inferred) {
    // clang names the entry it inferred from by its "file" as written, which
    // is relative to that entry's directory: named in full here.
    llvm::StringRef From(Commands.front().Heuristic);
    if (From.consume_front("inferred from ") && llvm::sys::path::is_relative(From)) {
      llvm::SmallString<256> Full(Commands.front().Directory);
      llvm::sys::path::append(Full, From);
      llvm::sys::path::remove_dots(Full, /*remove_dot_dot=*/true);
      Using = "using the command inferred from '" + std::string(Full) + "'";
    } else {
      Using = "using the command " + Commands.front().Heuristic;
    }
  }
  return "no entry of '" + DB.File + "' names this file (" +
         std::to_string(DB.RelativeDirectories) + " of its entries " +
         (DB.RelativeDirectories == 1 ? "has" : "have") + " a relative " +
         "\"directory\", taken from the database's own directory: '" +
         DB.FirstRelativeDirectory + "' is '" + DB.FirstRelativeDirectoryResolved + "'): " + Using;
}

std::string buildTreeOf(const CompileDatabase &DB, llvm::StringRef InRoot) {
  if (!DB.Commands || DB.File.empty() || InRoot.empty())
    return std::string();
  std::string Dir = llvm::sys::path::parent_path(normalizePath(DB.File)).str();
  return Dir != InRoot && isUnder(Dir, InRoot) ? Dir : std::string();
}

} // namespace tma
