#include "tma/Facts.h"
#include "tma/Reasons.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

using namespace tma;

TEST(Reasons, IDsAreUniqueAndNamedComponentDotWhat) {
  std::set<std::string> Seen;
  for (const ReasonInfo &R : allReasons()) {
    EXPECT_TRUE(Seen.insert(R.Name.str()).second) << R.Name.str();
    auto [Component, What] = R.Name.split('.');
    EXPECT_FALSE(Component.empty()) << R.Name.str();
    EXPECT_FALSE(What.empty()) << R.Name.str();
    for (char C : R.Name)
      EXPECT_TRUE(llvm::isLower(C) || C == '.' || C == '-') << R.Name.str();
    EXPECT_EQ(&reasonInfo(R.ID), &R) << "table out of enumeration order at " << R.Name.str();
  }
}

TEST(Reasons, TemplatesTakeTheirArgumentsInOrder) {
  EXPECT_EQ(formatReason(ReasonID::PlanDefinitionNotSeen, {"k", "map"}),
            "the definition of kernel 'k' is not in this translation unit; its uses of 'map' "
            "cannot be checked");
  EXPECT_EQ(formatReason(ReasonID::ConstantUnfollowedKernelUse, {"g_map", "%1 literal"}),
            "'g_map' is used in a way that cannot be followed (%1 literal)")
      << "arguments are not formatted again";
  EXPECT_EQ(formatReason(ReasonID::PlanEditsOverlap), "two edits for this descriptor overlap");
}

TEST(Reasons, BlockerCarriesDiagnosticMessageAndID) {
  Blocker B = blockerFor(ReasonID::PlanNoLaunch, {"k"}, {"/src/a.cu", 4, 1, 5});
  EXPECT_EQ(B.ID, DiagID::LaunchNotRewritable);
  EXPECT_EQ(B.Reason, ReasonID::PlanNoLaunch);
  EXPECT_EQ(B.Message,
            "no launch of kernel 'k' in the given sources; launches elsewhere would break");
  EXPECT_EQ(B.Where.Offset, 4u);
  EXPECT_EQ(reasonInfo(B.Reason).Name.str(), "plan.no-launch");
}

TEST(Reasons, EveryIDIsInTheDocsWithItsDiagnostic) {
  std::ifstream In(TMA_LIMITATIONS_MD);
  ASSERT_TRUE(In) << TMA_LIMITATIONS_MD;
  std::stringstream Docs;
  Docs << In.rdbuf();
  for (const ReasonInfo &R : allReasons()) {
    std::string Row = "| `" + R.Name.str() + "` | " + info(R.Diag).Code.str() + " |";
    EXPECT_NE(Docs.str().find(Row), std::string::npos) << "docs/limitations.md lacks " << Row;
  }
}
