#define NUMERICS_NAMESPACE native
#include "numerics.inc"
