// What the matmul engine tests share: the activations of the epilogue in
// double precision, written from their definitions (independent of the
// engines' own), and the pointwise mode that builds each in a graph.
#pragma once

#include <cmath>

#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/graph/operation.hpp"

namespace tunekit::engines {

inline double activate(Activation activation, double x) {
  switch (activation) {
    case Activation::NONE: return x;
    case Activation::RELU: return x > 0 ? x : 0;
    case Activation::GELU: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case Activation::SIGMOID: return 1 / (1 + std::exp(-x));
    case Activation::TANH: return std::tanh(x);
  }
  return x;
}

inline graph::PointwiseMode mode_of(Activation activation) {
  switch (activation) {
    case Activation::RELU: return graph::PointwiseMode::RELU;
    case Activation::GELU: return graph::PointwiseMode::GELU;
    case Activation::SIGMOID: return graph::PointwiseMode::SIGMOID;
    case Activation::TANH: return graph::PointwiseMode::TANH;
    case Activation::NONE: break;
  }
  return graph::PointwiseMode::IDENTITY;
}

}  // namespace tunekit::engines
