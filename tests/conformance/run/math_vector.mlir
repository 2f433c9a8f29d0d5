// Math functions (intrinsics and libm calls after -convert-math-to-libm) on
// scalars and vectors, and vector printing, shuffles, reductions and
// transfers between memrefs and vectors.
func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %x = arith.constant dense<[0.5, 1.0, 2.25, -3.5]> : vector<4xf32>
  %ax = math.absf %x : vector<4xf32>
  %e = math.exp %x : vector<4xf32>
  vector.print %e : vector<4xf32>
  %l = math.log %ax : vector<4xf32>
  vector.print %l : vector<4xf32>
  %s = math.sin %x : vector<4xf32>
  vector.print %s : vector<4xf32>
  %c = math.cos %x : vector<4xf32>
  vector.print %c : vector<4xf32>
  %q = math.sqrt %ax : vector<4xf32>
  vector.print %q : vector<4xf32>
  %t = math.tanh %x : vector<4xf32>
  vector.print %t : vector<4xf32>
  %at = math.atan2 %x, %ax : vector<4xf32>
  vector.print %at : vector<4xf32>
  %p = math.powf %ax, %x : vector<4xf32>
  vector.print %p : vector<4xf32>
  %fl = math.floor %x : vector<4xf32>
  vector.print %fl : vector<4xf32>
  %er = math.erf %x : vector<4xf32>
  vector.print %er : vector<4xf32>

  %d = arith.constant 0.7 : f64
  %dc = math.cbrt %d : f64
  vector.print %dc : f64
  %dt = math.tan %d : f64
  vector.print %dt : f64
  %de = math.expm1 %d : f64
  vector.print %de : f64

  %i = arith.constant dense<[3, -1, 4, 1, -5, 9, 2, -6]> : vector<8xi32>
  vector.print %i : vector<8xi32>
  %sum = vector.reduction <add>, %i : vector<8xi32> into i32
  vector.print %sum : i32
  %mx = vector.reduction <maxsi>, %i : vector<8xi32> into i32
  vector.print %mx : i32
  %sh = vector.shuffle %i, %i [7, 0, 6, 1, 5, 2, 4, 3] : vector<8xi32>, vector<8xi32>
  vector.print %sh : vector<8xi32>
  %b = arith.cmpi sgt, %i, %sh : vector<8xi32>
  vector.print %b : vector<8xi1>
  %ii = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : vector<2x3xi64>
  vector.print %ii : vector<2x3xi64>
  %hf = arith.constant dense<[1.5, -0.25, 65504.0]> : vector<3xf16>
  vector.print %hf : vector<3xf16>

  %m = memref.alloc() : memref<8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %k = %c0 to %c8 step %c1 {
    %kk = arith.index_cast %k : index to i32
    %f = arith.sitofp %kk : i32 to f32
    memref.store %f, %m[%k] : memref<8xf32>
  }
  %pad = arith.constant -1.0 : f32
  %c6 = arith.constant 6 : index
  %v = vector.transfer_read %m[%c6], %pad : memref<8xf32>, vector<4xf32>
  vector.print %v : vector<4xf32>
  %fma = vector.fma %v, %v, %x : vector<4xf32>
  vector.transfer_write %fma, %m[%c0] : vector<4xf32>, memref<8xf32>
  %u = memref.cast %m : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %m : memref<8xf32>
  return
}
