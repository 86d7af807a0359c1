//===- Choice.cpp - Choosing among candidates at run time ------------------===//
#include "helion/runtime/Choice.h"

#include "DriverApi.h"
#include "helion/runtime/CudaBackend.h"
#include "helion/runtime/Driver.h"
#include "helion/runtime/Kernel.h"
#include "helion/runtime/Stream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

namespace helion::rt {

using detail::driverApi;

int choiceKey(const helion::Tensor* const* tensors, int count, int64_t* key) {
  int n = 0;
  for (int t = 0; t < count && t < kMaxChoiceKeyTensors; ++t) {
    const helion::Tensor& x = *tensors[t];
    key[n++] = static_cast<int64_t>(x.dtype());
    key[n++] = x.dim();
    int64_t rest = 1;
    for (int64_t d = 0; d < x.dim(); ++d) {
      if (d < kChoiceKeyPerTensor - 3)
        key[n++] = x.size(d);
      else
        rest *= x.size(d);
    }
    if (x.dim() > kChoiceKeyPerTensor - 3)
      key[n++] = rest;
  }
  return n;
}

int KernelChoice::find(const int64_t* key, int length) const {
  const Table* t = table_.load(std::memory_order_acquire);
  if (!t)
    return -1;
  for (size_t i = 0; i < t->winners.size(); ++i) {
    int begin = t->offsets[i], end = t->offsets[i + 1];
    if (end - begin == length &&
        std::memcmp(t->keys.data() + begin, key, sizeof(int64_t) * size_t(length)) == 0)
      return t->winners[i];
  }
  return -1;
}

namespace {

bool printChoice() {
  const char* v = std::getenv("HELIONC_PRINT_CHOICE");
  return v && *v && std::strcmp(v, "0") != 0;
}

std::string keyText(const int64_t* key, int length) {
  // dtype, rank, sizes... per tensor: "[4096, 4096] [4096, 4096]"
  std::string out;
  for (int i = 0; i + 1 < length;) {
    int64_t rank = key[i + 1];
    int shown = static_cast<int>(std::min<int64_t>(rank, kChoiceKeyPerTensor - 3));
    out += out.empty() ? "[" : " [";
    for (int d = 0; d < shown && i + 2 + d < length; ++d)
      out += (d ? ", " : "") + std::to_string(key[i + 2 + d]);
    out += "]";
    i += 2 + shown + (rank > shown ? 1 : 0);
  }
  return out;
}

/// One event pair on the current stream around `calls` calls of `fn`, in ms per call.
double timeCalls(const std::function<void()>& fn, int calls) {
  CUevent start = nullptr, stop = nullptr;
  checkCuda(driverApi().cuEventCreate(&start, CU_EVENT_DEFAULT), "creating a CUDA event");
  checkCuda(driverApi().cuEventCreate(&stop, CU_EVENT_DEFAULT), "creating a CUDA event");
  CUstream stream = currentStream();
  float ms = 0;
  try {
    checkCuda(driverApi().cuEventRecord(start, stream), "recording a CUDA event");
    for (int i = 0; i < calls; ++i)
      fn();
    checkCuda(driverApi().cuEventRecord(stop, stream), "recording a CUDA event");
    checkCuda(driverApi().cuEventSynchronize(stop), "waiting for a CUDA event");
    checkCuda(driverApi().cuEventElapsedTime(&ms, start, stop), "reading a CUDA event pair");
  } catch (...) {
    driverApi().cuEventDestroy(start);
    driverApi().cuEventDestroy(stop);
    throw;
  }
  driverApi().cuEventDestroy(start);
  driverApi().cuEventDestroy(stop);
  return static_cast<double>(ms) / calls;
}

/// A contiguous device copy of `t`, made on the current stream.
helion::Tensor scratchCopy(const helion::Tensor& t) {
  helion::Tensor out = helion::empty(t.sizes(), t.dtype(), t.device());
  if (t.numel() > 0)
    cudaCopyDeviceToDevice(out.data_ptr(), t.device().index, t.data_ptr(), t.device().index,
                           static_cast<std::size_t>(t.numel() * t.element_size()));
  return out;
}

} // namespace

int KernelChoice::decide(const int64_t* key, int length, const helion::Tensor* const* written,
                         int numWritten,
                         const std::function<void(int, const helion::Tensor* const*)>& run) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (int known = find(key, length); known >= 0)
    return known; // another thread decided while this one waited
  const bool print = printChoice();
  int winner = 0;
  std::string why;
  bool timeable = true;
  for (int i = 0; i < numWritten; ++i)
    if (!written[i]->is_contiguous() || written[i]->device().type != helion::DeviceType::CUDA)
      timeable = false;
  std::vector<double> ms(static_cast<size_t>(count_), INFINITY);
  if (!timeable) {
    why = "not timed: a tensor the kernel writes is not a contiguous CUDA tensor";
  } else {
    std::vector<helion::Tensor> copies;
    std::vector<const helion::Tensor*> scratch;
    for (int i = 0; i < numWritten; ++i)
      copies.push_back(scratchCopy(*written[i]));
    for (const helion::Tensor& c : copies)
      scratch.push_back(&c);
    std::vector<bool> ok(static_cast<size_t>(count_), true);
    for (int c = 0; c < count_; ++c) { // warm-up: compiles or loads each candidate
      try {
        run(c, scratch.data());
      } catch (const std::exception& e) {
        ok[size_t(c)] = false;
        if (print)
          std::fprintf(stderr, "helionc: %s: candidate %d failed: %s\n", kernel_, c, e.what());
      }
    }
    synchronize(currentStream());
    for (int round = 0; round < 3; ++round)
      for (int c = 0; c < count_; ++c)
        if (ok[size_t(c)])
          ms[size_t(c)] =
              std::min(ms[size_t(c)], timeCalls([&] { run(c, scratch.data()); }, 3));
    for (int c = 1; c < count_; ++c)
      if (ms[size_t(c)] < ms[size_t(winner)])
        winner = c;
    // The scratch copies are freed here, after the timing waited for the stream.
  }
  auto next = std::make_unique<Table>();
  if (const Table* t = table_.load(std::memory_order_acquire))
    *next = *t;
  next->keys.insert(next->keys.end(), key, key + length);
  if (next->offsets.empty())
    next->offsets.push_back(0);
  next->offsets.push_back(static_cast<int>(next->keys.size()));
  next->winners.push_back(winner);
  table_.store(next.get(), std::memory_order_release);
  owned_.push_back(std::move(next));
  if (print) {
    std::string times;
    for (int c = 0; c < count_; ++c) {
      char one[32] = "failed";
      if (std::isfinite(ms[size_t(c)]))
        std::snprintf(one, sizeof one, "%.4f ms", ms[size_t(c)]);
      times += (c ? ", " : "") + std::string(one);
    }
    std::fprintf(stderr, "helionc: %s %s: chose candidate %d of %d (%s)\n", kernel_,
                 keyText(key, length).c_str(), winner, count_,
                 why.empty() ? times.c_str() : why.c_str());
  }
  return winner;
}

} // namespace helion::rt
