// The header parse kept for the verification parse (SideParse.h): reused
// only while the main file's leading includes and every file they read are
// unchanged, with the same errors as a parse of everything.
#include "tma/Engine.h"
#include "tma/SideParse.h"

#include "clang/Frontend/ASTUnit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace tma;

namespace {

const char *const Kernel = R"(
__global__ void k(const CUtensorMap *map, int *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = scale();
}
int main() {
  CUtensorMap h{};
  int *out;
  cudaMalloc(&out, sizeof(int));
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  k<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
)";

class SideParseTest : public ::testing::Test {
protected:
  void SetUp() override {
    CudaInstallation C = findCuda("");
    if (C.Path.empty())
      GTEST_SKIP() << C.Error;
    Compile.CudaPath = C.Path;
    llvm::SmallString<128> Dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tma-side-parse", Dir));
    Root = std::string(Dir);
    Header = Root + "/scale.h";
    Main = Root + "/tu.cu";
    write(Header, "#pragma once\n__device__ inline int scale() { return 2; }\n");
    MainText = "#include <cuda.h>\n#include <cuda_runtime.h>\n#include \"scale.h\"\n" +
               std::string(Kernel);
    write(Main, MainText);
  }
  void TearDown() override {
    if (!Root.empty())
      llvm::sys::fs::remove_directories(Root);
  }
  static void write(const std::string &Path, const std::string &Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC) << EC.message();
    OS << Text;
  }
  /// Builds the preambles of both sides into \p Store.
  void buildInto(PreambleStore &Store) {
    for (CudaSide Side : {CudaSide::Device, CudaSide::Host}) {
      ParsedSide P = parseSide(Side, Main, MainText, {}, Compile, &Store, PreambleUse::Build);
      ASSERT_TRUE(P.AST);
      ASSERT_TRUE(P.Built) << "no preamble for the leading includes";
      EXPECT_TRUE(P.Errors.empty());
      ASSERT_TRUE(Store.keep(Main, Side, P.Built));
    }
  }
  static std::vector<std::string> messages(const ParsedSide &P) {
    std::vector<std::string> M;
    for (const CompilerError &E : P.Errors)
      M.push_back(E.Where.File + ":" + std::to_string(E.Where.Offset) + ": " + E.Message);
    return M;
  }
  CompileOptions Compile;
  std::string Root, Header, Main, MainText;
};

} // namespace

TEST_F(SideParseTest, AnEditAfterTheIncludesReadsTheKeptHeaders) {
  PreambleStore Store;
  buildInto(Store);
  std::string Edited = MainText;
  Edited.replace(Edited.find("k<<<1, 1>>>(d, out);"), 20, "k<<<1, 1>>>(d, out); ");
  for (CudaSide Side : {CudaSide::Device, CudaSide::Host}) {
    ParsedSide P = parseSide(Side, Main, Edited, {{Main, Edited}}, Compile, &Store,
                             PreambleUse::Reuse);
    ASSERT_TRUE(P.AST);
    EXPECT_TRUE(P.Preamble != nullptr);
    EXPECT_TRUE(P.Errors.empty());
    // The files the preamble read are still the TU's dependencies.
    std::vector<std::string> Deps;
    std::map<std::string, std::set<std::string>> Aliases;
    collectFilesRead(P, Deps, Aliases);
    EXPECT_TRUE(llvm::is_contained(Deps, Header));
  }
}

TEST_F(SideParseTest, AnEditedHeaderIsParsedAgain) {
  PreambleStore Store;
  buildInto(Store);
  std::string NewHeader = "#pragma once\n__device__ inline int scale() { return undeclared; }\n";
  for (CudaSide Side : {CudaSide::Device, CudaSide::Host}) {
    ParsedSide P = parseSide(Side, Main, MainText, {{Main, MainText}, {Header, NewHeader}},
                             Compile, &Store, PreambleUse::Reuse);
    ASSERT_TRUE(P.AST);
    EXPECT_TRUE(P.Preamble == nullptr) << "a preamble that read the old header was reused";
    ASSERT_EQ(P.Errors.size(), 1u);
    EXPECT_EQ(P.Errors[0].Where.File, Header);
  }
}

