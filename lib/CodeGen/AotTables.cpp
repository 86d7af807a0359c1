//===- AotTables.cpp - Kernel images embedded in the host file -------------===//
#include "AotTables.h"

#include <sstream>

namespace helion::codegen {

std::string aotTableRef(const HostKernel& hk, const EmittedKernel& ek) {
  if (!hk.aot)
    return "";
  auto it = hk.aot->find(&ek);
  return it == hk.aot->end() || it->second.images.empty() ? "" : "&" + it->second.symbol + "()";
}

std::string aotDeclarations(const AotImageMap& aot) {
  std::string out;
  for (const auto& [ek, table] : aot)
    if (!table.images.empty())
      out += "static const helion::rt::AotTable& " + table.symbol + "();\n";
  if (!out.empty())
    out = "// helionc: kernel images compiled ahead of time, defined at the end of this file\n" +
          out;
  return out;
}

std::string cxxBytesLiteral(const std::string& bytes) {
  constexpr size_t kLine = 96;
  std::string out = "\"";
  size_t lineStart = 0;
  for (unsigned char c : bytes) {
    if (out.size() - lineStart >= kLine) {
      out += "\"\n        \"";
      lineStart = out.size();
    }
    // Three-digit octal escapes never run into the digit after them, as hex ones do.
    if (c == '"' || c == '\\' || c == '?' || c < 0x20 || c >= 0x7f) {
      const char octal[] = {'\\', char('0' + (c >> 6)), char('0' + ((c >> 3) & 7)),
                            char('0' + (c & 7)), 0};
      out += octal;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string aotDefinitions(const AotImageMap& aot, const std::string& program) {
  std::ostringstream os;
  for (const auto& [ek, table] : aot) {
    if (table.images.empty())
      continue;
    os << "\n// helionc: kernel images compiled ahead of time (generated, do not edit)\n";
    os << "static const helion::rt::AotTable& " << table.symbol << "() {\n";
    for (size_t i = 0; i < table.images.size(); ++i)
      os << "  alignas(64) static const char kImage" << i << "[] =\n        "
         << cxxBytesLiteral(table.images[i].cubin) << ";\n";
    os << "  static const helion::rt::AotImage kImages[] = {\n";
    for (size_t i = 0; i < table.images.size(); ++i) {
      const AotImage& image = table.images[i];
      os << "      {\"" << image.arch << "\", \"" << image.name << "\", \"" << image.lowered
         << "\", kImage" << i << ", sizeof(kImage" << i << ") - 1},\n";
    }
    os << "  };\n";
    os << "  static const helion::rt::AotTable kTable = {\"" << program << "\", kImages, "
       << table.images.size() << "};\n";
    os << "  return kTable;\n}\n";
    os << "static const helion::rt::AotRegistration " << table.symbol << "_registered("
       << table.symbol << "());\n";
  }
  return os.str();
}

} // namespace helion::codegen
