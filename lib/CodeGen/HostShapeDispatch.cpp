//===- HostShapeDispatch.cpp - One launcher per shape-keyed config entry ----===//
//
// A config file whose entries are keyed by shapes gets a launcher per entry and a
// kernel launcher that runs the entry pickShapeEntry (helion/runtime/ShapeDispatch.h)
// picks for the call's tensors; entries with `choose` lists get a chooser
// (HostChoice.cpp).
//===----------------------------------------------------------------------===//
#include "HostShapeDispatch.h"

#include "CudaLiteral.h"
#include "HostChoice.h"
#include "KernelLauncher.h"
#include "helion/Config/ConfigJson.h"

#include <algorithm>

#include <sstream>

namespace helion::codegen {
namespace {

using namespace ir;

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
  auto tensor = [&](const std::string& name) {
    int t = 0;
    while (t < static_cast<int>(out.tensors.size()) && k.params[out.tensors[t]].name != name)
      ++t; // helionc compile checked that every name is one of them
    return t;
  };
  const std::vector<std::string>& codes = config::dtypeNames();
  for (const HostKernel* hk : entries) {
    out.entries.push_back({static_cast<int>(out.keys.size()), static_cast<int>(hk->shapes.size()),
                           static_cast<int>(out.dtypeKeys.size()),
                           static_cast<int>(hk->dtypes.size())});
    for (const auto& [name, dims] : hk->shapes) {
      out.keys.push_back(
          {tensor(name), static_cast<int>(dims.size()), static_cast<int>(out.sizes.size())});
      out.sizes.insert(out.sizes.end(), dims.begin(), dims.end());
    }
    for (const auto& [name, dtype] : hk->dtypes) {
      const auto code = std::find(codes.begin(), codes.end(), dtype) - codes.begin();
      out.dtypeKeys.push_back({tensor(name), static_cast<int>(code)});
      out.dtypeNames.push_back(dtype);
    }
  }
  return out;
}

std::string entryCall(const Kernel& k, bool generated) {
  std::string call = "helionc_entry_" + k.name + "(";
  bool first = true;
  for (int p : keyTensors(k)) {
    call += (first ? "" : ", ") + (generated ? genName(k.params[p]) : k.params[p].name);
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
  std::string keys, table, sizes, dtypeKeys;
  for (const rt::ShapeEntry& e : shape.entries)
    table += "{" + std::to_string(e.firstKey) + ", " + std::to_string(e.numKeys) +
             (shape.dtypeKeys.empty()
                  ? ""
                  : ", " + std::to_string(e.firstDtype) + ", " + std::to_string(e.numDtypes)) +
             "}, ";
  for (size_t d = 0; d < shape.dtypeKeys.size(); ++d)
    dtypeKeys += "{" + std::to_string(shape.dtypeKeys[d].tensor) +
                 ", static_cast<int>(helion::DType::" + shape.dtypeNames[d] + ")}, ";
  for (const rt::ShapeKey& key : shape.keys)
    keys += "{" + std::to_string(key.tensor) + ", " + std::to_string(key.rank) + ", " +
            std::to_string(key.offset) + "}, ";
  for (int64_t d : shape.sizes)
    sizes += "int64_t(" + std::to_string(d) + "), ";
  os << "// helionc: the entry of kernel '" << k.name << "' for these sizes (generated)\n";
  os << "static int helionc_entry_" << k.name << "(";
  for (size_t i = 0; i < tensors.size(); ++i)
    os << (i ? ", " : "") << "const helion::Tensor& " << genName(k.params[tensors[i]]);
  os << ") {\n";
  os << "  static constexpr helion::rt::ShapeEntry kEntries[] = {" << table << "};\n";
  os << "  static constexpr helion::rt::ShapeKey kKeys[] = {" << (keys.empty() ? "{0, 0, 0}" : keys)
     << "};\n";
  os << "  static constexpr int64_t kSizes[] = {" << (sizes.empty() ? "0" : sizes) << "};\n";
  os << "  const helion::Tensor* tensors[] = {";
  for (size_t i = 0; i < tensors.size(); ++i)
    os << (i ? ", " : "") << "&" << genName(k.params[tensors[i]]);
  os << (tensors.empty() ? "nullptr" : "") << "};\n";
  os << "  const int forced = helion::rt::forcedShapeEntry().load(std::memory_order_relaxed);\n";
  os << "  if (forced >= 0 && forced < " << entries.size() << ")\n    return forced;\n";
  if (!dtypeKeys.empty())
    os << "  static constexpr helion::rt::DtypeKey kDtypes[] = {" << dtypeKeys << "};\n";
  os << "  return helion::rt::pickShapeEntry(kEntries, " << entries.size()
     << ", kKeys, kSizes, " << (dtypeKeys.empty() ? "" : "kDtypes, ")
     << "[&](int t, int rank) -> const int64_t* {\n";
  os << "    return tensors[t]->dim() == rank ? tensors[t]->sizes().data() : nullptr;\n";
  if (!dtypeKeys.empty())
    os << "  }, [&](int t) { return static_cast<int>(tensors[t]->dtype()); });\n}\n\n";
  else
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
    forward += (forward.empty() ? "" : ", ") + genName(param);
  // A "choose" entry's candidates: the first is the one pickShapeEntry picks (same
  // shapes, earlier), and it runs the choice among them.
  std::ostringstream dispatch;
  dispatch << launcherSignature(k, "helionc_launch_" + k.name, cppScalarType);
  dispatch << "  switch (" << entryCall(k, true) << ") {\n";
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

} // namespace helion::codegen
