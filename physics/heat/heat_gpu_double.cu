#include "physics/heat/heat_gpu_impl.cuh"

template class tridsim::HeatGpu<double>;
