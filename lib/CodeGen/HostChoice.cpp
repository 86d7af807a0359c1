//===- HostChoice.cpp - The launcher of a "choose" entry -------------------===//
#include "HostChoice.h"

#include "CudaLiteral.h"
#include "helion/IR/Visitor.h"

#include <algorithm>
#include <functional>
#include <sstream>

namespace helion::codegen {

using namespace ir;

namespace {

/// The tensor parameters the kernel stores to, in parameter order.
std::vector<int> writtenTensors(const Kernel& k) {
  std::vector<bool> written(k.params.size(), false);
  walkStmts(k.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::Store && s.param >= 0)
      written.at(static_cast<size_t>(s.param)) = true;
  });
  std::vector<int> out;
  for (size_t p = 0; p < written.size(); ++p)
    if (written[p] && k.params[p].kind == Param::Kind::Tensor)
      out.push_back(static_cast<int>(p));
  return out;
}

} // namespace

std::string chooser(const Kernel& k, const std::vector<int>& keys, size_t first, size_t count) {
  std::ostringstream os;
  const std::string entry = "helionc_launch_" + k.name + "_e";
  const std::vector<int> written = writtenTensors(k);
  auto call = [&](size_t e, bool scratch) {
    std::string args;
    for (size_t p = 0; p < k.params.size(); ++p) {
      auto w = std::find(written.begin(), written.end(), static_cast<int>(p));
      args += (p ? ", " : "");
      args += scratch && w != written.end()
                  ? "*scratch[" + std::to_string(w - written.begin()) + "]"
                  : genName(k.params[p]);
    }
    return entry + std::to_string(e) + "(" + args + ")";
  };
  os << "// helionc: run-time choice among entries " << first << ".." << first + count - 1
     << " of kernel '" << k.name << "' (a \"choose\" entry; generated)\n";
  os << launcherSignature(k, "helionc_choose_" + k.name + "_e" + std::to_string(first),
                          cppScalarType);
  os << "  static helion::rt::KernelChoice choice(\"" << k.name << "\", " << count << ");\n";
  os << "  const helion::Tensor* keyTensors[] = {";
  for (size_t i = 0; i < keys.size(); ++i)
    os << (i ? ", " : "") << "&" << genName(k.params[keys[i]]);
  os << (keys.empty() ? "nullptr" : "") << "};\n";
  os << "  int64_t key[helion::rt::kMaxChoiceKey];\n";
  os << "  const int keyLength = helion::rt::choiceKey(keyTensors, " << keys.size() << ", key);\n";
  os << "  int winner = choice.find(key, keyLength);\n";
  os << "  if (winner < 0) {\n";
  os << "    // Timed on scratch copies of what the kernel writes: the real outputs are\n"
        "    // written once, by the winner, below.\n";
  os << "    const helion::Tensor* written[] = {";
  for (size_t i = 0; i < written.size(); ++i)
    os << (i ? ", " : "") << "&" << genName(k.params[written[i]]);
  os << (written.empty() ? "nullptr" : "") << "};\n";
  os << "    winner = choice.decide(key, keyLength, written, " << written.size()
     << ", [&](int c, [[maybe_unused]] const helion::Tensor* const* scratch) {\n";
  os << "      switch (c) {\n";
  for (size_t c = 0; c < count; ++c)
    os << "      case " << c << ": " << call(first + c, true) << "; return;\n";
  os << "      }\n    });\n  }\n";
  os << "  switch (winner) {\n";
  for (size_t c = 0; c < count; ++c)
    os << "  case " << c << ": " << call(first + c, false) << "; return;\n";
  os << "  }\n}\n\n";
  return os.str();
}


} // namespace helion::codegen
