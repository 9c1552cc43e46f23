// The storage rule's launches (DeviceStorage.h): a storage's pointer passed
// to a kernel, through a function pointer, or in an argument array's slot,
// each with the edit that passes the host descriptor it now points to.
#include "DeviceStorage.h"

#include "StorageIndex.h"

#include "../core/Climb.h"
#include "../core/CudaApi.h"
#include "../core/Launch.h"
#include "../core/Types.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

/// `&p` as a slot of a launch's argument array (`void *args[] = {&p, ...}`):
/// the slot then takes `p` itself, the address of the host descriptor.
bool DeviceStorage::classifyArraySlot(Group &G, const UnaryOperator *Addr, const Expr *Storage,
                                      const FunctionDecl *Kernel, unsigned Index,
                                      const FunctionDecl *Fn) {
  std::optional<CharSourceRange> Slot = ST.fileRange(Addr->getSourceRange());
  // The slot's operand as written, parentheses included: `&(*o)` takes `(*o)`.
  std::optional<CharSourceRange> Named = ST.fileRange(Addr->getSubExpr()->getSourceRange());
  if (!Slot || !Named)
    return refuse(G, Addr, "the argument array's slot is spelled inside a macro body");
  // A `const CUtensorMap *` needs the cast that drops its const, and a
  // CUdeviceptr the cast to a pointer: the slot is a `void *`, and the
  // launch only reads it.
  QualType T = Storage->getType();
  bool Cast = T->isIntegerType() || T->getPointeeType().isConstQualified();
  std::string Text = Cast ? "(void *)" + ST.text(*Named) : ST.text(*Named);
  G.R.Launches.push_back({Kernel, Index, ST.point(Addr->getBeginLoc()), ST.replace(*Slot, Text),
                          ST.replace(*Slot, "&"), Fn});
  G.enqueuedOn(std::nullopt, false); // the launch that reads the array is not looked at
  // The launches that read the slot, for stream time (none known: held).
  auto Launches = In.ArraySlotLaunches ? In.ArraySlotLaunches(Storage)
                                       : std::vector<std::pair<const CallExpr *, const FunctionDecl *>>();
  if (Launches.size() == 1)
    G.R.Launches.back().SlotLaunch = Launches.front().first;
  if (Launches.empty())
    noteLaunch(G, nullptr, nullptr);
  for (const auto &[Launch, Fn] : Launches)
    noteLaunch(G, Launch, Fn);
  G.R.Touched.insert(ST.point(Addr->getBeginLoc()));
  G.R.Touched.insert(ST.point(Storage->getBeginLoc()));
  return true;
}

bool DeviceStorage::classifyPointerLaunch(Group &G, const CallExpr *Call, const Expr *Cur) {
  std::vector<const FunctionDecl *> Kernels;
  if (In.PointerTargets)
    Kernels = In.PointerTargets(Call);
  unsigned I = 0;
  while (I < Call->getNumArgs() && stripCasts(Call->getArg(I)) != stripCasts(Cur))
    ++I;
  if (Kernels.empty() || I == Call->getNumArgs())
    return refuse(G, Call, "it is passed to a launch the tool does not follow");
  std::optional<CharSourceRange> Arg = ST.fileRange(Call->getArg(I)->getSourceRange());
  if (!Arg)
    return refuse(G, Call->getArg(I), "the launch argument is spelled inside a macro body");
  TextEdit Edit = derefEdit(Call->getArg(I), *Arg);
  // Every kernel the pointer may hold takes the descriptor here.
  for (const FunctionDecl *K : Kernels) {
    if (!llvm::is_contained(descriptorParamIndexes(K), I))
      return refuse(G, Call, "it is passed to kernel '" + patternOf(K)->getQualifiedNameAsString() +
                                 "' as an argument that is not a descriptor parameter");
    G.R.Launches.push_back({K, I, ST.point(Call->getArg(I)->getBeginLoc()), Edit});
  }
  G.enqueuedOn(streamOf(Call, nullptr), onLegacyStream(Call));
  noteLaunch(G, Call, nullptr);
  G.R.Touched.insert(ST.point(Call->getArg(I)->getBeginLoc()));
  return true;
}

bool DeviceStorage::classifyLaunch(Group &G, const CallExpr *Call, const Expr *Cur,
                                   const StorageRef &R) {
  std::optional<KernelLaunch> KL = asLaunch(Call);
  for (unsigned I = 0; KL && I < KL->Args.size(); ++I) {
    if (!KL->Args[I] || stripCasts(KL->Args[I]) != stripCasts(Cur))
      continue;
    std::vector<unsigned> Descs = descriptorParamIndexes(KL->Kernel);
    std::string Kernel = patternOf(KL->Kernel)->getQualifiedNameAsString();
    if (!llvm::is_contained(Descs, I))
      return refuse(G, Call, "it is passed to kernel '" + Kernel + "' as an argument that is not "
                                                                   "a descriptor parameter");
    std::optional<CharSourceRange> Arg = ST.fileRange(KL->Args[I]->getSourceRange());
    if (!Arg)
      return refuse(G, KL->Args[I], "the launch argument is spelled inside a macro body");
    // The value form leaves a kernel that writes the device copy as it is:
    // its launch is one more write of the group.
    if (G.ValueForm && In.KernelStays && In.KernelStays(KL->Kernel, I)) {
      noteWrite(G, Call, R.Fn);
      G.PartialWrites = true;
      G.Staying.push_back({Call, R.Fn});
      G.StayingAt.insert(ST.point(KL->Args[I]->getBeginLoc()));
      return true;
    }
    G.R.Launches.push_back({KL->Kernel, I, ST.point(KL->Args[I]->getBeginLoc()),
                            derefEdit(KL->Args[I], *Arg), ST.replace(*Arg, ""), R.Fn, Call});
    G.enqueuedOn(streamOf(Call, R.Fn), onLegacyStream(Call));
    noteLaunch(G, Call, R.Fn);
    G.R.Touched.insert(ST.point(KL->Args[I]->getBeginLoc()));
    return true;
  }
  return refuse(G, Call, "it is passed to a launch the tool does not follow");
}

} // namespace tma::analysis
