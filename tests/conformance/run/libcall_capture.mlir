// A module defining a function with a libm name (sinf) and using the
// intrinsic LLVM lowers to a call of that name: as in any static link of one
// object, the call LLVM emits binds to the module's own sinf (42 + 42), and
// with -O2 LLVM folds both calls as the library function (2 * sin(0.5)).
llvm.func @sinf(%x: f32) -> f32 {
  %c = llvm.mlir.constant(42.0 : f32) : f32
  llvm.return %c : f32
}
llvm.func @main() -> f32 {
  %c = llvm.mlir.constant(0.5 : f32) : f32
  %r = llvm.intr.sin(%c) : (f32) -> f32
  %q = llvm.call @sinf(%c) : (f32) -> f32
  %s = llvm.fadd %r, %q : f32
  llvm.return %s : f32
}
