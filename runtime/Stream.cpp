//===- Stream.cpp - the calling thread's current stream -------------------===//

#include "helion/runtime/Stream.h"

namespace helion::rt {
namespace {
thread_local CUstream tlsStream = nullptr;
} // namespace

CUstream currentStream() { return tlsStream; }

void setCurrentStream(CUstream stream) { tlsStream = stream; }

} // namespace helion::rt
