//===- MatmulLauncher.h - Host launcher of a tensor-core matmul -*- C++ -*-===//
#pragma once

#include "CudaNames.h"
#include "helion/CodeGen/HostRewriter.h"

#include <functional>
#include <string>

namespace helion::codegen {

/// What the launcher's parts read of a matmul's host kernel: its IR, the emitted
/// kernel's launch data, its form, and the names of its A and B tensors.
struct MatmulHost {
  explicit MatmulHost(const HostKernel& hk)
      : k(*hk.kernel), ek(*hk.emitted), mm(*ek.matmul), batched(mm.batch != nullptr),
        grouped(mm.groups != nullptr), a(pname(mm.a)), b(pname(mm.b)) {}
  std::string pname(int p) const { return genName(k.params.at(p)); }

  const ir::Kernel& k;
  const EmittedKernel& ek;
  const MatmulLaunch& mm;
  const bool batched, grouped; ///< bmm: A, B [B, ...]; grouped: A [M, K], B [G, K, N], offsets
  const std::string a, b;
};

/// The launcher function of a kernel emitted by emitMatmul (HostKernel::emitted->matmul
/// is set): checks, tensor maps, dynamic shared memory, grid, and the sm90 / sm80 choice.
/// `hostExpr` spells a scalar IR expression (an extent) in host C++.
std::string matmulLauncher(const HostKernel& hk, const std::string& fileName,
                           const std::function<std::string(const ir::Expr&)>& hostExpr,
                           const std::string& launcherName);

/// The launcher's checks of the extents and operands (MatmulOperandChecks.cpp): the
/// statements that define M, N, K (and B or G) and check every tensor argument.
/// `general`, when not empty, names the launcher of the kernel's general-lowering
/// program (EmittedKernel::general), which runs operands the template cannot read
/// instead of the checks refusing them.
std::string matmulOperandChecks(const HostKernel& hk,
                                const std::function<std::string(const ir::Expr&)>& hostExpr,
                                const std::string& general = "");

} // namespace helion::codegen
