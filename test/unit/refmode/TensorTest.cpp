// helion::Tensor: metadata, allocation, from_blob, device backends, misuse errors,
// HELION_CHECK.
#include "RefTestUtil.h"

#include <cstdlib>
#include <cstring>

using helion::Device;
using helion::DType;
using helion::Tensor;

TEST_CASE("empty has contiguous strides and poisoned contents", "[refmode][tensor]") {
  Tensor t = helion::empty({2, 3, 4}, DType::f32);
  CHECK(t.defined());
  CHECK(t.dim() == 3);
  CHECK(t.sizes() == std::vector<int64_t>{2, 3, 4});
  CHECK(t.strides() == std::vector<int64_t>{12, 4, 1});
  CHECK(t.numel() == 24);
  CHECK(t.element_size() == 4);
  CHECK(t.is_contiguous());
  CHECK(t.size(-1) == 4);
  CHECK(t.stride(0) == 12);
  CHECK(t.device() == Device::cpu());
  CHECK(std::isnan(t.data_ptr<float>()[5]));
  auto [a, b, c] = t.shape<3>();
  CHECK((a == 2 && b == 3 && c == 4));
  Tensor z = helion::zeros({5}, DType::i32);
  CHECK(z.data_ptr<int32_t>()[4] == 0);
  Tensor like = helion::empty_like(t);
  CHECK(like.sizes() == t.sizes());
  CHECK(like.dtype() == DType::f32);
  CHECK(like.data_ptr() != t.data_ptr());
  CHECK_FALSE(Tensor().defined());
}

TEST_CASE("host misuse raises helion::Error with a clear message", "[refmode][tensor][errors]") {
  Tensor t = helion::empty({2, 3}, DType::f16);
  CHECK_THROWS_AS(t.shape<3>(), helion::Error);
  CHECK_THROWS_WITH(t.shape<3>(), "shape<3>() called on a tensor of rank 2");
  CHECK_THROWS_WITH(t.size(2), "size(2) called on a tensor of rank 2");
  CHECK_THROWS_WITH(t.size(-3), "size(-3) called on a tensor of rank 2");
  CHECK_THROWS_WITH(t.stride(5), "stride(5) called on a tensor of rank 2");
  CHECK_THROWS_WITH(t.data_ptr<float>(), "data_ptr<f32>() called on a tensor of dtype f16");
  CHECK_THROWS_WITH(helion::empty({2, -1}, DType::f32),
                    "empty: negative size -1 in dimension 1");
  CHECK_THROWS_WITH(Tensor::from_blob(nullptr, {4}, {}, DType::f32),
                    "from_blob: null data for a tensor of 4 elements");
  float data[4] = {};
  CHECK_THROWS_WITH(Tensor::from_blob(data, {2, 2}, {1}, DType::f32),
                    "from_blob: 1 strides given for 2 sizes");
  CHECK_THROWS_WITH(helion::empty_like(Tensor()), "empty_like: the tensor is undefined");
}

