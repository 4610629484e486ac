#include "tunekit/tuning/random_tensor.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace tunekit::tuning {
namespace {

TEST(RandnTensor, IsDeterministicPerSeedForEveryType) {
  for (DataType type : core::all_data_types()) {
    auto a = RandnTensor(type, {3, 50}, 7);
    auto b = RandnTensor(type, {3, 50}, 7);
    auto c = RandnTensor(type, {3, 50}, 8);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << core::to_string(type);
    EXPECT_EQ(a->size(), 150);
    EXPECT_EQ(a->bytes(), 150 * core::size_of(type));
    EXPECT_EQ(std::memcmp(a->data(), b->data(), a->bytes()), 0) << core::to_string(type);
    EXPECT_NE(std::memcmp(a->data(), c->data(), a->bytes()), 0) << core::to_string(type);
  }
}

TEST(RandnTensor, ValuesAreNeverAllZeroAndLookNormal) {
  for (DataType type : core::all_data_types()) {
    auto t = RandnTensor(type, {4096}, 1);
    ASSERT_TRUE(t.ok());
    std::int64_t nonzero = 0;
    double sum = 0;
    for (std::int64_t i = 0; i < t->size(); ++i) {
      nonzero += t->element(i) != 0.0;
      sum += t->element(i);
    }
    EXPECT_GT(nonzero, 1000) << core::to_string(type);
    if (core::is_floating_point(type)) {
      EXPECT_LT(std::fabs(sum / 4096.0), 0.1) << core::to_string(type);  // mean near 0
    }
  }
  auto b = RandnTensor(DataType::BOOL, {4096}, 3);
  std::int64_t ones = 0;
  for (std::int64_t i = 0; i < b->size(); ++i) ones += b->as<std::uint8_t>()[i] == 1;
  EXPECT_GT(ones, 1800);
  EXPECT_LT(ones, 2300);
}

TEST(RandnTensor, KnownFirstValuesPinTheGenerator) {
  // Any change of generator or transform changes every calibration input;
  // these literals pin the sequence (mt19937_64 and Box-Muller).
  auto t = RandnTensor(DataType::DOUBLE, {2}, 42);
  ASSERT_TRUE(t.ok());
  EXPECT_NEAR(t->as<double>()[0], -0.48121769980184498, 1e-12);
  EXPECT_NEAR(t->as<double>()[1], -0.57453687389830577, 1e-12);
  auto i = RandnTensor(DataType::INT32, {3}, 42);
  EXPECT_EQ(i->as<std::int32_t>()[0], -481);
  EXPECT_EQ(i->as<std::int32_t>()[1], -575);
  EXPECT_EQ(i->as<std::int32_t>()[2], 495);
}

TEST(RandnTensor, UsesTheGivenAllocatorAndRejectsShortBuffers) {
  int calls = 0;
  TensorAllocator counting = [&](std::size_t bytes) -> Result<platform::DeviceBuffer> {
    ++calls;
    void* p = ::operator new(bytes, std::align_val_t{64});
    return platform::DeviceBuffer(p, bytes, [](void* q) noexcept { ::operator delete(q, std::align_val_t{64}); });
  };
  ASSERT_TRUE(RandnTensor(DataType::FLOAT, {8}, 1, counting).ok());
  EXPECT_EQ(calls, 1);
  TensorAllocator short_buffer = [](std::size_t) -> Result<platform::DeviceBuffer> {
    void* p = ::operator new(4, std::align_val_t{64});
    return platform::DeviceBuffer(p, 4, [](void* q) noexcept { ::operator delete(q, std::align_val_t{64}); });
  };
  EXPECT_FALSE(RandnTensor(DataType::FLOAT, {8}, 1, short_buffer).ok());
  EXPECT_FALSE(RandnTensor(DataType::FLOAT, {-1}, 1).ok());
}

TEST(RandnOperands, OperandsDifferAndFollowTheirShapes) {
  const Shape shapes[] = {{16, 8}, {8}, {1, 8}};
  auto operands = RandnOperands(DataType::FLOAT, shapes, 5);
  ASSERT_TRUE(operands.ok());
  ASSERT_EQ(operands->size(), 3u);
  EXPECT_EQ((*operands)[1].shape, (Shape{8}));
  EXPECT_NE(std::memcmp((*operands)[1].data(), (*operands)[2].data(), 8 * sizeof(float)), 0);
}

TEST(BroadcastShapes, FollowsNumpyRules) {
  EXPECT_EQ(*broadcast_shapes({16, 8}, {8}), (Shape{16, 8}));
  EXPECT_EQ(*broadcast_shapes({4, 1, 8}, {3, 1}), (Shape{4, 3, 8}));
  EXPECT_EQ(*broadcast_shapes({}, {5}), (Shape{5}));
  auto bad = broadcast_shapes({4, 3}, {2});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "shapes [4, 3] and [2] do not broadcast");
}

