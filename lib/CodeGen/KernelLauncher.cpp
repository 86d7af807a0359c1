//===- KernelLauncher.cpp - A kernel's host launcher ------------------------===//
//
// The launcher the host rewriter puts before a kernel's function: it checks the
// tensors, picks the instantiation (dtypes, specialized scalars, the EXACT axes, the
// long-rows variant), loads it (AOT image or NVRTC through the kernel cache) and
// launches it. Matmul and attention kernels get their template's launcher
// (MatmulLauncher.cpp, AttentionLauncher.cpp); a generic kernel with a chain
// kernel beside it tries that one first (ChainLauncher.cpp).
//===----------------------------------------------------------------------===//
#include "KernelLauncher.h"

#include "AotTables.h"
#include "AttentionLauncher.h"
#include "ChainLauncher.h"
#include "CudaLiteral.h"
#include "KernelCacheLookup.h"
#include "MatmulLauncher.h"

#include <sstream>

namespace helion::codegen {
namespace {

using namespace ir;

/// A host C++ spelling of a scalar IR expression (tile extents, sizes).
std::string hostExpr(const Expr& e, const HostKernel& hk) {
  // A parameter, captured host value or not, is the launcher's parameter p_<name>.
  auto param = [&](int p) { return genName(hk.kernel->params.at(p)); };
  switch (e.kind) {
  case ExprKind::Const:
    return e.isInt ? "int64_t(" + std::to_string(static_cast<long long>(e.value)) + ")"
                   : std::to_string(e.value);
  case ExprKind::Param: return param(e.param);
  case ExprKind::TensorSize: return param(e.param) + ".size(" + std::to_string(e.dim) + ")";
  case ExprKind::Binary: {
    static const char* sym[] = {"+", "-", "*", "/"};
    if (e.binary <= BinaryOp::Div)
      return "(" + hostExpr(*e.operands[0], hk) + " " + sym[static_cast<int>(e.binary)] + " " +
             hostExpr(*e.operands[1], hk) + ")";
    break;
  }
  default: break;
  }
  return "0 /* unsupported host extent */";
}

/// Whether hostExpr spells `e` (constants, scalars, sizes and + - * /).
bool hostEvaluable(const Expr& e) {
  switch (e.kind) {
  case ExprKind::Const:
  case ExprKind::Param:
  case ExprKind::TensorSize: return true;
  case ExprKind::Binary:
    return e.binary <= BinaryOp::Div && hostEvaluable(*e.operands[0]) &&
           hostEvaluable(*e.operands[1]);
  default: return false;
  }
}

/// The host extent of reduction axis `axis`.
std::string axisExtent(const Kernel& k, int axis, const HostKernel& hk) {
  const Axis& a = k.axes.at(axis);
  return a.param >= 0 ? genName(k.params[a.param]) + ".size(" + std::to_string(a.dim) + ")"
                      : hostExpr(*a.extent, hk);
}

/// The host predicate of "axis `e` needs no bounds checks" (TemplateArg::ExactAxes).
std::string exactPredicate(const ExactAxis& e, const EmittedKernel& ek, const HostKernel& hk) {
  const Kernel& k = *hk.kernel;
  if (!e.isTile) {
    std::string n = axisExtent(k, e.id, hk);
    if (e.chunk > 0) // looped: every chunk full
      return n + " % " + std::to_string(e.chunk) + " == 0";
    return n + " == helion::rt::reductionExtent(" + n + ", " + std::to_string(ek.numThreads) + ")";
  }
  const TileVar& tv = k.tiles.at(e.id);
  if (!hostEvaluable(*tv.begin) || (tv.flatOfParam < 0 && !hostEvaluable(*tv.end)))
    return "false"; // bounds known only inside the kernel
  std::string end = tv.flatOfParam >= 0 ? genName(k.params[tv.flatOfParam]) + ".numel()"
                                        : hostExpr(*tv.end, hk);
  return "(" + end + " - " + hostExpr(*tv.begin, hk) + ") % " + std::to_string(e.chunk) + " == 0";
}

} // namespace

std::string launcher(const HostKernel& hk, const std::string& fileName,
                     const std::string& fn) {
  const Kernel& k = *hk.kernel;
  const EmittedKernel& ek = *hk.emitted;
  const std::string name = fn.empty() ? "helionc_launch_" + k.name : fn;
  if (ek.matmul) // tensor maps, shared memory, sm90/sm80 choice: MatmulLauncher.cpp
    return matmulLauncher(hk, fileName, [&](const Expr& e) { return hostExpr(e, hk); }, name);
  if (ek.attention) // shapes, alignment, shared memory, grid: AttentionLauncher.cpp
    return attentionLauncher(hk, fileName, [&](const Expr& e) { return hostExpr(e, hk); }, name);
  std::ostringstream os;
  std::string longRowsFn;
  if (ek.longRows) { // its own launcher first, for this one to call
    HostKernel longRows = hk;
    longRows.emitted = ek.longRows.get();
    longRowsFn = name + "_long_rows";
    os << launcher(longRows, fileName, longRowsFn);
  }
  std::string chainFn;
  if (ek.chain) { // the chain template's launcher first, for this one to try
    chainFn = name + "_chain";
    os << chainLauncher(hk, fileName, [&](const Expr& e) { return hostExpr(e, hk); }, chainFn);
  }
  os << "// helionc: launcher of kernel '" << k.name << "' (generated, do not edit)\n";
  os << launcherSignature(k, name, cppScalarType);
  if (ek.chain) {
    std::string forward;
    for (const Param& param : k.params)
      forward += (forward.empty() ? "" : ", ") + genName(param);
    os << "  // Two chained dots: the chain template where the device and tensors fit it.\n";
    os << "  if (" << chainFn << "(" << forward << "))\n    return;\n";
  }
  if (ek.longRows) {
    std::string forward;
    for (const Param& param : k.params)
      forward += (forward.empty() ? "" : ", ") + genName(param);
    // Row elements per thread, as the persistent kernel would hold them.
    std::string elems;
    for (const TemplateArg& t : ek.templateArgs)
      if (t.kind == TemplateArg::Kind::ReductionDim)
        elems += (elems.empty() ? "" : " + ") + std::string("helion::rt::reductionExtent(") +
                 axisExtent(k, t.index, hk) + ", " + std::to_string(ek.numThreads) + ")";
    int64_t rows = 1;
    for (const GridLoop& g : ek.loops)
      for (int64_t b : g.blockSizes)
        rows *= b;
    os << "  // Rows too long to hold in registers: the looped kernel.\n";
    os << "  if ((" << elems << ") * " << rows << " > int64_t(" << kLongRowElems << ") * "
       << ek.numThreads << ") {\n";
    os << "    " << longRowsFn << "(" << forward << ");\n";
    os << "    return;\n";
    os << "  }\n";
  }
  std::string delim = rawDelimiter(ek.source);
  os << "  static const char kSource[] = R\"" << delim << "(" << ek.source << ")" << delim
     << "\";\n";
  // Template arguments, from the tensors at run time. They and the device form
  // the key of this launcher's KernelCache (KernelCacheLookup.h).
  KernelCacheLookup lookup;
  std::string vecTensors;
  for (const TemplateArg& t : ek.templateArgs) {
    switch (t.kind) {
    case TemplateArg::Kind::DType:
      lookup.dtypeArg(genName(k.params[t.index]));
      vecTensors += (vecTensors.empty() ? "&" : ", &") + genName(k.params[t.index]);
      break;
    case TemplateArg::Kind::ReductionDim:
      lookup.intArg("helion::rt::reductionExtent(" + axisExtent(k, t.index, hk) + ", " +
                    std::to_string(ek.numThreads) + ")");
      break;
    case TemplateArg::Kind::ExactAxes: {
      std::string bits = "0";
      for (size_t i = 0; i < ek.exactAxes.size(); ++i)
        bits += "\n      | (" + exactPredicate(ek.exactAxes[i], ek, hk) + " ? " +
                std::to_string(1 << i) + " : 0)";
      lookup.intArg("std::int64_t(" + bits + ")");
      break;
    }
    case TemplateArg::Kind::VectorWidth:
      lookup.intArg("helion::rt::vectorWidth({" + vecTensors + "}, " +
                    std::to_string(ek.maxVectorBytes) + ")");
      break;
    case TemplateArg::Kind::Specialized:
      lookup.intArg("static_cast<std::int64_t>(" + genName(k.params[t.index]) + ")");
      break;
    case TemplateArg::Kind::EpilogueForm: break; // matmul kernels only
    }
  }
  const std::string aot = aotTableRef(hk, ek);
  os << lookup.emit("\"" + ek.kernelName + "<\"", fileName,
                    aot.empty() ? "{}" : "{}, 0, -1, " + aot);
  os << "  const helion::rt::Kernel& kernel = *found;\n";
  // Arguments.
  std::string args;
  int n = 0;
  for (const KernelArg& a : ek.args) {
    const std::string p = genName(k.params[a.param]);
    const std::string& shown = k.params[a.param].name; // in messages
    std::string v = "a" + std::to_string(n++);
    switch (a.kind) {
    case KernelArg::Kind::Pointer:
      os << "  HELION_CHECK(" << p << ".device().type == helion::DeviceType::CUDA, \"" << k.name
         << ": tensor '" << shown << "' must be on a CUDA device\");\n";
      os << "  void* " << v << " = " << p << ".data_ptr();\n";
      break;
    case KernelArg::Kind::Numel:
      os << "  HELION_CHECK(" << p << ".is_contiguous(), \"" << k.name << ": tensor '" << shown
         << "' must be contiguous\");\n";
      os << "  int64_t " << v << " = " << p << ".numel();\n";
      break;
    case KernelArg::Kind::Size:
      os << "  int64_t " << v << " = " << p << ".size(" << a.dim << ");\n";
      break;
    case KernelArg::Kind::Stride:
      os << "  int64_t " << v << " = " << p << ".stride(" << a.dim << ");\n";
      break;
    case KernelArg::Kind::Scalar: {
      ScalarType st = k.params[a.param].scalarType;
      std::string ct = hostScalarType(st);
      os << "  " << ct << " " << v << " = static_cast<" << ct << ">(" << p << ");\n";
      break;
    }
    }
    args += (args.empty() ? "&" : ", &") + v;
  }
  os << "  void* args[] = {" << args << "};\n";
  // Grid: the programs of each top-level loop, one after the other.
  os << "  int64_t programs = 0;\n";
  std::vector<std::string> perTile;
  for (const GridLoop& g : ek.loops) {
    std::string total = "int64_t(1)";
    for (size_t i = 0; i < g.tiles.size(); ++i) {
      const TileVar& tv = k.tiles.at(g.tiles[i]);
      std::string end = tv.flatOfParam >= 0 ? genName(k.params[tv.flatOfParam]) + ".numel()"
                                            : hostExpr(*tv.end, hk);
      std::string nt = "helion::rt::cdiv(" + end + " - " + hostExpr(*tv.begin, hk) + ", " +
                       std::to_string(g.blockSizes[i]) + ")";
      perTile.push_back(nt);
      total += " * " + nt;
    }
    os << "  programs += " << total << ";\n";
  }
  os << "  if (programs == 0) return;\n";
  os << "  helion::rt::Dim3 grid(static_cast<unsigned>(programs));\n";
  switch (ek.pidType) {
  case config::PidType::PersistentBlocked:
  case config::PidType::PersistentInterleaved:
    // num_sm_multiplier programs per multiprocessor, at most as many as fit at
    // once: a persistent program that waits for another to finish leaves its
    // whole share of the tiles for the end.
    os << "  grid.x = static_cast<unsigned>(std::min<int64_t>(programs, int64_t(std::min("
       << ek.numSmMultiplier << ", kernel.residentBlocksPerSm(" << ek.numThreads
       << "))) * helion::rt::deviceInfo().smCount));\n";
    break;
  case config::PidType::Xyz: { // the grid mapping made the single grid loop xyz
    // y and z at most 65535: the kernel loops over the rest (EmitGrid.cpp).
    const char* dims[] = {"x", "y", "z"};
    for (size_t i = 0; i < perTile.size() && i < 3; ++i)
      os << "  grid." << dims[i] << " = static_cast<unsigned>("
         << (i == 0 ? perTile[i] : "std::min<int64_t>(" + perTile[i] + ", 65535)") << ");\n";
    break;
  }
  default: break;
  }
  os << "  helion::rt::launch(kernel, grid, helion::rt::Dim3(" << ek.numThreads
     << "), 0, args, helion::rt::currentStream());\n";
  os << "}\n\n";
  return os.str();
}

} // namespace helion::codegen
