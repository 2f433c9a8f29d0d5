// C = A * B, the triple loop with a loop-carried fma: the peer of the kernel
// library's addMatmul (Kernel/matmul_naive, Compile/matmul).
func.func @matmul_naive(%A: memref<?x?xf32> {llvm.noalias}, %B: memref<?x?xf32> {llvm.noalias},
                        %C: memref<?x?xf32> {llvm.noalias}) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %M = memref.dim %C, %c0 : memref<?x?xf32>
  %N = memref.dim %C, %c1 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %M step %c1 {
    scf.for %j = %c0 to %N step %c1 {
      %s = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %z) -> f32 {
        %a = memref.load %A[%i, %k] : memref<?x?xf32>
        %b = memref.load %B[%k, %j] : memref<?x?xf32>
        %r = math.fma %a, %b, %acc : f32
        scf.yield %r : f32
      }
      memref.store %s, %C[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
