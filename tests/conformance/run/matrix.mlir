// llvm.matrix.* intrinsics (from vector.matrix_multiply and
// vector.flat_transpose), which only LLVM's LowerMatrixIntrinsics pass can
// compile: run with -O0 -enable-matrix -matrix-allow-contract
// -matrix-default-layout=row-major, the LLVM options MLIR's own tests pass.
func.func @main() {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : vector<6xf32>
  %b = arith.constant dense<[0.5, -1.0, 2.0, 0.25, 1.5, 3.0]> : vector<6xf32>
  // (2x3) * (3x2), row-major
  %c = vector.matrix_multiply %a, %b { lhs_rows = 2 : i32, lhs_columns = 3 : i32, rhs_columns = 2 : i32 }
      : (vector<6xf32>, vector<6xf32>) -> vector<4xf32>
  vector.print %c : vector<4xf32>
  %t = vector.flat_transpose %a { rows = 2 : i32, columns = 3 : i32 } : vector<6xf32> -> vector<6xf32>
  vector.print %t : vector<6xf32>
  %i = arith.constant dense<[1, 2, 3, 4]> : vector<4xi64>
  %ii = vector.matrix_multiply %i, %i { lhs_rows = 2 : i32, lhs_columns = 2 : i32, rhs_columns = 2 : i32 }
      : (vector<4xi64>, vector<4xi64>) -> vector<4xi64>
  vector.print %ii : vector<4xi64>
  return
}
