// out[i, j] = sum of w[di, dj] * in[i + di, j + dj] (fma, di then dj): the
// peer of bench/conv3x3_kernel.h's serial addConv3x3 (FirstCall/conv3x3).
func.func @conv3x3(%in: memref<?x?xf32> {llvm.noalias}, %w: memref<3x3xf32> {llvm.noalias},
                   %out: memref<?x?xf32> {llvm.noalias}) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %out, %c0 : memref<?x?xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %acc = scf.for %di = %c0 to %c3 step %c1 iter_args(%a0 = %zero) -> f32 {
        %row = scf.for %dj = %c0 to %c3 step %c1 iter_args(%a1 = %a0) -> f32 {
          %wv = memref.load %w[%di, %dj] : memref<3x3xf32>
          %y = arith.addi %i, %di : index
          %x = arith.addi %j, %dj : index
          %v = memref.load %in[%y, %x] : memref<?x?xf32>
          %r = math.fma %wv, %v, %a1 : f32
          scf.yield %r : f32
        }
        scf.yield %row : f32
      }
      memref.store %acc, %out[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
