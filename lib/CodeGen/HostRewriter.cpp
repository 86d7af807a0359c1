//===- HostRewriter.cpp - kernel.cpp -> kernel.helion.cpp -------------------===//
#include "helion/CodeGen/HostRewriter.h"

#include "AttentionLauncher.h"
#include "CudaLiteral.h"
#include "AotTables.h"
#include "HostChoice.h"
#include "HostEntries.h"
#include "KernelCacheLookup.h"
#include "MatmulLauncher.h"

#include <algorithm>
#include <sstream>
#include <string_view>

namespace helion::codegen {
namespace {

using namespace ir;

struct Edit {
  unsigned begin, end;
  std::string text;
};

/// A host C++ spelling of a scalar IR expression (tile extents, sizes).
std::string hostExpr(const Expr& e, const HostKernel& hk) {
  auto capture = [&](int param) {
    for (const auto& c : hk.host->captures)
      if (c.param == param)
        return "(" + c.expr + ")";
    return hk.kernel->params.at(param).name;
  };
  switch (e.kind) {
  case ExprKind::Const:
    return e.isInt ? "int64_t(" + std::to_string(static_cast<long long>(e.value)) + ")"
                   : std::to_string(e.value);
  case ExprKind::Param: return capture(e.param);
  case ExprKind::TensorSize: return capture(e.param) + ".size(" + std::to_string(e.dim) + ")";
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
  return a.param >= 0 ? k.params[a.param].name + ".size(" + std::to_string(a.dim) + ")"
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
  std::string end = tv.flatOfParam >= 0 ? k.params[tv.flatOfParam].name + ".numel()"
                                        : hostExpr(*tv.end, hk);
  return "(" + end + " - " + hostExpr(*tv.begin, hk) + ") % " + std::to_string(e.chunk) + " == 0";
}

std::string launcher(const HostKernel& hk, const std::string& fileName,
                     const std::string& fn = "") {
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
  os << "// helionc: launcher of kernel '" << k.name << "' (generated, do not edit)\n";
  os << launcherSignature(k, name, cppScalarType);
  if (ek.longRows) {
    std::string forward;
    for (const Param& param : k.params)
      forward += (forward.empty() ? "" : ", ") + param.name;
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
      lookup.dtypeArg(k.params[t.index].name);
      vecTensors += (vecTensors.empty() ? "&" : ", &") + k.params[t.index].name;
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
      lookup.intArg("static_cast<std::int64_t>(" + k.params[t.index].name + ")");
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
    const std::string& p = k.params[a.param].name;
    std::string v = "a" + std::to_string(n++);
    switch (a.kind) {
    case KernelArg::Kind::Pointer:
      os << "  HELION_CHECK(" << p << ".device().type == helion::DeviceType::CUDA, \"" << k.name
         << ": tensor '" << p << "' must be on a CUDA device\");\n";
      os << "  void* " << v << " = " << p << ".data_ptr();\n";
      break;
    case KernelArg::Kind::Numel:
      os << "  HELION_CHECK(" << p << ".is_contiguous(), \"" << k.name << ": tensor '" << p
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
      std::string end = tv.flatOfParam >= 0 ? k.params[tv.flatOfParam].name + ".numel()"
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

/// The kernel's tensor parameters that are function parameters (not captures): the
/// tensors a shape key may name, in parameter order.
std::vector<int> keyTensors(const Kernel& k) {
  std::vector<int> out;
  for (size_t p = 0; p < k.params.size(); ++p)
    if (k.params[p].kind == Param::Kind::Tensor && !k.params[p].captured)
      out.push_back(static_cast<int>(p));
  return out;
}

} // namespace

ShapeTable shapeTable(const std::vector<const HostKernel*>& entries) {
  const Kernel& k = *entries.front()->kernel;
  ShapeTable out;
  out.tensors = keyTensors(k);
  for (const HostKernel* hk : entries) {
    out.entries.push_back(
        {static_cast<int>(out.keys.size()), static_cast<int>(hk->shapes.size())});
    for (const auto& [name, dims] : hk->shapes) {
      int t = 0;
      while (t < static_cast<int>(out.tensors.size()) && k.params[out.tensors[t]].name != name)
        ++t; // helionc compile checked that every name is one of them
      out.keys.push_back(
          {t, static_cast<int>(dims.size()), static_cast<int>(out.sizes.size())});
      out.sizes.insert(out.sizes.end(), dims.begin(), dims.end());
    }
  }
  return out;
}

namespace {

/// `helionc_entry_K(x, y)`: the entry pickShapeEntry picks for these tensors.
std::string entryCall(const Kernel& k) {
  std::string call = "helionc_entry_" + k.name + "(";
  bool first = true;
  for (int p : keyTensors(k)) {
    call += (first ? "" : ", ") + k.params[p].name;
    first = false;
  }
  return call + ")";
}

/// Launchers for the entries of a shape-keyed config, and the kernel's launcher that
/// runs the one pickShapeEntry (helion/runtime/ShapeDispatch.h) picks; a static table,
/// no allocation or lock per call.
std::string shapeDispatch(const std::vector<const HostKernel*>& entries,
                          const std::string& fileName) {
  const Kernel& k = *entries.front()->kernel;
  std::ostringstream os;
  for (size_t e = 0; e < entries.size(); ++e)
    os << launcher(*entries[e], fileName, "helionc_launch_" + k.name + "_e" + std::to_string(e));
  const ShapeTable shape = shapeTable(entries);
  const std::vector<int>& tensors = shape.tensors;
  std::string keys, table, sizes;
  for (const rt::ShapeEntry& e : shape.entries)
    table += "{" + std::to_string(e.firstKey) + ", " + std::to_string(e.numKeys) + "}, ";
  for (const rt::ShapeKey& key : shape.keys)
    keys += "{" + std::to_string(key.tensor) + ", " + std::to_string(key.rank) + ", " +
            std::to_string(key.offset) + "}, ";
  for (int64_t d : shape.sizes)
    sizes += "int64_t(" + std::to_string(d) + "), ";
  os << "// helionc: the entry of kernel '" << k.name << "' for these sizes (generated)\n";
  os << "static int helionc_entry_" << k.name << "(";
  for (size_t i = 0; i < tensors.size(); ++i)
    os << (i ? ", " : "") << "const helion::Tensor& " << k.params[tensors[i]].name;
  os << ") {\n";
  os << "  static constexpr helion::rt::ShapeEntry kEntries[] = {" << table << "};\n";
  os << "  static constexpr helion::rt::ShapeKey kKeys[] = {" << (keys.empty() ? "{0, 0, 0}" : keys)
     << "};\n";
  os << "  static constexpr int64_t kSizes[] = {" << (sizes.empty() ? "0" : sizes) << "};\n";
  os << "  const helion::Tensor* tensors[] = {";
  for (size_t i = 0; i < tensors.size(); ++i)
    os << (i ? ", " : "") << "&" << k.params[tensors[i]].name;
  os << (tensors.empty() ? "nullptr" : "") << "};\n";
  os << "  const int forced = helion::rt::forcedShapeEntry().load(std::memory_order_relaxed);\n";
  os << "  if (forced >= 0 && forced < " << entries.size() << ")\n    return forced;\n";
  os << "  return helion::rt::pickShapeEntry(kEntries, " << entries.size()
     << ", kKeys, kSizes, [&](int t, int rank) -> const int64_t* {\n";
  os << "    return tensors[t]->dim() == rank ? tensors[t]->sizes().data() : nullptr;\n";
  os << "  });\n}\n\n";
  // register_block_size values, for host code whose entries disagree on them.
  const size_t blocks = std::max<size_t>(1, k.blockSizes.size());
  os << "[[maybe_unused]] static int64_t helionc_register_block_size_" << k.name
     << "(int entry, int block) {\n";
  os << "  static constexpr int64_t kValues[][" << blocks << "] = {";
  for (const HostKernel* hk : entries) {
    os << "{";
    for (size_t b = 0; b < blocks; ++b)
      os << (b < hk->registerBlockSizes.size() ? hk->registerBlockSizes[b] : 1) << ", ";
    os << "}, ";
  }
  os << "};\n  return kValues[entry][block];\n}\n\n";
  std::string forward;
  for (const Param& param : k.params)
    forward += (forward.empty() ? "" : ", ") + param.name;
  // A "choose" entry's candidates: the first is the one pickShapeEntry picks (same
  // shapes, earlier), and it runs the choice among them.
  std::ostringstream dispatch;
  dispatch << launcherSignature(k, "helionc_launch_" + k.name, cppScalarType);
  dispatch << "  switch (" << entryCall(k) << ") {\n";
  for (size_t e = 0; e < entries.size();) {
    size_t count = 1;
    while (entries[e]->choice == 0 && e + count < entries.size() &&
           entries[e + count]->choice == static_cast<int>(count))
      ++count;
    const std::string launch = "helionc_launch_" + k.name + "_e";
    for (size_t c = 0; c < count; ++c) { // forced (helionc tune) or picked
      dispatch << "  case " << e + c << ":";
      if (count > 1 && c == 0) // picked, not forced: the choice among the candidates
        dispatch << "\n    if (helion::rt::forcedShapeEntry().load(std::memory_order_relaxed) != "
                 << e << ") {\n      helionc_choose_" << k.name << "_e" << e << "(" << forward
                 << ");\n      return;\n    }\n   ";
      dispatch << " " << launch << e + c << "(" << forward << "); return;\n";
    }
    if (count > 1)
      os << chooser(k, keyTensors(k), e, count);
    e += count;
  }
  dispatch << "  }\n}\n\n";
  return os.str() + dispatch.str();
}

std::string launchCall(const HostKernel& hk) {
  std::string call = "helionc_launch_" + hk.kernel->name + "(";
  for (size_t p = 0; p < hk.kernel->params.size(); ++p) {
    std::string spelled = hk.kernel->params[p].name;
    for (const auto& c : hk.host->captures)
      if (c.param == static_cast<int>(p))
        spelled = c.expr;
    call += (p ? ", " : "") + spelled;
  }
  return call + ");";
}

} // namespace

std::string rewriteHost(const std::string& fileName, const std::string& text,
                        const std::vector<HostKernel>& given, const AotImageMap& aot) {
  std::vector<HostKernel> kernels = given;
  for (HostKernel& hk : kernels)
    hk.aot = &aot;
  std::vector<Edit> edits;
  for (size_t first = 0; first < kernels.size();) {
    // The entries of one kernel: consecutive HostKernels with the same kernel.
    std::vector<const HostKernel*> entries;
    for (size_t i = first; i < kernels.size() && kernels[i].kernel == kernels[first].kernel; ++i)
      entries.push_back(&kernels[i]);
    first += entries.size();
    const HostKernel& hk = *entries.front();
    const frontend::HostInfo& h = *hk.host;
    edits.push_back({h.function.begin, h.function.begin,
                     entries.size() == 1 ? launcher(hk, fileName) : shapeDispatch(entries, fileName)});
    edits.push_back({h.function.end, h.function.end, streamOverload(hk, text) + cEntry(hk)});
    for (size_t i = 0; i < h.deviceLoops.size(); ++i)
      edits.push_back({h.deviceLoops[i].begin, h.deviceLoops[i].end,
                       i == 0 ? launchCall(hk) : "/* helionc: this loop runs in the launch above */"});
    for (const auto& call : h.registerBlockSizeCalls) {
      auto value = [&](const HostKernel* e) {
        return call.blockSize < static_cast<int>(e->registerBlockSizes.size())
                   ? e->registerBlockSizes[call.blockSize]
                   : 1;
      };
      bool same = std::all_of(entries.begin(), entries.end(),
                              [&](const HostKernel* e) { return value(e) == value(&hk); });
      // Entries that disagree: the value of the entry these tensors pick.
      edits.push_back({call.call.begin, call.call.end,
                       same ? "int64_t(" + std::to_string(value(&hk)) + ")"
                            : "helionc_register_block_size_" + hk.kernel->name + "(" +
                                  entryCall(*hk.kernel) + ", " + std::to_string(call.blockSize) +
                                  ")"});
    }
  }
  // One pass from the front: the edits in file order, the text between them copied
  // once (linear in the file and the edits; replacing from the back was quadratic
  // in the kernels of a file). Edits at one offset go in reverse order of creation,
  // as replacing from the back put them: the launcher before a kernel's function.
  std::vector<size_t> order(edits.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return edits[a].begin != edits[b].begin ? edits[a].begin < edits[b].begin : a > b;
  });
  // A UTF-8 byte order mark is dropped: after the generated header it would sit
  // mid-file, where no compiler accepts it. Line numbers stay as they were.
  const std::string_view bom = "\xEF\xBB\xBF";
  size_t cursor = std::string_view(text).substr(0, bom.size()) == bom ? bom.size() : 0;
  size_t size = text.size();
  for (const Edit& e : edits)
    size += e.text.size();
  std::string out;
  out.reserve(size);
  for (size_t i : order) {
    const Edit& e = edits[i];
    if (e.begin > cursor)
      out.append(text, cursor, e.begin - cursor);
    out += e.text;
    cursor = std::max<size_t>(cursor, e.end);
  }
  out.append(text, std::min(cursor, text.size()));
  return "// Generated by helionc from " + fileName + ". Do not edit.\n" +
         "#include <helion/runtime/Generated.h>\n#include <algorithm>\n#include <map>\n#include <mutex>\n#include <string>\n" +
         kCApiHelpers + aotDeclarations(aot) + out + aotDefinitions(aot, fileName + ".cu");
}

} // namespace helion::codegen
