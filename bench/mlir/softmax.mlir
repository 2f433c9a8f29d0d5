// out = softmax(in) row by row, max-subtracted: the peer of the kernel
// library's addSoftmax (FirstCall/softmax): m = max(row), e = exp(x - m),
// out = e * (1 / sum(e)), three loops per row.
func.func @softmax(%in: memref<?x?xf32> {llvm.noalias}, %out: memref<?x?xf32> {llvm.noalias})
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %rows = memref.dim %in, %c0 : memref<?x?xf32>
  %cols = memref.dim %in, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    %m = scf.for %j = %c0 to %cols step %c1 iter_args(%acc = %ninf) -> f32 {
      %x = memref.load %in[%i, %j] : memref<?x?xf32>
      %r = arith.maxnumf %acc, %x : f32
      scf.yield %r : f32
    }
    %s = scf.for %j = %c0 to %cols step %c1 iter_args(%acc = %zero) -> f32 {
      %x = memref.load %in[%i, %j] : memref<?x?xf32>
      %d = arith.subf %x, %m : f32
      %e = math.exp %d : f32
      memref.store %e, %out[%i, %j] : memref<?x?xf32>
      %r = arith.addf %acc, %e : f32
      scf.yield %r : f32
    }
    %inv = arith.divf %one, %s : f32
    scf.for %j = %c0 to %cols step %c1 {
      %e = memref.load %out[%i, %j] : memref<?x?xf32>
      %r = arith.mulf %e, %inv : f32
      memref.store %r, %out[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
