// Hand-written LLVM IR in MLIR's memref calling convention, with memjit's
// metadata constants, for JIT tests that must not depend on codegen.
#pragma once

#include <string>

#include "memjit/signature/function_signature.h"
#include "memjit/type_syntax.h"

namespace memjit::test {

/// `@<name>` as a NUL-terminated constant global.
inline std::string constantString(const std::string& symbol, const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 32) {
      static const char* hex = "0123456789ABCDEF";
      escaped += '\\';
      escaped += hex[(static_cast<unsigned char>(c) >> 4) & 15];
      escaped += hex[static_cast<unsigned char>(c) & 15];
    } else {
      escaped += c;
    }
  }
  return "@" + symbol + " = constant [" + std::to_string(text.size() + 1) + " x i8] c\"" +
         escaped + "\\00\"\n";
}

/// The metadata globals codegen embeds for `name : type` (from signature::describe).
inline std::string metadataIR(const std::string& name, const std::string& type) {
  auto fnType = parseFunctionType(type);
  std::string ir = constantString("_memjit_type_" + name, type);
  if (fnType) {
    auto sig = signature::describe(name, *fnType);
    if (sig) {
      ir += constantString("_memjit_f_" + name, sig->raw);
      ir += constantString("_memjit_abi_" + name, sig->reflection);
    }
  }
  return ir;
}

/// c[i] = a[i] + b[i] over memref<?xf32> (strided), as MLIR lowers it, with
/// its C interface and metadata.
inline std::string addKernelIR(const std::string& name = "add", bool withMetadata = true) {
  std::string ir = R"(
define void @NAME(ptr %a0, ptr %a1, i64 %a2, i64 %a3, i64 %a4, ptr %b0, ptr %b1, i64 %b2, i64 %b3, i64 %b4, ptr %c0, ptr %c1, i64 %c2, i64 %c3, i64 %c4) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %body ]
  %cond = icmp slt i64 %i, %a3
  br i1 %cond, label %body, label %exit
body:
  %ia = mul i64 %i, %a4
  %oa = add i64 %a2, %ia
  %pa = getelementptr float, ptr %a1, i64 %oa
  %va = load float, ptr %pa
  %ib = mul i64 %i, %b4
  %ob = add i64 %b2, %ib
  %pb = getelementptr float, ptr %b1, i64 %ob
  %vb = load float, ptr %pb
  %ic = mul i64 %i, %c4
  %oc = add i64 %c2, %ic
  %pc = getelementptr float, ptr %c1, i64 %oc
  %s = fadd float %va, %vb
  store float %s, ptr %pc
  %next = add i64 %i, 1
  br label %loop
exit:
  ret void
}

define void @_mlir_ciface_NAME(ptr %a, ptr %b, ptr %c) {
  %da = load { ptr, ptr, i64, [1 x i64], [1 x i64] }, ptr %a
  %a0 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %da, 0
  %a1 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %da, 1
  %a2 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %da, 2
  %a3 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %da, 3, 0
  %a4 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %da, 4, 0
  %db = load { ptr, ptr, i64, [1 x i64], [1 x i64] }, ptr %b
  %b0 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %db, 0
  %b1 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %db, 1
  %b2 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %db, 2
  %b3 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %db, 3, 0
  %b4 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %db, 4, 0
  %dc = load { ptr, ptr, i64, [1 x i64], [1 x i64] }, ptr %c
  %c0 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %dc, 0
  %c1 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %dc, 1
  %c2 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %dc, 2
  %c3 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %dc, 3, 0
  %c4 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %dc, 4, 0
  call void @NAME(ptr %a0, ptr %a1, i64 %a2, i64 %a3, i64 %a4, ptr %b0, ptr %b1, i64 %b2, i64 %b3, i64 %b4, ptr %c0, ptr %c1, i64 %c2, i64 %c3, i64 %c4)
  ret void
}
)";
  for (std::size_t at; (at = ir.find("NAME")) != std::string::npos;) ir.replace(at, 4, name);
  if (withMetadata)
    ir += metadataIR(name, "(memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()");
  return ir;
}

/// `f32 <name>(f32 x)` returning `<callee>(x) * 2`, where `<callee>` is
/// external (a registered or process symbol).
inline std::string callerIR(const std::string& name, const std::string& callee) {
  return "declare float @" + callee + "(float)\n" + "define float @" + name +
         "(float %x) {\n  %r = call float @" + callee + "(float %x)\n  %d = fmul float %r, 2.0\n" +
         "  ret float %d\n}\n" + "define float @_mlir_ciface_" + name +
         "(float %x) {\n  %r = call float @" + name + "(float %x)\n  ret float %r\n}\n" +
         metadataIR(name, "(f32) -> f32");
}

/// `i64 <name>()` returning `value`, with metadata: the smallest module.
inline std::string constantIR(const std::string& name, long value) {
  return "define i64 @" + name + "() {\n  ret i64 " + std::to_string(value) + "\n}\n" +
         "define i64 @_mlir_ciface_" + name + "() {\n  %r = call i64 @" + name +
         "()\n  ret i64 %r\n}\n" + metadataIR(name, "() -> i64");
}

}  // namespace memjit::test
