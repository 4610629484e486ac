# Finds every third-party dependency of tunekit. Each comes from a Debian
# package; a missing one stops configuration with the package to install.
include_guard(GLOBAL)

find_package(PkgConfig QUIET)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "tunekit: pkg-config not found. Install the Debian package 'pkg-config' (or run scripts/bootstrap).")
endif()

function(_tunekit_missing what package)
  message(FATAL_ERROR "tunekit: ${what} not found. Install the Debian package '${package}' (or run scripts/bootstrap).")
endfunction()

macro(_tunekit_find_config name target package)
  find_package(${name} CONFIG QUIET)
  if(NOT TARGET ${target})
    _tunekit_missing(${name} ${package})
  endif()
endmacro()

macro(_tunekit_find_pkgconfig module target package)
  pkg_check_modules(${target} QUIET IMPORTED_TARGET GLOBAL ${module})
  if(NOT ${target}_FOUND)
    _tunekit_missing(${module} ${package})
  endif()
endmacro()

_tunekit_find_config(tomlplusplus tomlplusplus::tomlplusplus libtomlplusplus-dev)
_tunekit_find_config(nlohmann_json nlohmann_json::nlohmann_json nlohmann-json3-dev)
_tunekit_find_config(CLI11 CLI11::CLI11 libcli11-dev)
_tunekit_find_config(fmt fmt::fmt libfmt-dev)
_tunekit_find_config(spdlog spdlog::spdlog libspdlog-dev)

# xxHash, cpuinfo and hwloc ship pkg-config files; Debian's CMake config for
# cpuinfo is broken, so pkg-config is the reliable way for all three.
_tunekit_find_pkgconfig(libxxhash tunekit_xxhash libxxhash-dev)
_tunekit_find_pkgconfig(libcpuinfo tunekit_cpuinfo libcpuinfo-dev)
_tunekit_find_pkgconfig(hwloc tunekit_hwloc libhwloc-dev)

find_package(OpenMP QUIET COMPONENTS CXX)
if(NOT OpenMP_CXX_FOUND)
  _tunekit_missing(OpenMP "libgomp1 (GCC) or libomp-dev (Clang)")
endif()

find_package(Threads REQUIRED)

if(TUNEKIT_BUILD_TESTS)
  _tunekit_find_config(GTest GTest::gtest libgtest-dev)
  if(NOT TARGET GTest::gmock)
    _tunekit_missing(GoogleMock libgmock-dev)
  endif()
endif()
if(TUNEKIT_BUILD_BENCHMARKS)
  _tunekit_find_config(benchmark benchmark::benchmark libbenchmark-dev)
endif()

# The libraries of the CPU engine providers (kernels/cpu/engines):
# optional for tunekit itself (a missing one leaves its engines out, see
# kernels/cpu/engines/CMakeLists.txt), required by the tests and benchmarks,
# which compare against them. Debian installs BLIS in a folder of its own, and
# its libblas/cblas symbols would clash with OpenBLAS's: tunekit uses its bli_*
# API only. The static archive comes first: it holds the context of every
# configuration BLIS was built with (bli_gks_lookup_nat_cntx, which the
# shared library keeps internal), so that the configuration is a knob; from
# it the linker takes only the objects bli_* calls need, never the BLAS layer.
pkg_check_modules(tunekit_openblas QUIET IMPORTED_TARGET GLOBAL openblas)
find_path(TUNEKIT_BLIS_INCLUDE_DIR blis.h PATH_SUFFIXES x86_64-linux-gnu/blis-openmp blis-openmp blis)
find_library(TUNEKIT_BLIS_LIBRARY NAMES libblis.a blis PATH_SUFFIXES blis-openmp x86_64-linux-gnu/blis-openmp)
if(TUNEKIT_BLIS_INCLUDE_DIR AND TUNEKIT_BLIS_LIBRARY)
  add_library(tunekit_blis INTERFACE IMPORTED GLOBAL)
  target_include_directories(tunekit_blis INTERFACE "${TUNEKIT_BLIS_INCLUDE_DIR}")
  target_link_libraries(tunekit_blis INTERFACE "${TUNEKIT_BLIS_LIBRARY}")
  if(TUNEKIT_BLIS_LIBRARY MATCHES "\\.a$")
    # BLIS's OpenMP build: its threads are libgomp's.
    find_package(OpenMP REQUIRED COMPONENTS CXX)
    target_link_libraries(tunekit_blis INTERFACE OpenMP::OpenMP_CXX Threads::Threads m)
    target_compile_definitions(tunekit_blis INTERFACE TUNEKIT_BLIS_CONFIGURATIONS=1)
  endif()
