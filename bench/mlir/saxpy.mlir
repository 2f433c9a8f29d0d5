// y[i] = fma(alpha, x[i], y[i]): the peer of the kernel library's addSaxpy (Kernel/saxpy).
func.func @saxpy(%alpha: f32, %x: memref<?xf32> {llvm.noalias}, %y: memref<?xf32> {llvm.noalias})
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %y, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %xv = memref.load %x[%i] : memref<?xf32>
    %yv = memref.load %y[%i] : memref<?xf32>
    %r = math.fma %alpha, %xv, %yv : f32
    memref.store %r, %y[%i] : memref<?xf32>
  }
  return
}
