// H12: `__constant__ CUtensorMap` symbols (host/ConstantMemory.cpp).
#pragma once

#include "../core/PassContext.h"

namespace tma::analysis {

class HostBuffers;
class KernelSignatures;
class UseWalker;


/// H12: `__constant__ CUtensorMap` symbols filled by cudaMemcpyToSymbol
/// (host/ConstantMemory.cpp).
class ConstantMemory : public PassComponent {
public:
  ConstantMemory(PassContext &P, UseWalker &Walker, KernelSignatures &Signatures,
                 HostBuffers &Buffers)
      : PassComponent(P), Walker(Walker), Signatures(Signatures), Buffers(Buffers) {}

  void analyzeConstantDescriptors();

private:
  UseWalker &Walker;
  KernelSignatures &Signatures;
  HostBuffers &Buffers;
};

} // namespace tma::analysis