TEST_F(SideParseTest, AnEditToTheLeadingIncludesIsParsedAgain) {
  PreambleStore Store;
  buildInto(Store);
  std::string Edited = "#include <cuda.h>\n#include <cuda_runtime.h>\n#include \"scale.h\"\n"
                       "#define EXTRA 1\n" + std::string(Kernel);
  // The #define joins the leading block: the preamble no longer matches.
  ParsedSide P = parseSide(CudaSide::Device, Main, Edited, {{Main, Edited}}, Compile, &Store,
                           PreambleUse::Reuse);
  ASSERT_TRUE(P.AST);
  EXPECT_TRUE(P.Preamble == nullptr);
}

TEST_F(SideParseTest, ErrorsOverTheKeptHeadersAreThoseOfAFullParse) {
  PreambleStore Store;
  buildInto(Store);
  std::string Edited = MainText;
  Edited.replace(Edited.find("out[0] = scale();"), 17, "out[0] = scale() + nope;");
  for (CudaSide Side : {CudaSide::Device, CudaSide::Host}) {
    ParsedSide Over = parseSide(Side, Main, Edited, {{Main, Edited}}, Compile, &Store,
                                PreambleUse::Reuse);
    ParsedSide Full =
        parseSide(Side, Main, Edited, {{Main, Edited}}, Compile, nullptr, PreambleUse::None);
    ASSERT_TRUE(Over.Preamble != nullptr);
    ASSERT_TRUE(Full.Preamble == nullptr);
    EXPECT_EQ(messages(Over), messages(Full));
    EXPECT_EQ(messages(Full).size(), 1u);
  }
}

TEST_F(SideParseTest, LeadingIncludesWithAnErrorAreNotPrecompiled) {
  write(Header, "#pragma once\n__device__ inline int scale() { return undeclared; }\n");
  PreambleStore Store;
  ParsedSide P =
      parseSide(CudaSide::Device, Main, MainText, {}, Compile, &Store, PreambleUse::Build);
  ASSERT_TRUE(P.AST);
  EXPECT_TRUE(P.Built == nullptr);
  ASSERT_EQ(P.Errors.size(), 1u);
  EXPECT_EQ(P.Errors[0].Where.File, Header);
}

TEST_F(SideParseTest, TheStoreKeepsAtMostItsCapacity) {
  PreambleStore Store(/*Capacity=*/1);
  buildInto(Store);
  ParsedSide P =
      parseSide(CudaSide::Device, Main, MainText, {}, Compile, &Store, PreambleUse::Build);
  ASSERT_TRUE(P.Built);
  EXPECT_FALSE(Store.keep(Root + "/other.cu", CudaSide::Device, P.Built));
  EXPECT_TRUE(Store.keep(Main, CudaSide::Device, P.Built)); // its own TU again
}

TEST_F(SideParseTest, ARunOverKeptHeadersGivesTheSameEdits) {
  EngineOptions Opts;
  Opts.Compile = Compile;
  TUInput In{Main, Compile, {}};
  RunResult Plain = planUnits(analyzeUnits({In}, Opts), Opts);
  Opts.Preambles = std::make_shared<PreambleStore>();
  RunResult Reused = planUnits(analyzeUnits({In}, Opts), Opts);
  ASSERT_EQ(Plain.Edits.size(), 1u);
  EXPECT_EQ(Plain.Edits, Reused.Edits);
  EXPECT_EQ(Plain.VerifyParses, 2u);
  EXPECT_EQ(Reused.VerifyParses, 2u);
  EXPECT_EQ(Opts.Preambles->reuses(), 2u) << "the verification parsed the headers again";
}
