// C = A * B tiled 32 x 128 x 256 (i, k, j), k by fours: the loop nest of
// bench_kernels.cpp's addTiledMatmul and nativeMatmulTiled (Kernel/matmul_tiled).
func.func @matmul_tiled(%A: memref<?x?xf32> {llvm.noalias}, %B: memref<?x?xf32> {llvm.noalias},
                        %C: memref<?x?xf32> {llvm.noalias}) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %ti = arith.constant 32 : index
  %tk = arith.constant 128 : index
  %tj = arith.constant 256 : index
  %z = arith.constant 0.0 : f32
  %M = memref.dim %C, %c0 : memref<?x?xf32>
  %N = memref.dim %C, %c1 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %M step %c1 {
    scf.for %j = %c0 to %N step %c1 {
      memref.store %z, %C[%i, %j] : memref<?x?xf32>
    }
  }
  scf.for %i0 = %c0 to %M step %ti {
    %ie0 = arith.addi %i0, %ti : index
    %ie = arith.minsi %ie0, %M : index
    scf.for %k0 = %c0 to %K step %tk {
      %ke0 = arith.addi %k0, %tk : index
      %ke = arith.minsi %ke0, %K : index
      scf.for %j0 = %c0 to %N step %tj {
        %je0 = arith.addi %j0, %tj : index
        %je = arith.minsi %je0, %N : index
        scf.for %i = %i0 to %ie step %c1 {
          %kspan = arith.subi %ke, %k0 : index
          %kq = arith.divsi %kspan, %c4 : index
          %kq4 = arith.muli %kq, %c4 : index
          %k4 = arith.addi %k0, %kq4 : index
          scf.for %k = %k0 to %k4 step %c4 {
            %k1 = arith.addi %k, %c1 : index
            %k2 = arith.addi %k, %c2 : index
            %k3 = arith.addi %k, %c3 : index
            %a0 = memref.load %A[%i, %k] : memref<?x?xf32>
            %a1 = memref.load %A[%i, %k1] : memref<?x?xf32>
            %a2 = memref.load %A[%i, %k2] : memref<?x?xf32>
            %a3 = memref.load %A[%i, %k3] : memref<?x?xf32>
            scf.for %j = %j0 to %je step %c1 {
              %c = memref.load %C[%i, %j] : memref<?x?xf32>
              %b0 = memref.load %B[%k, %j] : memref<?x?xf32>
              %r0 = math.fma %a0, %b0, %c : f32
              %b1 = memref.load %B[%k1, %j] : memref<?x?xf32>
              %r1 = math.fma %a1, %b1, %r0 : f32
              %b2 = memref.load %B[%k2, %j] : memref<?x?xf32>
              %r2 = math.fma %a2, %b2, %r1 : f32
              %b3 = memref.load %B[%k3, %j] : memref<?x?xf32>
              %r3 = math.fma %a3, %b3, %r2 : f32
              memref.store %r3, %C[%i, %j] : memref<?x?xf32>
            }
          }
          scf.for %k = %k4 to %ke step %c1 {
            %a = memref.load %A[%i, %k] : memref<?x?xf32>
            scf.for %j = %j0 to %je step %c1 {
              %b = memref.load %B[%k, %j] : memref<?x?xf32>
              %c = memref.load %C[%i, %j] : memref<?x?xf32>
              %r = math.fma %a, %b, %c : f32
              memref.store %r, %C[%i, %j] : memref<?x?xf32>
            }
          }
        }
      }
    }
  }
  return
}
