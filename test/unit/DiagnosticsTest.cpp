#include "tma/Diagnostics.h"

#include "llvm/Support/Regex.h"

#include <gtest/gtest.h>
#include <set>

using namespace tma;

TEST(Diagnostics, TableIsCompleteAndUnique) {
  std::set<std::string> Codes;
  llvm::Regex Code("^tma-[0-9]{3}$");
  for (const DiagInfo &D : allDiagnostics()) {
    EXPECT_TRUE(Code.match(D.Code)) << D.Code.str();
    EXPECT_TRUE(Codes.insert(D.Code.str()).second) << "duplicate " << D.Code.str();
    EXPECT_FALSE(D.Summary.empty());
    EXPECT_FALSE(D.Advice.empty()) << D.Code.str() << " must tell the user what to do";
    EXPECT_EQ(&info(D.ID), &D);
    EXPECT_EQ(findDiagnostic(D.Code), &D);
  }
  EXPECT_EQ(findDiagnostic("tma-999"), nullptr);
  EXPECT_EQ(info(DiagID::ParseError).Level, Severity::Error);
  EXPECT_EQ(info(DiagID::DeviceWrite).Code, "tma-101");
}
