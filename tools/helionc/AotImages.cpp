//===- AotImages.cpp - helionc compile --aot-arch ---------------------------===//
//
// Every instantiation each launcher can name at run time for what is known now
// (codegen::instantiations: the --dtype signatures, the row lengths of --size-hint
// that pick the launcher's entry and those of its shape key, --specialize values,
// every vector width and EXACT bit of a tile axis), compiled for each --aot-arch by
// NVRTC in parallel children (DeviceCompile.h), as the tables rewriteHost embeds.
//===----------------------------------------------------------------------===//
#include "DeviceCompile.h"

#include "helion/IR/DotShape.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace helion::tool {
namespace {

using RowDims = std::set<std::pair<int, int>>; // (param, dim)

/// The tensor dims that hold a kernel's row length: those on its reduction axes, else
/// the innermost dim of each tensor its entries are keyed by.
RowDims rowDims(const ir::Kernel& k, const codegen::EmittedKernel& ek,
                const codegen::ShapeTable& table) {
  RowDims out;
  auto addAxis = [&](int axis) {
    if (axis >= 0 && axis < static_cast<int>(k.axes.size()))
      out.insert(k.axes[axis].tensorDims.begin(), k.axes[axis].tensorDims.end());
  };
  for (const codegen::TemplateArg& t : ek.templateArgs)
    if (t.kind == codegen::TemplateArg::Kind::ReductionDim)
      addAxis(t.index);
  for (const codegen::ExactAxis& e : ek.exactAxes)
    if (!e.isTile)
      addAxis(e.id);
  if (out.empty())
    for (const rt::ShapeKey& key : table.keys)
      out.insert({table.tensors.at(key.tensor), key.rank - 1});
  return out;
}

/// helion::rt::pickShapeEntry (as at run time) over one kernel's entry table, for one
/// dtype signature (ScalarType and helion::DType list the dtypes in one order, which
/// config::dtypeNames() follows).
struct EntryPicker {
  const codegen::ShapeTable& table;
  const std::vector<ir::ScalarType>& signature;

