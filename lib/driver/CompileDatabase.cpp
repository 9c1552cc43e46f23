#include "tma/CompileDatabase.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

namespace tma {

TranslatedCommand translateFlags(llvm::ArrayRef<std::string> CommandLine,
                                 llvm::StringRef File);

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
  TranslatedCommand T = translateFlags(CommandLine, File);
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

TranslatedCommand translateFlags(llvm::ArrayRef<std::string> CommandLine,
                                 llvm::StringRef File) {
  TranslatedCommand T;
  if (CommandLine.empty())
    return T;
  // Response files (@file) are expanded; their contents are read, not run.
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver(Alloc);
  llvm::SmallVector<const char *, 64> Argv;
  for (const std::string &A : CommandLine)
    Argv.push_back(Saver.save(A).data());
  llvm::cl::ExpandResponseFiles(Saver, llvm::cl::TokenizeGNUCommandLine, Argv);

  llvm::StringRef Compiler = llvm::sys::path::filename(Argv[0]);
  T.FromNvcc = Compiler.contains("nvcc");
  std::string FileName = llvm::sys::path::filename(File).str();

  // Flags whose value is the next argument, dropped with it.
  static const llvm::StringSet<> DropWithValue = {
      "-o", "-ccbin", "--compiler-bindir", "-MF", "-MT", "-MQ", "--threads", "-t",
      "-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options", "-Xcudafe",
      "-Xfatbin", "-Xarchive", "-maxrregcount", "--maxrregcount", "-Xlinker",
      "--linker-options", "-L", "-l", "--library-path", "--library", "-odir",
      "--output-directory", "-diag-suppress", "--diag-suppress", "-split-compile",
      "--split-compile", "--options-file", "-optf"};
  // Flags with no meaning for an analysis; dropped alone.
  static const llvm::StringSet<> DropAlone = {
      "-c", "-dc", "-dw", "-lineinfo", "--generate-line-info", "-G", "--device-debug",
      "-g", "--use_fast_math", "-use_fast_math", "--expt-relaxed-constexpr",
      "-expt-relaxed-constexpr", "--extended-lambda", "-extended-lambda",
      "--expt-extended-lambda", "-expt-extended-lambda", "-forward-unknown-to-host-compiler",
      "--forward-unknown-to-host-compiler", "-MD", "-MMD", "-M", "-MM", "-MP",
      "--keep", "-keep", "-v", "--verbose", "-w", "--disable-warnings", "-Werror",
      "--resource-usage", "-res-usage", "--source-in-ptx", "-src-in-ptx",
      "-static-global-template-stub=true", "-static-global-template-stub=false"};

  for (size_t I = 1; I < Argv.size(); ++I) {
    llvm::StringRef A(Argv[I]);
    auto Next = [&]() -> llvm::StringRef {
      return I + 1 < Argv.size() ? llvm::StringRef(Argv[++I]) : llvm::StringRef();
    };
    auto Drop = [&](llvm::StringRef What) { T.Dropped.push_back(What.str()); };
    // The input itself.
    if (llvm::sys::path::filename(A) == FileName && !A.starts_with("-"))
      continue;
    if (DropWithValue.contains(A)) {
      Drop((A + " " + Next()).str());
      continue;
    }
    if (DropAlone.contains(A) || A.starts_with("-O") || A.starts_with("-o") ||
        A.starts_with("--threads=") || A.starts_with("-ccbin=") ||
        A.starts_with("--compiler-bindir=") || A.starts_with("-Xptxas=") ||
        A.starts_with("-Xcudafe=") || A.starts_with("-MF") || A.starts_with("-MT") ||
        A.starts_with("-maxrregcount=") || A.starts_with("--maxrregcount=") ||
        A.starts_with("--diag-suppress=") || A.starts_with("-diag-suppress=") ||
        A.starts_with("--use_fast_math") || A.starts_with("-Xfatbin=")) {
      Drop(A);
      continue;
    }
    // Language: the engine parses every TU as CUDA itself.
    if (A == "-x" || A == "--x") {
      Drop((A + " " + Next()).str());
      continue;
    }
    if (A.starts_with("-x") && A.size() > 2) {
      Drop(A);
      continue;
    }
    // Architectures.
    if (A == "-arch" || A == "--gpu-architecture" || A == "-code" || A == "--gpu-code") {
      noteArch(T, Next());
      continue;
    }
    if (A.consume_front("-arch=") || A.consume_front("--gpu-architecture=") ||
        A.consume_front("-code=") || A.consume_front("--gpu-code=")) {
      llvm::SmallVector<llvm::StringRef, 4> Archs;
      A.split(Archs, ',');
      for (llvm::StringRef X : Archs)
        noteArch(T, X);
      continue;
    }
    if (A == "-gencode" || A == "--generate-code") {
      noteGencode(T, Next());
      continue;
    }
    if (A.consume_front("-gencode=") || A.consume_front("--generate-code=")) {
      noteGencode(T, A);
      continue;
    }
    if (A.starts_with("--cuda-gpu-arch=") || A.starts_with("--offload-arch=")) {
      noteArch(T, A.substr(A.find('=') + 1));
      continue;
    }
    // Relocatable device code changes what clang accepts (device launches).
    if (A == "-rdc=true" || A == "--relocatable-device-code=true" || A == "-fgpu-rdc" ||
        (A == "-rdc" && I + 1 < Argv.size() && llvm::StringRef(Argv[I + 1]) == "true")) {
      if (A == "-rdc")
        ++I;
      T.Args.push_back("-fgpu-rdc");
      continue;
    }
    if (A == "-rdc=false" || A == "--relocatable-device-code=false") {
      Drop(A);
      continue;
    }
    // Host compiler flags: only what changes parsing is kept.
    if (A == "-Xcompiler" || A == "--compiler-options" || A.starts_with("-Xcompiler=") ||
        A.starts_with("--compiler-options=")) {
      llvm::StringRef Val = A.contains('=') ? A.substr(A.find('=') + 1) : Next();
      llvm::SmallVector<llvm::StringRef, 4> Host;
      Val.split(Host, ',');
      for (llvm::StringRef H : Host) {
        if (H.starts_with("-D") || H.starts_with("-U") || H.starts_with("-I") ||
            H.starts_with("-std=") || H == "-fopenmp")
          T.Args.push_back(H == "-fopenmp" ? "-D_OPENMP=201511" : H.str());
        else
          Drop(("-Xcompiler " + H).str());
      }
      continue;
    }
    // Include paths and macros: kept, nvcc's spellings normalised.
    if (A == "-I" || A == "-isystem" || A == "-include" || A == "-D" || A == "-U" ||
        A == "-iquote" || A == "--include-path" || A == "--system-include" ||
        A == "--define-macro" || A == "--undefine-macro" || A == "--pre-include") {
      static const llvm::StringMap<std::string> Long = {
          {"--include-path", "-I"}, {"--system-include", "-isystem"},
          {"--define-macro", "-D"}, {"--undefine-macro", "-U"}, {"--pre-include", "-include"}};
      std::string Flag = Long.count(A) ? Long.lookup(A) : A.str();
      T.Args.push_back(Flag);
      T.Args.push_back(Next().str());
      continue;
    }
    if (A.consume_front("-isystem=")) {
      T.Args.push_back("-isystem");
      T.Args.push_back(A.str());
      continue;
    }
    if (A.consume_front("--include-path=")) {
      T.Args.push_back("-I" + A.str());
      continue;
    }
    if (A.consume_front("--define-macro=")) {
      T.Args.push_back("-D" + A.str());
      continue;
    }
    if (A.starts_with("-I") || A.starts_with("-D") || A.starts_with("-U") ||
        A.starts_with("-isystem") || A.starts_with("-iquote") || A.starts_with("-include")) {
      T.Args.push_back(A.str());
      continue;
    }
    if (A.consume_front("--std=") || A.consume_front("-std=")) {
      T.Args.push_back("-std=" + A.str());
      continue;
    }
    if (A == "-std" || A == "--std") {
      T.Args.push_back("-std=" + Next().str());
      continue;
    }
    // Anything else: nvcc's own flags mean nothing to clang; a clang or gcc
    // command's -f/-W/-m flags are kept only when they are clang's too.
    if (!T.FromNvcc && (A.starts_with("-W") || A.starts_with("-f") || A.starts_with("-m")) &&
        !A.starts_with("-fPIC") && !A.starts_with("-fpic")) {
      // gcc-only flags would be errors in clang: keep warnings, drop the rest.
      if (A.starts_with("-W"))
        T.Args.push_back(A.str());
      else
        Drop(A);
      continue;
    }
    Drop(A);
  }
  return T;
}

std::unique_ptr<clang::tooling::CompilationDatabase>
loadCompileDatabase(llvm::StringRef Dir, llvm::StringRef FirstSource, std::string &Error) {
  if (!Dir.empty())
    return clang::tooling::CompilationDatabase::loadFromDirectory(Dir, Error);
  return clang::tooling::CompilationDatabase::autoDetectFromSource(FirstSource, Error);
}

} // namespace tma
