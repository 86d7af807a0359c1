//===- Spec.cpp - helionc spec ---------------------------------------------===//
#include "Driver.h"

#include <iostream>

namespace helion::tool {

void registerSpec(CLI::App& app) {
  auto in = std::make_shared<InputOptions>();
  CLI::App* cmd = app.add_subcommand("spec", "print each kernel's config spec and default config");
  addInputOptions(*cmd, *in);
  cmd->callback([in] {
    DiagnosticEngine diags(std::cerr);
    diags.setColor(stderrWantsColor());
    auto kernels = analyze(*in, {}, nullptr, diags);
    if (!kernels)
      std::exit(1);
    for (const AnalyzedKernel& k : *kernels)
      std::cout << config::formatSpec(k.spec) << "\n";
  });
}

} // namespace helion::tool
