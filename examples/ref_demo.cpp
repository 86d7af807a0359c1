// helion-ref-demo: runs an example kernel in ref mode on random inputs and compares it
// with a plain double-precision reference.
//
//   helion-ref-demo KERNEL SIZES... [--dtype f32|f16|bf16] [--block-size N] [--seed S]
//   helion-ref-demo softmax 1000 777
//   helion-ref-demo attention 4 100 90 64 --dtype f16 --block-size 7
//
// Prints the maximum error (absolute, and relative to the largest reference magnitude)
// and OK or FAIL; the exit status is 0 for OK, 1 for
// FAIL and 2 for a usage error.
#include "add.cpp"
#include "attention.cpp"
#include "cross_entropy.cpp"
#include "layer_norm.cpp"
#include "matmul.cpp"
#include "rms_norm.cpp"
#include "softmax.cpp"
#include "sum.cpp"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

using helion::DType;

namespace {

struct Options {
  std::string kernel;
  std::vector<int64_t> sizes;
  DType dtype = DType::f32;
  int64_t blockSize = 0;  // 0: ref mode's default
  uint64_t seed = std::random_device{}();
};

/// The kernel's output and the double reference, both as flat row-major vectors.
struct Result {
  std::vector<double> actual, expected;
};

std::mt19937_64 rng;

Tensor randomTensor(const std::vector<int64_t>& sizes, DType dtype, double lo = -1, double hi = 1) {
  Tensor t = helion::empty(sizes, dtype);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t k = 0; k < t.numel(); ++k)
    helion::detail::storeFloat(static_cast<char*>(t.data_ptr()) + k * t.element_size(), dtype,
                               dist(rng));
  return t;
}

std::vector<double> values(const Tensor& t) {
  Tensor c = t.contiguous();
  std::vector<double> out(c.numel());
  for (int64_t k = 0; k < c.numel(); ++k)
    out[k] = helion::detail::loadFloat(static_cast<const char*>(c.data_ptr()) + k * c.element_size(),
                                       c.dtype());
  return out;
}

std::vector<double> softmaxRef(const std::vector<double>& x, int64_t m, int64_t n) {
  std::vector<double> out(x.size());
  for (int64_t i = 0; i < m; ++i) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < n; ++j)
      mx = std::max(mx, x[i * n + j]);
    for (int64_t j = 0; j < n; ++j)
      sum += std::exp(x[i * n + j] - mx);
    for (int64_t j = 0; j < n; ++j)
      out[i * n + j] = std::exp(x[i * n + j] - mx) / sum;
  }
  return out;
}

std::vector<double> normRef(const std::vector<double>& x, const std::vector<double>& w,
                            const std::vector<double>* b, int64_t m, int64_t n, double eps) {
  std::vector<double> out(x.size());
  for (int64_t i = 0; i < m; ++i) {
    double mean = 0, sq = 0;
    for (int64_t j = 0; j < n; ++j)
      mean += x[i * n + j] / n;
    if (!b)
      mean = 0;  // rms_norm does not centre
    for (int64_t j = 0; j < n; ++j)
      sq += (x[i * n + j] - mean) * (x[i * n + j] - mean) / n;
    for (int64_t j = 0; j < n; ++j)
      out[i * n + j] = (x[i * n + j] - mean) / std::sqrt(sq + eps) * w[j] + (b ? (*b)[j] : 0.0);
  }
  return out;
}