TEST_CASE("from_blob wraps non-contiguous memory without owning it", "[refmode][tensor]") {
  // A 3x4 row-major buffer seen as its 4x3 transpose.
  float buffer[12];
  for (int i = 0; i < 12; ++i)
    buffer[i] = static_cast<float>(i);
  Tensor t = Tensor::from_blob(buffer, {4, 3}, {1, 4}, DType::f32);
  CHECK_FALSE(t.is_contiguous());
  CHECK(t.data_ptr() == buffer);
  CHECK(reftest::values(t) == std::vector<double>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  Tensor c = t.contiguous();
  CHECK(c.is_contiguous());
  CHECK(c.strides() == std::vector<int64_t>{3, 1});
  CHECK(reftest::values(c) == reftest::values(t));

  // Device code reads and writes through the strides.
  helion::ref::ScopedBlockSize bs(3);
  Tensor out = helion::empty({4, 3}, DType::f32);
  for (auto tile : hl::tile(t.sizes()))
    out[tile] = t[tile] * 2;
  CHECK(reftest::values(out) == std::vector<double>{0, 8, 16, 2, 10, 18, 4, 12, 20, 6, 14, 22});
  for (auto tile : hl::tile(t.sizes()))
    t[tile] = t[tile] + 100;
  CHECK(buffer[1] == 101.0f);
  CHECK(buffer[11] == 111.0f);
}

TEST_CASE("from_blob with a deleter frees when the last handle goes", "[refmode][tensor]") {
  static int freed = 0;
  freed = 0;
  void* memory = std::malloc(16);
  {
    Tensor a = Tensor::from_blob(memory, {4}, {}, DType::f32, Device::cpu(), [](void* p) {
      ++freed;
      std::free(p);
    });
    Tensor b = a;
    a = Tensor();
    CHECK(freed == 0);
  }
  CHECK(freed == 1);
}

namespace {
// A fake CUDA backend over host memory, to exercise the runtime's hook.
int allocations = 0, deallocations = 0, copies = 0;
void* fakeAllocate(std::size_t bytes, int) {
  ++allocations;
  return std::malloc(bytes);
}
void fakeDeallocate(void* p, int) {
  ++deallocations;
  std::free(p);
}
void fakeCopy(void* dst, Device, const void* src, Device, std::size_t bytes) {
  ++copies;
  std::memcpy(dst, src, bytes);
}
const helion::DeviceBackend fakeBackend{fakeAllocate, fakeDeallocate, fakeCopy};
} // namespace

TEST_CASE("CUDA tensors need the runtime's backend", "[refmode][tensor][errors]") {
  helion::set_device_backend(helion::DeviceType::CUDA, nullptr);
  CHECK_THROWS_WITH(helion::empty({4}, DType::f32, Device::cuda()),
                    Catch::StartsWith("no CUDA runtime loaded: link helion_runtime"));
  Tensor cpu = helion::zeros({4}, DType::f32);
  CHECK_THROWS_WITH(cpu.to(Device::cuda(1)), Catch::StartsWith("no CUDA runtime loaded"));
  CHECK(cpu.to(Device::cpu()).data_ptr() == cpu.data_ptr());
}

TEST_CASE("to(Device) copies through an installed backend", "[refmode][tensor]") {
  allocations = deallocations = copies = 0;
  helion::set_device_backend(helion::DeviceType::CUDA, &fakeBackend);
  {
    float buffer[6] = {1, 2, 3, 4, 5, 6};
    Tensor host = Tensor::from_blob(buffer, {2, 3}, {1, 2}, DType::f32);  // non-contiguous
    Tensor device = host.to(Device::cuda(0));
    CHECK(device.device() == Device::cuda(0));
    CHECK(device.is_contiguous());
    CHECK(allocations == 1);
    CHECK_THROWS_WITH((device[hl::all, hl::all]),
                      "subscript: ref mode loads and stores CPU tensors only, this one is on "
                      "cuda:0 (use .cpu())");
    Tensor back = device.cpu();
    CHECK(back.device() == Device::cpu());
    CHECK(reftest::values(back) == std::vector<double>{1, 3, 5, 2, 4, 6});
    CHECK(copies == 2);
    Tensor z = helion::zeros({3}, DType::i32, Device::cuda(0));
    CHECK(reftest::values(z.cpu()) == std::vector<double>{0, 0, 0});
  }
  CHECK(deallocations == allocations);
  helion::set_device_backend(helion::DeviceType::CUDA, nullptr);
}

TEST_CASE("HELION_CHECK formats {} placeholders", "[refmode][tensor][errors]") {
  auto check = [](int64_t a, std::vector<int64_t> sizes) {
    HELION_CHECK(a == 2, "expected {} to be 2 for sizes {} ({{literal}}) dtype {}", a, sizes,
                 DType::bf16);
  };
  CHECK_NOTHROW(check(2, {}));
  CHECK_THROWS_AS(check(3, {1, 2}), helion::Error);
  CHECK_THROWS_WITH(check(3, {1, 2}),
                    Catch::StartsWith("expected 3 to be 2 for sizes [1, 2] ({literal}) dtype bf16") &&
                        Catch::Contains("check `a == 2` failed at TensorTest.cpp:"));
  CHECK(helion::detail::format("{} {}", 1) == "1 {}");
  CHECK(helion::detail::format("{}", true) == "true");
  try {
    HELION_CHECK(false, "plain");
  } catch (const std::runtime_error& e) {  // helion::Error is a std::runtime_error
    CHECK(std::string(e.what()).rfind("plain", 0) == 0);
  }
}
