//===- Depfile.cpp - helionc compile --depfile -----------------------------===//
//
// A Makefile-syntax depfile, as `c++ -MD -MF` writes one, for Ninja (`depfile =`),
// CMake (add_custom_command(DEPFILE)) and make (`-include`): one rule whose target is
// the file a compile wrote (the host file) and whose prerequisites are the files it
// read, one per line (each line but the last continued with a backslash):
//
//   out/softmax.helion.cpp: [backslash]
//    examples/softmax.cpp [backslash]
//    /opt/helionc/include/helion/hl.h [backslash]
//    (one line per header)
//
// Paths are written as helionc was given them (relative ones relative to the working
// directory, as `c++ -MD` does: make matches targets by name), a space, '#' or '$' in
// one escaped as make and Ninja read it ("\ ", "\#", "$$").
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "helion/Tune/AtomicFile.h"

#include <set>

namespace helion::tool {
namespace {

/// `path` escaped, or nullopt when no depfile can name it (a line break in it).
std::optional<std::string> depfileName(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '\n' || c == '\r')
      return std::nullopt;
    if (c == ' ' || c == '#')
      out += '\\';
    if (c == '$')
      out += '$';
    out += c;
  }
  return out;
}

/// `paths` as depfile names, each once, in order; nullopt and the culprit in `bad`
/// when one cannot be named.
std::optional<std::vector<std::string>> depfileNames(const std::vector<std::string>& paths,
                                                     std::string& bad) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const std::string& p : paths) {
    std::optional<std::string> name = depfileName(p);
    if (!name) {
      bad = p;
      return std::nullopt;
    }
    if (seen.insert(*name).second)
      names.push_back(std::move(*name));
  }
  return names;
}

} // namespace

std::optional<std::string> writeDepfile(const std::string& depfile,
                                        const std::vector<std::string>& targets,
                                        const std::vector<std::string>& prerequisites) {
  std::string bad;
  auto outs = depfileNames(targets, bad);
  auto ins = outs ? depfileNames(prerequisites, bad) : std::nullopt;
  if (!outs || !ins)
    return "cannot write depfile '" + depfile + "': it cannot name '" + bad +
           "' (a line break in a path)";
  std::string text;
  for (const std::string& t : *outs)
    text += (text.empty() ? "" : " ") + t;
  text += ":";
  for (const std::string& p : *ins)
    text += " \\\n " + p;
  text += "\n";
  return tune::writeFileAtomically(depfile, text);
}

} // namespace helion::tool
