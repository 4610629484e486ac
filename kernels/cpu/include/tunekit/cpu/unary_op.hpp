// The unary elementwise operations of tunekit_cpu and their stable names (the
// kernel names of their tuning keys). A header of its own, without standard
// containers, so that the instruction-set files (tunekit/cpu/isa.hpp) can
// include it.
#pragma once

#include <string_view>

namespace tunekit::cpu {

enum class UnaryOp { ABS, NOT, NEG, EXP, LOG, SQRT, RELU, SIGMOID, TANH, ERF };

// Every UnaryOp, in declaration order.
inline constexpr UnaryOp kAllUnaryOps[] = {UnaryOp::ABS,  UnaryOp::NOT,  UnaryOp::NEG,     UnaryOp::EXP,
                                           UnaryOp::LOG,  UnaryOp::SQRT, UnaryOp::RELU,    UnaryOp::SIGMOID,
                                           UnaryOp::TANH, UnaryOp::ERF};

// "Abs", "Not", "Neg", "Exp", "Log", "Sqrt", "Relu", "Sigmoid", "Tanh", "Erf".
std::string_view to_string(UnaryOp op) noexcept;

}  // namespace tunekit::cpu
