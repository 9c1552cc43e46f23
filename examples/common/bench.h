// Error checking, command line and timing helpers shared by the examples
// (each example directory carries its own copy, so that it builds alone).
//
//   prog [--launches N]   run the launch sequence N times (default 1)
//   prog --time           mean µs per launch over 2000 launches after 100
//                         warm-up launches, and the same for an empty kernel
//   prog --graph          capture one iteration in a CUDA graph, count its
//                         memcpy nodes and time 2000 replays
//
// Every mode ends with "checksum: 0x..." and "check: OK|MISMATCH".
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

inline void check_cuda(cudaError_t err, const char* what, const char* file, int line) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, cudaGetErrorString(err));
  std::exit(1);
}
inline void check_cu(CUresult res, const char* what, const char* file, int line) {
  const char* msg = "unknown driver error";
  if (res == CUDA_SUCCESS) return;
  cuGetErrorString(res, &msg);
  std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, msg);
  std::exit(1);
}
#define CHECK_CUDA(call) check_cuda((call), #call, __FILE__, __LINE__)
#define CHECK_CU(call) check_cu((call), #call, __FILE__, __LINE__)

namespace bench {

constexpr int kWarmup = 100, kTimed = 2000;

struct Options {
  int launches = 1;    // --launches N: run the launch sequence N times
  bool time = false;   // --time: mean µs per launch, and per launch of an empty kernel
  bool graph = false;  // --graph: capture one iteration in a CUDA graph and replay it
};

inline Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--launches") && i + 1 < argc) o.launches = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--time")) o.time = true;
    else if (!std::strcmp(argv[i], "--graph")) o.graph = true;
    else {
      std::fprintf(stderr, "usage: %s [--launches N] [--time] [--graph]\n", argv[0]);
      std::exit(2);
    }
  }
  o.launches = std::max(o.launches, 1);
  return o;
}

// Times the launch sequence is enqueued: once into the graph, warm-up plus
// timed launches, or --launches.
inline int iterations(const Options& o) {
  return o.graph ? 1 : o.time ? kWarmup + kTimed : o.launches;
}

struct Timer {  // CUDA events: mean µs per item enqueued between start() and stop_us()
  cudaEvent_t ev[2];
  Timer() { for (cudaEvent_t& e : ev) CHECK_CUDA(cudaEventCreate(&e)); }
  ~Timer() { for (cudaEvent_t e : ev) cudaEventDestroy(e); }
  void start(cudaStream_t s) { CHECK_CUDA(cudaEventRecord(ev[0], s)); }
  float stop_us(cudaStream_t s, int count) {
    float ms = 0.f;
    CHECK_CUDA(cudaEventRecord(ev[1], s));
    CHECK_CUDA(cudaEventSynchronize(ev[1]));
    CHECK_CUDA(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    return ms * 1000.f / count;
  }
};

// Mean µs per call of `launch` (an enqueue on `s`) over kTimed calls after kWarmup.
template <class Launch>
float time_each(cudaStream_t s, Launch&& launch) {
  Timer timer;
  for (int i = 0; i < kWarmup + kTimed; ++i) {
    if (i == kWarmup) timer.start(s);
    launch();
  }
  CHECK_CUDA(cudaGetLastError());
  return timer.stop_us(s, kTimed);
}

// Ends the capture begun on `s`, counts the graph's memcpy nodes, times its replays.
inline void end_capture_and_replay(cudaStream_t s) {
  cudaGraph_t graph = nullptr;
  CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  size_t count = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  CHECK_CUDA(cudaGraphGetNodes(graph, nodes.data(), &count));
  int memcpys = 0;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type;
    CHECK_CUDA(cudaGraphNodeGetType(node, &type));
    memcpys += type == cudaGraphNodeTypeMemcpy;
  }
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  const float us = time_each(s, [&] { CHECK_CUDA(cudaGraphLaunch(exec, s)); });
  std::printf("graph: replay_us=%.3f nodes=%zu memcpy_nodes=%d\n", us, count, memcpys);
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
}

// Ends a capture that an enqueue broke with `why` (e.g. a call that is not
// allowed while capturing), reports it and clears the error.
inline void abandon_capture(cudaStream_t s, cudaError_t why) {
  cudaGraph_t graph = nullptr;
  cudaStreamEndCapture(s, &graph);
  if (graph) cudaGraphDestroy(graph);
  cudaGetLastError();
  std::printf("graph: capture failed (%s)\n", cudaGetErrorName(why));
}

inline uint32_t fnv1a(const void* data, size_t bytes) {  // checksum of the output's bytes
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}

}  // namespace bench
