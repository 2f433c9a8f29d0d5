// out[i] = a[i] + b[i]: the peer of the kernel library's addElementwiseAdd
// (Kernel/add, Compile/add).
func.func @add(%a: memref<?xf32> {llvm.noalias}, %b: memref<?xf32> {llvm.noalias}, %o: memref<?xf32> {llvm.noalias})
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %o, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = memref.load %b[%i] : memref<?xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %o[%i] : memref<?xf32>
  }
  return
}
