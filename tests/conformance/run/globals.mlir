// Globals (memref.global, constant and mutable), read and written by two
// functions, and static constructors/destructors (llvm.mlir.global_ctors and
// global_dtors, lowered to llvm.global_ctors/dtors) run around the entry.
func.func private @printMemrefF32(memref<*xf32>)
// The constructors and destructor are written in the LLVM dialect (the
// ctor/dtor lists must name llvm.func), as is the counter they share with main.
llvm.func @printI64(i64)
llvm.func @printNewline()

memref.global "private" constant @table : memref<2x3xf32> = dense<[[1.0, 2.5, -3.0], [4.0, 0.125, 6.0]]>
memref.global @acc : memref<3xf32> = uninitialized
llvm.mlir.global internal @counter(0 : i64) : i64

llvm.func @bump(%by: i64) {
  %g = llvm.mlir.addressof @counter : !llvm.ptr
  %v = llvm.load %g : !llvm.ptr -> i64
  %w = llvm.add %v, %by : i64
  llvm.store %w, %g : i64, !llvm.ptr
  llvm.call @printI64(%w) : (i64) -> ()
  llvm.call @printNewline() : () -> ()
  llvm.return
}

llvm.func @ctor_early() {
  %c = llvm.mlir.constant(1 : i64) : i64
  llvm.call @bump(%c) : (i64) -> ()
  llvm.return
}

llvm.func @ctor_late() {
  %c = llvm.mlir.constant(10 : i64) : i64
  llvm.call @bump(%c) : (i64) -> ()
  llvm.return
}

llvm.func @dtor() {
  %c = llvm.mlir.constant(100 : i64) : i64
  llvm.call @bump(%c) : (i64) -> ()
  llvm.return
}

llvm.mlir.global_ctors {ctors = [@ctor_late, @ctor_early], priorities = [200 : i32, 100 : i32]}
llvm.mlir.global_dtors {dtors = [@dtor], priorities = [0 : i32]}

func.func @main() {
  %t = memref.get_global @table : memref<2x3xf32>
  %ut = memref.cast %t : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%ut) : (memref<*xf32>) -> ()
  %a = memref.get_global @acc : memref<3xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  scf.for %j = %c0 to %c3 step %c1 {
    %x = memref.load %t[%c0, %j] : memref<2x3xf32>
    %y = memref.load %t[%c1, %j] : memref<2x3xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %a[%j] : memref<3xf32>
  }
  %ua = memref.cast %a : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%ua) : (memref<*xf32>) -> ()
  %k = arith.constant 1000 : i64
  llvm.call @bump(%k) : (i64) -> ()
  return
}
