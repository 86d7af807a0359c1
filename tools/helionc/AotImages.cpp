//===- AotImages.cpp - helionc compile --aot-arch ---------------------------===//
//
// Every instantiation each launcher can name at run time for what is known now
// (codegen::instantiations: the --dtype signatures, --size-hint extents and the
// sizes of a shape-keyed entry, --specialize values, every vector width and EXACT
// bit of a tile axis), compiled for each --aot-arch by NVRTC in parallel children
// (DeviceCompile.h), as the tables rewriteHost embeds.
//===----------------------------------------------------------------------===//
#include "DeviceCompile.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace helion::tool {
namespace {

/// The extents the launcher of `hk`'s config will see on its reduction axes: the
/// hinted ones, and those of this entry's shape key.
std::vector<int64_t> entrySizes(const codegen::HostKernel& hk, const codegen::EmittedKernel& ek,
                                const std::vector<int64_t>& hinted) {
  std::vector<int64_t> sizes = hinted;
  auto addAxis = [&](int axis) {
    if (axis < 0 || axis >= static_cast<int>(hk.kernel->axes.size()))
      return;
    for (const auto& [param, dim] : hk.kernel->axes[axis].tensorDims) {
      auto shape = hk.shapes.find(hk.kernel->params.at(param).name);
      if (shape != hk.shapes.end() && dim >= 0 && dim < static_cast<int>(shape->second.size()) &&
          std::find(sizes.begin(), sizes.end(), shape->second[dim]) == sizes.end())
        sizes.push_back(shape->second[dim]);
    }
  };
  for (const codegen::TemplateArg& t : ek.templateArgs)
    if (t.kind == codegen::TemplateArg::Kind::ReductionDim)
      addAxis(t.index);
  for (const codegen::ExactAxis& e : ek.exactAxes)
    if (!e.isTile)
      addAxis(e.id);
  return sizes;
}

} // namespace

AotPlan planAotImages(const std::vector<codegen::HostKernel>& hosts, const AotRequest& request,
                      const std::string& programName) {
  AotPlan plan;
  std::vector<DeviceJob>& jobs = plan.jobs;
  std::vector<const codegen::EmittedKernel*>& owners = plan.owners;
  std::map<const codegen::EmittedKernel*, std::string>& symbols = plan.symbols;
  std::set<std::tuple<const codegen::EmittedKernel*, std::string, std::string>> seen;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const codegen::HostKernel& hk = hosts[i];
    const ir::Kernel& k = *hk.kernel;
    size_t entry = 0, entries = 0; // this config's index among its kernel's entries
    for (size_t j = 0; j < hosts.size(); ++j)
      if (hosts[j].kernel == hk.kernel) {
        entry += j < i;
        ++entries;
      }
    const std::string base =
        "helionc_aot_" + k.name + (entries > 1 ? "_e" + std::to_string(entry) : "");
    codegen::InstantiationHints hints = request.hints;
    hints.sizes = entrySizes(hk, *hk.emitted, request.hints.sizes);
    // Sizes the launcher hands to the long-rows kernel are that kernel's.
    codegen::InstantiationHints longHints = hints;
    longHints.sizes.clear();
    for (int64_t size : hints.sizes)
      if (codegen::takesLongRows(*hk.emitted, size))
        longHints.sizes.push_back(size);
    std::vector<std::pair<const codegen::EmittedKernel*, const codegen::InstantiationHints*>> eks =
        {{hk.emitted, &hints}};
    if (hk.emitted->longRows && !longHints.sizes.empty())
      eks.push_back({hk.emitted->longRows.get(), &longHints});
    for (const auto& [ek, h] : eks) {
      symbols[ek] = base + (ek == hk.emitted ? "" : "_long_rows");
      for (const std::string& arch : request.archs)
        for (const codegen::DtypeSpec& spec : request.dtypes)
          for (const std::string& name :
               codegen::instantiations(k, *ek, arch, codegen::signatureOf(k, spec), *h)) {
            if (!seen.insert({ek, arch, name}).second)
              continue;
            jobs.push_back({ek->source, programName, name, arch, k.name, false});
            owners.push_back(ek);
          }
    }
  }
  return plan;
}

std::optional<codegen::AotImageMap> compileAotImages(const AotPlan& plan, int parallel,
                                                     const std::string& file,
                                                     DiagnosticEngine& diags) {
  std::optional<std::vector<DeviceOutput>> outputs =
      compileDeviceJobs(plan.jobs, parallel, file, diags);
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