Result runKernel(const Options& o) {
  const auto& s = o.sizes;
  auto need = [&](size_t count) {
    if (s.size() != count)
      helion::detail::fail("{} takes {} sizes, got {}", o.kernel, count, s.size());
  };
  if (o.kernel == "add") {
    Tensor x = randomTensor(s, o.dtype), y = randomTensor(s, o.dtype);
    std::vector<double> xs = values(x), ys = values(y);
    for (size_t i = 0; i < xs.size(); ++i)
      xs[i] += ys[i];
    return {values(add(x, y)), xs};
  }
  if (o.kernel == "sum") {
    need(2);
    Tensor x = randomTensor(s, o.dtype);
    std::vector<double> xs = values(x), ref(s[0], 0.0);
    for (int64_t i = 0; i < s[0] * s[1]; ++i)
      ref[i / s[1]] += xs[i];
    return {values(sum_rows(x)), ref};
  }
  if (o.kernel == "softmax" || o.kernel == "softmax_two_pass") {
    need(2);
    Tensor x = randomTensor(s, o.dtype, -4, 4);
    Tensor out = o.kernel == "softmax" ? softmax(x) : softmax_two_pass(x);
    return {values(out), softmaxRef(values(x), s[0], s[1])};
  }
  if (o.kernel == "rms_norm" || o.kernel == "layer_norm") {
    need(2);
    Tensor x = randomTensor(s, o.dtype, -2, 2), w = randomTensor({s[1]}, o.dtype, 0.5, 1.5);
    Tensor b = randomTensor({s[1]}, o.dtype, -0.5, 0.5);
    std::vector<double> bs = values(b);
    bool ln = o.kernel == "layer_norm";
    Tensor out = ln ? layer_norm(x, w, b, 1e-5) : rms_norm(x, w, 1e-5);
    return {values(out), normRef(values(x), values(w), ln ? &bs : nullptr, s[0], s[1], 1e-5)};
  }
  if (o.kernel == "cross_entropy") {
    need(2);
    Tensor logits = randomTensor(s, o.dtype, -6, 6);
    Tensor labels = helion::empty({s[0]}, DType::i64);
    std::uniform_int_distribution<int64_t> dist(0, s[1] - 1);
    for (int64_t i = 0; i < s[0]; ++i)
      labels.data_ptr<int64_t>()[i] = dist(rng);
    std::vector<double> xs = values(logits), ref(s[0]);
    for (int64_t i = 0; i < s[0]; ++i) {
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < s[1]; ++j)
        mx = std::max(mx, xs[i * s[1] + j]);
      for (int64_t j = 0; j < s[1]; ++j)
        sum += std::exp(xs[i * s[1] + j] - mx);
      ref[i] = mx + std::log(sum) - xs[i * s[1] + labels.data_ptr<int64_t>()[i]];
    }
    return {values(cross_entropy(logits, labels)), ref};
  }
  if (o.kernel == "matmul") {
    need(3);
    int64_t m = s[0], k = s[1], n = s[2];
    Tensor x = randomTensor({m, k}, o.dtype), y = randomTensor({k, n}, o.dtype);
    std::vector<double> xs = values(x), ys = values(y), ref(m * n, 0.0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = 0; j < n; ++j)
          ref[i * n + j] += xs[i * k + kk] * ys[kk * n + j];
    return {values(matmul(x, y)), ref};
  }
  if (o.kernel == "attention") {
    need(4);
    int64_t bh = s[0], m = s[1], n = s[2], d = s[3];
    Tensor q = randomTensor({bh, m, d}, o.dtype, -2, 2), k = randomTensor({bh, n, d}, o.dtype, -2, 2);
    Tensor v = randomTensor({bh, n, d}, o.dtype);
    std::vector<double> qs = values(q), ks = values(k), vs = values(v), ref(bh * m * d, 0.0);
    for (int64_t b = 0; b < bh; ++b)
      for (int64_t i = 0; i < m; ++i) {
        std::vector<double> sc(n);
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t c = 0; c < d; ++c)
            sc[j] += qs[(b * m + i) * d + c] * ks[(b * n + j) * d + c] / std::sqrt(double(d));
          mx = std::max(mx, sc[j]);
        }
        for (int64_t j = 0; j < n; ++j)
          sum += std::exp(sc[j] - mx);
        for (int64_t j = 0; j < n; ++j)
          for (int64_t c = 0; c < d; ++c)
            ref[(b * m + i) * d + c] += std::exp(sc[j] - mx) / sum * vs[(b * n + j) * d + c];
      }
    return {values(attention(q, k, v)), ref};
  }
  helion::detail::fail("unknown kernel '{}' (add, sum, softmax, softmax_two_pass, rms_norm, "
                       "layer_norm, cross_entropy, matmul, attention)",
                       o.kernel);
}

int usage(const char* message) {
  std::fprintf(stderr,
               "error: %s\nusage: helion-ref-demo KERNEL SIZES... [--dtype f32|f16|bf16] "
               "[--block-size N] [--seed S]\n",
               message);
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  Options o;
  const std::map<std::string, DType> dtypes = {{"f32", DType::f32}, {"f16", DType::f16}, {"bf16", DType::bf16}};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool hasValue = i + 1 < argc;
    if (arg == "--dtype" && hasValue) {
      auto it = dtypes.find(argv[++i]);
      if (it == dtypes.end())
        return usage("--dtype must be f32, f16 or bf16");
      o.dtype = it->second;
    } else if (arg == "--block-size" && hasValue) {
      o.blockSize = std::atoll(argv[++i]);
      if (o.blockSize < 1)
        return usage("--block-size must be a positive integer");
    } else if (arg == "--seed" && hasValue) {
      o.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (o.kernel.empty()) {
      o.kernel = arg;
    } else {
      char* end = nullptr;
      long long size = std::strtoll(arg.c_str(), &end, 10);
      if (*end != '\0' || size < 1)
        return usage(("bad size '" + arg + "'").c_str());
      o.sizes.push_back(size);
    }
  }
  if (o.kernel.empty() || o.sizes.empty())
    return usage("expected a kernel and its sizes");
  rng.seed(o.seed);
  try {
    if (o.blockSize)
      helion::ref::set_block_size(o.blockSize);
    Result r = runKernel(o);
    // Relative to the largest reference magnitude: elementwise relative error would be
    // dominated by outputs near zero, whose absolute error is that of the large ones.
    double maxAbs = 0, scale = 0;
    for (size_t i = 0; i < r.actual.size(); ++i) {
      double err = std::fabs(r.actual[i] - r.expected[i]);
      maxAbs = std::isnan(err) ? INFINITY : std::max(maxAbs, err);
      scale = std::max(scale, std::fabs(r.expected[i]));
    }
    double maxRel = maxAbs / std::max(scale, 1e-30);
    double threshold = o.dtype == DType::f32 ? 1e-5 : o.dtype == DType::f16 ? 2e-3 : 1.6e-2;
    bool ok = maxRel <= threshold && r.actual.size() == r.expected.size();
    std::printf("%s %s block_size=%lld seed=%llu: max abs error %.3g, max relative error %.3g "
                "(threshold %.3g): %s\n",
                o.kernel.c_str(), helion::dtype_name(o.dtype).data(),
                static_cast<long long>(helion::ref::block_size()),
                static_cast<unsigned long long>(o.seed), maxAbs, maxRel, threshold,
                ok ? "OK" : "FAIL");
    return ok ? 0 : 1;
  } catch (const helion::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