TEST(BroadcastShapes, BroadcastsToAgreesWithBroadcastShapes) {
  EXPECT_TRUE(broadcasts_to({16, 8}, {8}, {16, 8}));
  EXPECT_TRUE(broadcasts_to({4, 1, 8}, {3, 1}, {4, 3, 8}));
  EXPECT_TRUE(broadcasts_to({}, {5}, {5}));
  EXPECT_TRUE(broadcasts_to({0, 1}, {1, 7}, {0, 7}));
  EXPECT_FALSE(broadcasts_to({4, 3}, {2}, {4, 3}));     // do not broadcast
  EXPECT_FALSE(broadcasts_to({16, 8}, {8}, {8, 16}));   // broadcast to another shape
  EXPECT_FALSE(broadcasts_to({16, 8}, {8}, {1, 16, 8}));  // another rank
  EXPECT_FALSE(broadcasts_to({3}, {}, {}));
}

TEST(CompareTensors, NamesTheFirstDifferenceAndCatchesPoison) {
  auto a = RandnTensor(DataType::FLOAT, {10}, 1);
  auto b = RandnTensor(DataType::FLOAT, {10}, 1);
  EXPECT_TRUE(compare_tensors(*a, *b).is_good());
  b->as<float>()[6] += 1.0f;
  Error e = compare_tensors(*a, *b);
  ASSERT_TRUE(e.is_bad());
  EXPECT_NE(e.message().find("wrong result at element 6"), std::string::npos) << e.message();
  auto c = EmptyTensor(DataType::FLOAT, {10});
  poison(*c);
  EXPECT_TRUE(compare_tensors(*a, *c).is_bad());
  EXPECT_TRUE(compare_tensors(*a, *b, 10.0).is_good());  // within a loose tolerance
}

TEST(CompareTensors, ARelativeToleranceCatchesAWrongSmallResult) {
  auto expected = EmptyTensor(DataType::FLOAT, {4});
  auto actual = EmptyTensor(DataType::FLOAT, {4});
  const float values[] = {1.5e-20f, -3.0e-7f, 0.25f, 1.0e-40f /* subnormal */};
  for (int i = 0; i < 4; ++i) expected->as<float>()[i] = actual->as<float>()[i] = values[i];
  const double tolerance = 0x1p-20;
  actual->as<float>()[0] = 0.0f;  // far off relatively, within 2^-20 absolutely
  EXPECT_TRUE(compare_tensors(*expected, *actual, tolerance).is_good());
  Error e = compare_tensors(*expected, *actual, tolerance, ToleranceScale::RELATIVE);
  ASSERT_TRUE(e.is_bad());
  EXPECT_NE(e.message().find("wrong result at element 0"), std::string::npos) << e.message();
  // A few ULP relatively passes, also for a subnormal result's last unit.
  actual->as<float>()[0] = std::nextafter(values[0], 1.0f);
  actual->as<float>()[1] = std::nextafter(std::nextafter(values[1], 0.0f), 0.0f);
  actual->as<float>()[3] = std::nextafter(values[3], 1.0f);
  EXPECT_TRUE(compare_tensors(*expected, *actual, tolerance, ToleranceScale::RELATIVE).is_good());
  actual->as<float>()[3] = 2.0e-40f;  // twice the subnormal: beyond 2^-20 of the smallest normal
  EXPECT_TRUE(compare_tensors(*expected, *actual, tolerance, ToleranceScale::RELATIVE).is_bad());
}

TEST(CompareTensors, EqualInfinitiesMatchAndOtherInfinitiesDoNot) {
  auto a = RandnTensor(DataType::FLOAT, {4}, 2);
  auto b = RandnTensor(DataType::FLOAT, {4}, 2);
  a->as<float>()[1] = b->as<float>()[1] = INFINITY;
  a->as<float>()[2] = b->as<float>()[2] = -INFINITY;
  EXPECT_TRUE(compare_tensors(*a, *b).is_good());
  EXPECT_TRUE(compare_tensors(*a, *b, 0.5).is_good());
  b->as<float>()[2] = INFINITY;
  EXPECT_TRUE(compare_tensors(*a, *b, 0.5).is_bad());
  b->as<float>()[2] = 3.0e38f;
  Error e = compare_tensors(*a, *b, 0.5);
  ASSERT_TRUE(e.is_bad());
  EXPECT_NE(e.message().find("wrong result at element 2"), std::string::npos) << e.message();
}

}  // namespace
}  // namespace tunekit::tuning
