//===- helion/runtime/Choice.h - Choosing among candidates at run time -*- C++ -*-===//
//
// A config file may list several candidate configs for one kernel and shape
// (`"choose": [...]`, configs/README.md). The generated launcher compiles each and,
// on the first call for each shape, times them on the caller's current stream and
// keeps the fastest for the rest of the process (as Inductor's multi-kernel does):
//
//   static helion::rt::KernelChoice choice("matmul", 3);
//   int64_t key[helion::rt::kMaxChoiceKey];
//   int n = helion::rt::choiceKey(tensors, 2, key);       // dtypes and sizes
//   int winner = choice.find(key, n);                      // lock-free
//   if (winner < 0)
//     winner = choice.decide(key, n, written, 1, run);     // the first call only
//   ... launch candidate `winner` on the real arguments ...
//
// Timing never touches the caller's results: the candidates run on scratch copies of
// the tensors the kernel writes (other tensors are only read), and the caller then
// runs the winner on the real arguments. The first call for a shape waits for the
// stream (event synchronization); it must not be captured into a CUDA graph.
// HELIONC_PRINT_CHOICE=1 prints each decision to stderr.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/hl.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace helion::rt {

/// Longest key choiceKey() writes for one tensor (dtype, rank, 8 sizes).
inline constexpr int kChoiceKeyPerTensor = 10;
inline constexpr int kMaxChoiceKeyTensors = 16;
inline constexpr int kMaxChoiceKey = kChoiceKeyPerTensor * kMaxChoiceKeyTensors;

/// Writes the key of a call, the dtype, rank and sizes (the first 8, then the product
/// of the rest) of each of `tensors` (at most kMaxChoiceKeyTensors), to `key`; returns
/// its length. No allocation.
int choiceKey(const helion::Tensor* const* tensors, int count, int64_t* key);

/// The winner per key among `count` candidates of one entry of a kernel.
class KernelChoice {
public:
  KernelChoice(const char* kernel, int count) : kernel_(kernel), count_(count) {}
  KernelChoice(const KernelChoice&) = delete;
  KernelChoice& operator=(const KernelChoice&) = delete;

  /// The candidate chosen for `key`, or -1 before decide() has run for it. One acquire
  /// load and a scan of an immutable table: no lock, no allocation.
  int find(const int64_t* key, int length) const;

  /// Runs `run(c, scratch)` for each candidate c: once to warm it up (its first call
  /// compiles or loads it), then timed with CUDA events on the current stream, 3 rounds
  /// of 3 calls, the best round counted; `scratch[i]` is a copy of `written[i]` made
  /// for this decision, for the candidate to write instead. A candidate that throws
  /// is out. Stores and returns the fastest (0 when none ran or a written tensor is
  /// not contiguous: then nothing is timed). Thread-safe; a second caller with the
  /// same key waits for the first and gets its answer.
  int decide(const int64_t* key, int length, const helion::Tensor* const* written,
             int numWritten,
             const std::function<void(int, const helion::Tensor* const*)>& run);

private:
  struct Table {
    std::vector<int64_t> keys;  ///< every key, one after the other
    std::vector<int> offsets;   ///< where key i starts (and one past the last)
    std::vector<int> winners;
  };
  const char* kernel_;
  int count_;
  std::atomic<const Table*> table_{nullptr};
  std::mutex mutex_;                          ///< decide() only
  std::vector<std::unique_ptr<Table>> owned_; ///< every table published (readers may hold any)
};

} // namespace helion::rt
