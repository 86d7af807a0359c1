// DLPack in and out: layout, dtype and device mapping, shared memory, deleter calls.
#include "RefTestUtil.h"

using helion::DLManagedTensor;
using helion::DType;
using helion::Tensor;

TEST_CASE("to_dlpack describes the tensor and keeps its memory alive", "[refmode][dlpack]") {
  DLManagedTensor* managed = nullptr;
  void* data = nullptr;
  {
    Tensor t = helion::zeros({2, 5}, DType::bf16);
    data = t.data_ptr();
    managed = helion::to_dlpack(t);
  }  // the only Tensor handle is gone; the DLManagedTensor still holds the memory
  const helion::DLTensor& dl = managed->dl_tensor;
  CHECK(dl.data == data);
  CHECK(dl.device.device_type == helion::DLDeviceType::kDLCPU);
  CHECK(dl.ndim == 2);
  CHECK(dl.shape[0] == 2);
  CHECK(dl.shape[1] == 5);
  CHECK(dl.strides[0] == 5);
  CHECK(dl.strides[1] == 1);
  CHECK(dl.dtype.code == static_cast<uint8_t>(helion::DLDataTypeCode::kDLBfloat));
  CHECK(dl.dtype.bits == 16);
  CHECK(dl.dtype.lanes == 1);
  CHECK(static_cast<uint16_t*>(dl.data)[9] == 0);
  managed->deleter(managed);
}

TEST_CASE("from_dlpack(to_dlpack(t)) shares memory and dtype", "[refmode][dlpack]") {
  for (DType dtype : {DType::f16, DType::bf16, DType::f32, DType::f64, DType::i8, DType::i32,
                      DType::i64, DType::b8}) {
    INFO(reftest::name(dtype));
    Tensor t = helion::zeros({3, 4}, dtype);
    Tensor u = helion::from_dlpack(helion::to_dlpack(t));
    CHECK(u.dtype() == dtype);
    CHECK(u.sizes() == t.sizes());
    CHECK(u.strides() == t.strides());
    CHECK(u.data_ptr() == t.data_ptr());
  }
}

namespace {
int deleterCalls = 0;
void countingDeleter(DLManagedTensor* self) {
  ++deleterCalls;
  delete[] static_cast<float*>(self->dl_tensor.data);
  delete self;
}
} // namespace

TEST_CASE("from_dlpack calls the deleter once, when the last owner goes", "[refmode][dlpack]") {
  deleterCalls = 0;
  static int64_t shape[2] = {2, 3};
  static int64_t strides[2] = {1, 2};  // column-major
  auto* data = new float[8]{-1, 0, 1, 2, 3, 4, 5, 6};
  auto* managed = new DLManagedTensor{};
  managed->dl_tensor.data = data;
  managed->dl_tensor.device = {helion::DLDeviceType::kDLCPU, 0};
  managed->dl_tensor.ndim = 2;
  managed->dl_tensor.dtype = {static_cast<uint8_t>(helion::DLDataTypeCode::kDLFloat), 32, 1};
  managed->dl_tensor.shape = shape;
  managed->dl_tensor.strides = strides;
  managed->dl_tensor.byte_offset = sizeof(float);  // skips the -1
  managed->deleter = countingDeleter;
  {
    Tensor t = helion::from_dlpack(managed);
    CHECK(t.strides() == std::vector<int64_t>{1, 2});
    CHECK(reftest::values(t) == std::vector<double>{0, 2, 4, 1, 3, 5});
    Tensor copy = t;
    t = Tensor();
    CHECK(deleterCalls == 0);
    // Device code on the imported memory.
    helion::ref::ScopedBlockSize bs(2);
    for (auto [ti, tj] : hl::tile({2, 3}))
      copy[ti, tj] = copy[ti, tj] + 10;
    CHECK(data[1] == 10.0f);
    CHECK(data[6] == 15.0f);
  }
  CHECK(deleterCalls == 1);
}

TEST_CASE("from_dlpack rejects what it cannot represent", "[refmode][dlpack][errors]") {
  static int64_t shape[1] = {4};
  uint16_t data[4] = {};
  DLManagedTensor managed{};
  managed.dl_tensor.data = data;
  managed.dl_tensor.device = {helion::DLDeviceType::kDLCPU, 0};
  managed.dl_tensor.ndim = 1;
  managed.dl_tensor.shape = shape;
  managed.dl_tensor.dtype = {static_cast<uint8_t>(helion::DLDataTypeCode::kDLUInt), 16, 1};
  CHECK_THROWS_WITH(helion::from_dlpack(&managed),
                    "from_dlpack: unsupported dtype (code 1, 16 bits)");
  managed.dl_tensor.dtype = {static_cast<uint8_t>(helion::DLDataTypeCode::kDLFloat), 16, 4};
  CHECK_THROWS_WITH(helion::from_dlpack(&managed),
                    "from_dlpack: vector dtypes (lanes=4) are not supported");
  managed.dl_tensor.dtype = {static_cast<uint8_t>(helion::DLDataTypeCode::kDLFloat), 16, 1};
  managed.dl_tensor.device = {static_cast<helion::DLDeviceType>(7), 0};
  CHECK_THROWS_WITH(helion::from_dlpack(&managed), "from_dlpack: unsupported device type 7");
  managed.dl_tensor.device = {helion::DLDeviceType::kDLCPU, 0};
  Tensor t = helion::from_dlpack(&managed);  // no deleter: nothing to call
  CHECK(t.dtype() == DType::f16);
  CHECK(t.is_contiguous());
  CHECK_THROWS_WITH(helion::from_dlpack(nullptr), "from_dlpack: null DLManagedTensor");
}
