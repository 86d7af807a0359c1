// helion::rt::makeTensorMap against the stand-in driver (fake_cuda.cpp prints each
// encode and numbers the maps): a descriptor seen before gives the kept map without
// encoding again, any field that differs encodes a new one, a descriptor the checks
// refuse throws every time, and past the cache's bound the maps are encoded anew.
#include "helion/runtime/TensorMap.h"

#include <cstdio>
#include <cstring>
#include <exception>

namespace rt = helion::rt;

namespace {
alignas(1024) unsigned char memory[1 << 16];

unsigned long long number(const CUtensorMap& map) {
  unsigned long long n = 0;
  std::memcpy(&n, &map, sizeof(n));
  return n;
}

rt::TensorMapDesc matrix(void* base, long long rows, int boxRows) {
  rt::TensorMapDesc d;
  d.base = base;
  d.elementBytes = 2;
  d.sizes = {rows, 64};
  d.strides = {64, 1};
  d.box = {boxRows, 64};
  d.swizzle = rt::Swizzle::b128;
  return d;
}

void show(const char* what, const rt::TensorMapDesc& d) {
  try {
    std::printf("%s: map %llu\n", what, number(rt::makeTensorMap(d)));
  } catch (const std::exception& e) {
    std::printf("%s: threw: %s\n", what, e.what());
  }
}
} // namespace

int main() {
  rt::TensorMapDesc a = matrix(memory, 1000, 64);
  show("a", a);
  show("a again", a);
  show("other box", matrix(memory, 1000, 128));
  show("other rows", matrix(memory, 999, 64));
  show("other base", matrix(memory + 1024, 1000, 64));
  rt::TensorMapDesc swz = a;
  swz.swizzle = rt::Swizzle::none;
  show("other swizzle", swz);
  rt::TensorMapDesc typed = a;
  typed.dataType = 6;
  show("other type", typed);
  show("a third time", a);
  rt::TensorMapDesc bad = a;
  bad.strides = {60, 1};
  show("bad", bad);
  show("bad again", bad);
  for (int i = 0; i < 1100; ++i) // more maps than the cache keeps
    rt::makeTensorMap(matrix(memory, 2000 + i, 64));
  show("a after 1100 others", a);
}