endif()
# oneDNN by its header and library: Debian's CMake package of oneDNN 2.6
# requires OpenCL's development files, which its CPU engines do not use.
find_path(TUNEKIT_DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
find_library(TUNEKIT_DNNL_LIBRARY dnnl)
if(TUNEKIT_DNNL_INCLUDE_DIR AND TUNEKIT_DNNL_LIBRARY)
  add_library(tunekit_dnnl INTERFACE IMPORTED GLOBAL)
  target_include_directories(tunekit_dnnl INTERFACE "${TUNEKIT_DNNL_INCLUDE_DIR}")
  target_link_libraries(tunekit_dnnl INTERFACE "${TUNEKIT_DNNL_LIBRARY}")
endif()

# libxsmm: Debian ships static libraries only; libxsmm.a calls the BLAS
# symbols of its fallback, which OpenBLAS provides (tunekit uses only its JIT
# kernels, never the fallback).
pkg_check_modules(tunekit_libxsmm QUIET IMPORTED_TARGET GLOBAL libxsmm)

# References of the tests and benchmarks, never dependencies of the kernels:
# SLEEF (accuracy and speed of the vector math), OpenBLAS, BLIS and oneDNN
# (the anchors; the tests check every engine provider).
if(TUNEKIT_BUILD_TESTS OR TUNEKIT_BUILD_BENCHMARKS)
  _tunekit_find_pkgconfig(sleef tunekit_sleef libsleef-dev)
  if(NOT TARGET PkgConfig::tunekit_openblas)
    _tunekit_missing(openblas libopenblas-dev)
  endif()
  if(NOT TARGET tunekit_blis)
    _tunekit_missing(BLIS libblis-dev)
  endif()
  if(NOT TARGET tunekit_dnnl)
    _tunekit_missing(oneDNN libdnnl-dev)
  endif()
  if(NOT TARGET PkgConfig::tunekit_libxsmm)
    _tunekit_missing(libxsmm libxsmm-dev)
  endif()
endif()

# HIP (Debian's libamdhip64-dev and hipcc, ROCm 5): the headers for the
# runtime's HIP device, hipcc and libamdhip64 for the GPU engine plugin.
set(TUNEKIT_HAVE_HIP OFF)
if(TUNEKIT_WITH_HIP OR TUNEKIT_REQUIRE_HIP)
  find_path(TUNEKIT_HIP_INCLUDE_DIR hip/hip_runtime_api.h)
  find_program(TUNEKIT_HIPCC hipcc)
  find_library(TUNEKIT_AMDHIP64_LIBRARY amdhip64)
  if(TUNEKIT_HIP_INCLUDE_DIR AND TUNEKIT_HIPCC AND TUNEKIT_AMDHIP64_LIBRARY)
    set(TUNEKIT_HAVE_HIP ON)
    # The runtime API headers, for host code compiled by the default compiler.
    add_library(tunekit_hip_headers INTERFACE IMPORTED GLOBAL)
    target_include_directories(tunekit_hip_headers SYSTEM INTERFACE "${TUNEKIT_HIP_INCLUDE_DIR}")
    target_compile_definitions(tunekit_hip_headers INTERFACE __HIP_PLATFORM_AMD__=1 TUNEKIT_HAVE_HIP_HEADERS=1)
    message(STATUS "tunekit: HIP found (${TUNEKIT_HIPCC}); GPU engines for ${TUNEKIT_HIP_ARCHITECTURES}")
  elseif(TUNEKIT_REQUIRE_HIP)
    _tunekit_missing("HIP (hip/hip_runtime_api.h, hipcc, libamdhip64)" "libamdhip64-dev and hipcc")
  else()
    message(STATUS "tunekit: HIP not found (Debian packages libamdhip64-dev and hipcc): the HIP device and GPU engines are left out")
  endif()
endif()

# Chart.js, which `tunekit report` inlines in its pages, and its licence:
# Debian's libjs-chart.js.
find_file(TUNEKIT_CHARTJS chart.min.js PATHS /usr/share/javascript/chart.js NO_DEFAULT_PATH)
find_file(TUNEKIT_CHARTJS_LICENCE copyright PATHS /usr/share/doc/libjs-chart.js NO_DEFAULT_PATH)
if(NOT TUNEKIT_CHARTJS OR NOT TUNEKIT_CHARTJS_LICENCE)
  _tunekit_missing("Chart.js (/usr/share/javascript/chart.js/chart.min.js)" libjs-chart.js)
endif()
