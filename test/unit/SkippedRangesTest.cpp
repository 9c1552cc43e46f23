#include "tma/SkippedRanges.h"
#include "tma/SourceText.h"

#include <gtest/gtest.h>

using namespace tma;

TEST(SkippedRanges, IdentifiersInOrderWithoutRepeatsOrNumbers) {
  EXPECT_EQ(identifiersOf("k<<<1, 1>>>(d, out); k(d, 0x1f);"),
            (std::vector<std::string>{"k", "d", "out"}));
  EXPECT_EQ(identifiersOf(""), std::vector<std::string>{});
}

TEST(SkippedRanges, SimpleNameIsTheLastNameBeforeTemplateArguments) {
  EXPECT_EQ(simpleName("ns::k<1, Tile>"), "k");
  EXPECT_EQ(simpleName("maps.device"), "device");
  EXPECT_EQ(simpleName("d"), "d");
}

static SkippedRange range(unsigned Begin, std::vector<std::string> Names) {
  SkippedRange S;
  S.Span.Begin = {"/src/f.cu", Begin, 1, 1};
  S.Span.End = Begin + 10;
  S.Names = std::move(Names);
  return S;
}

// A range only one pass skipped is active on the other (#ifdef
// __CUDA_ARCH__); a range both skipped keeps the names either pass found,
// and one that names nothing is dropped.
TEST(SkippedRanges, BothPassesMustSkipARange) {
  std::vector<SkippedRange> Device = {range(0, {"k"}), range(100, {}), range(200, {})};
  std::vector<SkippedRange> Host = {range(100, {"d"}), range(200, {}), range(300, {"k"})};
  std::vector<SkippedRange> Both = skippedByBoth(Device, Host);
  ASSERT_EQ(Both.size(), 1u);
  EXPECT_EQ(Both[0].Span.Begin.Offset, 100u);
  EXPECT_EQ(Both[0].Names, std::vector<std::string>{"d"});
}