  int dtypeOf(int t) const { return static_cast<int>(signature.at(table.tensors.at(t))); }
  /// Whether entry e's dtypes (if it names any) are the signature's.
  bool dtypesMatch(size_t e) const {
    const rt::ShapeEntry& entry = table.entries[e];
    for (int d = entry.firstDtype; d < entry.firstDtype + entry.numDtypes; ++d)
      if (dtypeOf(table.dtypeKeys[d].tensor) != table.dtypeKeys[d].dtype)
        return false;
    return true;
  }
  /// The entry picked for tensors of the first key's sizes of each keyed tensor, every
  /// dim d of tensor t (a parameter index, of rank `rank`) edited by
  /// edit(t, d, rank, size).
  template <class Edit> int pick(Edit edit) const {
    std::map<int, std::vector<int64_t>> query; // key tensor -> sizes
    for (const rt::ShapeKey& key : table.keys)
      if (!query.count(key.tensor)) {
        std::vector<int64_t> sizes(table.sizes.begin() + key.offset,
                                   table.sizes.begin() + key.offset + key.rank);
        for (int d = 0; d < key.rank; ++d)
          edit(table.tensors.at(key.tensor), d, key.rank, sizes[d]);
        query[key.tensor] = std::move(sizes);
      }
    return rt::pickShapeEntry(
        table.entries.data(), static_cast<int>(table.entries.size()), table.keys.data(),
        table.sizes.data(), table.dtypeKeys.data(),
        [&](int t, int rank) -> const int64_t* {
          auto it = query.find(t);
          return it != query.end() && static_cast<int>(it->second.size()) == rank
                     ? it->second.data()
                     : nullptr;
        },
        [&](int t) { return dtypeOf(t); });
  }
};

void addOnce(std::vector<int64_t>& v, int64_t x) {
  if (std::find(v.begin(), v.end(), x) == v.end())
    v.push_back(x);
}

/// The row lengths each entry's launcher embeds: each hinted length goes to the entry
/// the launcher picks (helion::rt::pickShapeEntry, as at run time) for tensors whose row
/// dims have that length and whose other dims are the first key's, and whose dtypes are
/// `signature`'s; with `ownShapes` an entry of those dtypes also takes the row lengths of
/// its own shape key (sizes it was tuned for).
std::vector<std::vector<int64_t>> entrySizes(const std::vector<const codegen::HostKernel*>& entries,
                                             const std::vector<int64_t>& hinted,
                                             bool ownShapes,
                                             const std::vector<ir::ScalarType>& signature) {
  std::vector<std::vector<int64_t>> out(entries.size());
  if (entries.size() == 1) {
    out[0] = hinted;
    return out;
  }
  const ir::Kernel& k = *entries.front()->kernel;
  const codegen::ShapeTable table = codegen::shapeTable(entries);
  const EntryPicker picker{table, signature};
  const RowDims rows = rowDims(k, *entries.front()->emitted, table);
  for (int64_t h : hinted)
    addOnce(out.at(static_cast<size_t>(picker.pick([&](int t, int d, int, int64_t& size) {
              if (rows.count({t, d}))
                size = h;
            }))),
            h);
  if (ownShapes)
    for (size_t e = 0; e < entries.size(); ++e)
      for (const auto& [name, dims] : entries[e]->shapes)
        if (picker.dtypesMatch(e))
        for (size_t d = 0; d < dims.size(); ++d)
          for (int p = 0; p < static_cast<int>(k.params.size()); ++p)
            if (k.params[p].name == name && rows.count({p, static_cast<int>(d)}))
              addOnce(out[e], dims[d]);
  // The candidates of a "choose" entry run where its first one is picked.
  for (size_t e = 1; e < entries.size(); ++e)
    if (entries[e]->choice > 0)
      for (int64_t size : out[e - static_cast<size_t>(entries[e]->choice)])
        addOnce(out[e], size);
  return out;
}

/// Flash attention's entries are keyed by the head dim, q's innermost dim, which is the
/// value of its hl::specialize'd scalar (config::defaultEntries, or a tuned file's
/// shapes): each --specialize value goes to the entry the launcher picks for tensors of
/// the first key's sizes with that innermost dim and `signature`'s dtypes; with
/// `ownShapes` an entry of those dtypes also takes its own keys' innermost dims that are
/// among the values.
std::vector<std::vector<int64_t>>
entrySpecialized(const std::vector<const codegen::HostKernel*>& entries,
                 const std::vector<int64_t>& values, bool ownShapes,
                 const std::vector<ir::ScalarType>& signature) {
  std::vector<std::vector<int64_t>> out(entries.size());
  const codegen::ShapeTable table = codegen::shapeTable(entries);
  const EntryPicker picker{table, signature};
  for (int64_t value : values)
    addOnce(out.at(static_cast<size_t>(picker.pick([&](int, int d, int rank, int64_t& size) {
              if (d == rank - 1)
                size = value;
            }))),
            value);
  if (ownShapes)
    for (size_t e = 0; e < entries.size(); ++e) {
      const rt::ShapeEntry& entry = table.entries[e];
      for (int key = entry.firstKey; key < entry.firstKey + entry.numKeys; ++key) {
        const rt::ShapeKey& sk = table.keys[key];
        const int64_t inner = sk.rank > 0 ? table.sizes[sk.offset + sk.rank - 1] : -1;
        if (picker.dtypesMatch(e) &&
            std::find(values.begin(), values.end(), inner) != values.end())
          addOnce(out[e], inner);
      }
    }
  return out;
}

} // namespace

AotPlan planAotImages(const std::vector<codegen::HostKernel>& hosts, const AotRequest& request,
                      const std::string& programName) {
  AotPlan plan;
  std::vector<DeviceJob>& jobs = plan.jobs;
  std::vector<const codegen::EmittedKernel*>& owners = plan.owners;
  std::map<const codegen::EmittedKernel*, std::string>& symbols = plan.symbols;
  std::set<std::tuple<const codegen::EmittedKernel*, std::string, std::string>> seen;
  for (size_t first = 0; first < hosts.size();) {
    // The entries of one kernel: consecutive HostKernels of the same kernel.
    std::vector<const codegen::HostKernel*> entries;
    for (size_t i = first; i < hosts.size() && hosts[i].kernel == hosts[first].kernel; ++i)
      entries.push_back(&hosts[i]);
    first += entries.size();
    const ir::Kernel& k = *entries.front()->kernel;
    // Per dtype signature, the sizes each entry runs (entries keyed by other dtypes run
    // none of them).
    std::vector<std::vector<ir::ScalarType>> signatures;
    std::vector<std::vector<std::vector<int64_t>>> sizes; // [spec][entry]
    std::vector<std::vector<std::vector<int64_t>>> specialized; // [spec][entry]
    const bool byHeadDim =
        entries.size() > 1 && ir::templateTiles(k).family == ir::DotTemplate::Attention;
    for (const codegen::DtypeSpec& spec : request.dtypes) {
      signatures.push_back(codegen::signatureOf(k, spec));
      // Head-dim-keyed entries take their sizes from `specialized` below.
      sizes.push_back(byHeadDim ? std::vector<std::vector<int64_t>>(entries.size())
                                : entrySizes(entries, request.hints.sizes, request.ownShapes,
                                             signatures.back()));
      if (byHeadDim)
        specialized.push_back(entrySpecialized(entries, request.hints.specialized,
                                               request.ownShapes, signatures.back()));
    }
    for (size_t entry = 0; entry < entries.size(); ++entry) {
      const codegen::HostKernel& hk = *entries[entry];
      const std::string base =
          "helionc_aot_" + k.name + (entries.size() > 1 ? "_e" + std::to_string(entry) : "");
      const codegen::EmittedKernel* chain = hk.emitted->chain.get();
      // Per spec: the hints of this entry's kernel and of its long-rows kernel (the
      // sizes the launcher hands to it); no sizes: nothing embedded, NVRTC if it runs.
      std::vector<codegen::InstantiationHints> hints(signatures.size(), request.hints),
          longHints(signatures.size(), request.hints);
      bool any = false, anyLong = false;
      for (size_t sp = 0; sp < signatures.size(); ++sp) {
        hints[sp].sizes = sizes[sp][entry];
        if (byHeadDim) { // the head dim picks the entry, not a row length
          hints[sp].specialized = specialized[sp][entry];
          hints[sp].sizes = hints[sp].specialized.empty() ? std::vector<int64_t>{}
                                                          : request.hints.sizes;
        }
        longHints[sp].sizes.clear();
        for (int64_t size : hints[sp].sizes)
          if (codegen::takesLongRows(*hk.emitted, size))
            longHints[sp].sizes.push_back(size);
        any = any || !hints[sp].sizes.empty();
        anyLong = anyLong || !longHints[sp].sizes.empty();
      }
      if (!any)
        continue;
      using Hints = std::vector<codegen::InstantiationHints>;
      std::vector<std::pair<const codegen::EmittedKernel*, const Hints*>> eks = {
          {hk.emitted, &hints}};
      if (hk.emitted->longRows && anyLong)
        eks.push_back({hk.emitted->longRows.get(), &longHints});
      if (chain) // the chain template's program: every K and DV its launcher names
        eks.push_back({chain, &hints});
      for (const auto& [ek, hs] : eks) {
        symbols[ek] = base + (ek == hk.emitted ? "" : ek == chain ? "_chain" : "_long_rows");
        for (const std::string& arch : request.archs)
          for (size_t sp = 0; sp < signatures.size(); ++sp) {
            const codegen::InstantiationHints& h = (*hs)[sp];
            if (h.sizes.empty())
              continue;
            for (const std::string& name :
                 ek == chain ? codegen::chainInstantiations(*ek, arch, signatures[sp], h)
                             : codegen::instantiations(k, *ek, arch, signatures[sp], h)) {
              if (!seen.insert({ek, arch, name}).second)
                continue;
              jobs.push_back({ek->source, programName, name, arch, k.name, false});
              owners.push_back(ek);
            }
          }
      }
    }
  }
  return plan;
}

std::optional<codegen::AotImageMap> compileAotImages(const AotPlan& plan, int parallel,
                                                     const std::string& file,
                                                     DiagnosticEngine& diags, bool showLog) {
  std::optional<std::vector<DeviceOutput>> outputs =
      compileDeviceJobs(plan.jobs, parallel, file, diags, showLog);
  if (!outputs)
    return std::nullopt;
  codegen::AotImageMap map;
  for (size_t j = 0; j < plan.jobs.size(); ++j) {
    codegen::AotLauncherImages& table = map[plan.owners[j]];
    table.symbol = plan.symbols.at(plan.owners[j]);
    table.images.push_back({plan.jobs[j].arch, plan.jobs[j].name, (*outputs)[j].lowered,
                            std::move((*outputs)[j].cubin)});
  }
  return map;
}

} // namespace helion::tool
