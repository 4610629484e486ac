# ctest script (cmake -P): builds examples/consumer against this build of
# tunekit and checks what calibrate_kernels() and tune_graph() promise.
#
#   -DMODE=find_package|subdirectory  how the consumer gets tunekit
#   -DTUNEKIT_SOURCE_DIR, -DTUNEKIT_BINARY_DIR, -DWORK (scratch folder),
#   -DTOOL (the tunekit tool), -DBUILD_TYPE, -DGENERATOR, -DINITIAL_CACHE
#   (optional: a cmake -C script with this build's compilers and flags),
#   -DPYTHON (optional: the interpreter the Python module was built for)
#
# subdirectory: also checks that tunekit's compile commands are those of this
# build (so ccache reuses its objects) and that the consumer's install holds
# none of tunekit's files unless TUNEKIT_INSTALL is on.
#
# find_package: stages `cmake --install` of this build under WORK/prefix and
# also checks <name>-commit, WHEN never and WHEN install.
cmake_minimum_required(VERSION 3.25)

foreach(required MODE TUNEKIT_SOURCE_DIR TUNEKIT_BINARY_DIR WORK TOOL BUILD_TYPE GENERATOR)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "consumer_build.cmake: -D${required}=... is required")
  endif()
endforeach()

# Runs a command; fails the test with its output unless it exits 0. The
# combined output is returned in <out>.
function(run out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  set(text "${stdout}${stderr}")
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "FAILED (exit ${result}): ${command}\n${text}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Runs a command that must fail; its output is returned in <out>.
function(run_failing out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(result EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "expected a failure: ${command}\n${stdout}${stderr}")
  endif()
  set(${out} "${stdout}${stderr}" PARENT_SCOPE)
endfunction()

function(expect text pattern why)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "expected ${why} (/${pattern}/) in:\n${text}")
  endif()
endfunction()

function(expect_not text pattern why)
  if(text MATCHES "${pattern}")
    message(FATAL_ERROR "did not expect ${why} (/${pattern}/) in:\n${text}")
  endif()
endfunction()

# expect() on a CMake message, which CMake wraps at a width and indents: runs
# of white space in <text> match a single space in <pattern>.
function(expect_message text pattern why)
  string(REGEX REPLACE "[ \t\n]+" " " text "${text}")
  expect("${text}" "${pattern}" "${why}")
endfunction()

function(expect_no_message text pattern why)
  string(REGEX REPLACE "[ \t\n]+" " " text "${text}")
  expect_not("${text}" "${pattern}" "${why}")
endfunction()

function(expect_file path)
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "expected the file ${path}")
  endif()
endfunction()

# Fails unless every file under <prefix> lies under one of the given paths
# (relative to it): an install rule with an empty folder variable installs
# from "/", and this names the stray files instead of timing out.
function(expect_installed_only prefix)
  file(GLOB_RECURSE files RELATIVE "${prefix}" "${prefix}/*")
  set(stray "")
  foreach(file IN LISTS files)
    set(allowed FALSE)
    foreach(path IN LISTS ARGN)
      string(FIND "${file}" "${path}" at)
      if(at EQUAL 0)
        set(allowed TRUE)
        break()
      endif()
    endforeach()
    if(NOT allowed)
      list(APPEND stray "${file}")
    endif()
  endforeach()
  if(stray)
    list(SUBLIST stray 0 20 shown)
    message(FATAL_ERROR "expected the install under ${prefix} to hold only ${ARGN}, but it also holds:\n${shown}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK}")
set(source "${WORK}/src")
file(COPY "${TUNEKIT_SOURCE_DIR}/examples/consumer/" DESTINATION "${source}")
set(configure_options -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
if(INITIAL_CACHE)
  list(PREPEND configure_options -C "${INITIAL_CACHE}")
endif()
if(MODE STREQUAL "find_package")
  set(prefix "${WORK}/prefix")
  run(installed ${CMAKE_COMMAND} --install "${TUNEKIT_BINARY_DIR}" --prefix "${prefix}" --config ${BUILD_TYPE})
  expect_installed_only("${prefix}" bin/tunekit bin/tunekit_gen include/tunekit/ lib/)
  if(PYTHON)
    message(STATUS "import tunekit from the staged install")
    set(site "${prefix}/lib/python3/dist-packages")
    run(imported ${CMAKE_COMMAND} -E env "PYTHONPATH=${site}" "${PYTHON}" -c
        # Lines, not semicolons: a semicolon would split the argument into a list.
        "import numpy, tunekit\nprint(tunekit.__file__, tunekit.__version__, tunekit.kernels.unary('Abs', numpy.array([-1.5], numpy.float32))[0])")
    expect("${imported}" "${site}/tunekit/__init__.py [0-9]+\\.[0-9]+\\.[0-9]+ 1\\.5" "the installed module")
  endif()
  list(APPEND configure_options "-DCMAKE_PREFIX_PATH=${prefix}")
elseif(MODE STREQUAL "subdirectory")
  list(APPEND configure_options "-DTUNEKIT_SOURCE_DIR=${TUNEKIT_SOURCE_DIR}" -DTUNEKIT_USE_CCACHE=ON)
else()
  message(FATAL_ERROR "MODE must be find_package or subdirectory, not '${MODE}'")
endif()

set(build "${WORK}/build")
message(STATUS "configuring the consumer (${MODE})")
run(configured ${CMAKE_COMMAND} -S "${source}" -B "${build}" ${configure_options})
expect_no_message("${configured}" "without optimisation" "a warning about an optimised build")

message(STATUS "first build: calibrates, tunes, generates")
run(first ${CMAKE_COMMAND} --build "${build}")
expect("${first}" "tunekit: calibrating consumer_calibration" "the calibration step")
expect("${first}" "tunekit: autotuning projection \\(consumer_graphs\\)" "the tuning of graphs/projection.toml")
expect("${first}" "tunekit: autotuning scores \\(consumer_graphs\\)" "the tuning of graphs/scores.toml")
expect("${first}" "tune: [^\n]*projection.toml \\[base\\]: [0-9]+ candidates" "one progress line per graph with its candidates")

# What the build produced exists and validates.
set(profile "${build}/tunekit/consumer_calibration/this_processor.toml")
set(overrides "${build}/consumer_overrides.json")
expect_file("${profile}")
expect_file("${overrides}")
expect_file("${build}/tunekit_generated/consumer_calibration/consumer/processor_profiles.hpp")
expect_file("${build}/tunekit_generated/consumer_graphs/consumer/embedded_overrides.hpp")
run(validated "${TOOL}" overrides validate "${overrides}")
run(imported "${build}/consumer_calibration_driver" cache import "${profile}")
file(READ "${profile}" profile_text)
expect("${profile_text}" "\\[\\[profiles\\]\\]" "a calibrated profile of this processor")
expect("${profile_text}" "\n# build type: ${BUILD_TYPE}\n" "the build type in the profile")
file(READ "${build}/tunekit/consumer_calibration/calibration_report.json" report_text)
expect("${report_text}" "\"build_type\": \"${BUILD_TYPE}\"" "the build type in the calibration report")

run(app "${build}/consumer_app")
message(STATUS "consumer_app:\n${app}")
expect("${app}" "saxpy float: [^\n]*\\(source: exact_processor" "the calibrated values of this processor")
expect("${app}" "with consumer engines: selected engine: consumer_matmul_[^\n]*from override entry [0-9]+ of embedded:consumer_overrides.json" "the engine the embedded tuned override selected")
expect("${app}" "with tunekit's CPU engines: selected engine: CPU_MATMUL_" "a matmul on tunekit::cpu_engines")
expect_not("${app}" "MISMATCH|mismatch" "a wrong result")

message(STATUS "second build: nothing to do")
run(second ${CMAKE_COMMAND} --build "${build}")
expect_not("${second}" "tunekit: (calibrating|autotuning|generating|embedding)" "a tuning step")
if(GENERATOR STREQUAL "Ninja")
  expect("${second}" "ninja: no work to do" "an up-to-date build")
endif()

message(STATUS "touching graphs/scores.toml retunes only it")
file(TOUCH "${source}/graphs/scores.toml")
run(third ${CMAKE_COMMAND} --build "${build}")
expect("${third}" "tunekit: autotuning scores \\(consumer_graphs\\)" "the tuning of the touched graph")
expect_not("${third}" "tunekit: autotuning projection |tunekit: calibrating" "a step whose inputs did not change")

message(STATUS "touching tuning.toml regenerates the defaults header, which stays the same: nothing else reruns")
file(TOUCH "${source}/tuning.toml")
run(spec_touched ${CMAKE_COMMAND} --build "${build}")
expect("${spec_touched}" "tunekit: generating consumer/tuning_defaults.hpp" "the generation of the touched spec")
expect_not("${spec_touched}" "tunekit: calibrating|tunekit: autotuning|Linking" "a step after an unchanged header")

if(MODE STREQUAL "subdirectory")
  include("${CMAKE_CURRENT_LIST_DIR}/subproject_checks.cmake")
  check_same_compile_commands("${TUNEKIT_BINARY_DIR}" "${build}" "${TUNEKIT_SOURCE_DIR}")
  check_subproject_install("${build}" "${WORK}")
  return()
endif()

message(STATUS "consumer_calibration-commit copies the profile into the source tree")
run(committed ${CMAKE_COMMAND} --build "${build}" --target consumer_calibration-commit)
file(GLOB committed_profiles "${source}/profiles/*.toml")
list(LENGTH committed_profiles count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one committed profile in ${source}/profiles, found: ${committed_profiles}\n${committed}")
endif()
# With the profile committed, WHEN missing calibrates nothing for this processor.
run(fourth ${CMAKE_COMMAND} --build "${build}")
expect("${fourth}" "covered +consumer_kernels/" "the committed profile covering this processor")
expect_not("${fourth}" "calibrated  consumer_kernels/" "a calibration the committed profile made needless")
run(app_committed "${build}/consumer_app")
expect("${app_committed}" "saxpy float: [^\n]*\\(source: exact_processor" "the committed profile's values")

message(STATUS "the consumer_calibration target recalibrates from the committed values (keep unless faster)")
run(recalibrated ${CMAKE_COMMAND} --build "${build}" --target consumer_calibration)
expect("${recalibrated}" "committed +consumer_kernels/" "the committed values the recalibration starts from")

message(STATUS "WHEN never uses the committed profiles and says so")
run(never_configured ${CMAKE_COMMAND} -S "${source}" -B "${WORK}/build-never" ${configure_options}
    -DCONSUMER_CALIBRATE_WHEN=never)
expect("${never_configured}" "WHEN never: using the committed profiles" "the configure message of WHEN never")
run(never_built ${CMAKE_COMMAND} --build "${WORK}/build-never")
expect_not("${never_built}" "tunekit: calibrating" "a calibration")

message(STATUS "an unoptimised build warns at configure time, and its calibration records and repeats it")
set(unoptimised "${WORK}/build-unoptimised")
run(unoptimised_configured ${CMAKE_COMMAND} -S "${source}" -B "${unoptimised}" ${configure_options} -DCMAKE_BUILD_TYPE=)
expect_message("${unoptimised_configured}" "consumer_kernels is compiled without optimisation \\(no CMAKE_BUILD_TYPE"
       "the configure-time warning of a build without a build type")
run(unoptimised_built ${CMAKE_COMMAND} --build "${unoptimised}" --target consumer_calibration_driver)
run(unoptimised_calibrated "${unoptimised}/consumer_calibration_driver" calibrate --no-cache --time-budget 1
    --report "${unoptimised}/report.json" --profile-out "${unoptimised}/profile.toml")
expect("${unoptimised_calibrated}" "warning: the kernels were built without optimisation \\(build type 'none'\\)"
       "the calibration's warning")
file(READ "${unoptimised}/report.json" unoptimised_report)
expect("${unoptimised_report}" "\"build_type\": \"none\"" "the unoptimised build type in the report")
file(READ "${unoptimised}/profile.toml" unoptimised_profile)
expect("${unoptimised_profile}" "\n# build type: none\n" "the unoptimised build type in the profile")
run(debug_configured ${CMAKE_COMMAND} -S "${source}" -B "${WORK}/build-debug" ${configure_options} -DCMAKE_BUILD_TYPE=Debug)
expect_message("${debug_configured}" "compiled without optimisation \\(CMAKE_BUILD_TYPE Debug" "the warning of a Debug build")

message(STATUS "an unknown WHEN stops configuration naming the option and the choices")
run_failing(bad_when ${CMAKE_COMMAND} -S "${source}" -B "${WORK}/build-bad" ${configure_options}
            -DCONSUMER_CALIBRATE_WHEN=sometimes)
expect_message("${bad_when}" "calibrate_kernels\\(consumer_calibration\\): WHEN 'sometimes' is not one of always\\|missing\\|never\\|install"
       "the refusal of WHEN sometimes")

message(STATUS "tune_graph refuses a race of isolated candidates")
run_failing(race_isolated ${CMAKE_COMMAND} -S "${source}" -B "${WORK}/build-race" ${configure_options}
            -DCONSUMER_TUNE_STRATEGY=race)
expect_message("${race_isolated}" "tune_graph\\(consumer_graphs\\): STRATEGY race measures the candidates together in one process[^\n]*add NO_ISOLATE"
       "the refusal of STRATEGY race with isolation")

message(STATUS "WHEN install calibrates during cmake --install")
file(REMOVE_RECURSE "${source}/profiles")
file(MAKE_DIRECTORY "${source}/profiles")
set(app_prefix "${WORK}/app-prefix")
run(install_configured ${CMAKE_COMMAND} -S "${source}" -B "${WORK}/build-install" ${configure_options}
    -DCONSUMER_CALIBRATE_WHEN=install)
run(install_built ${CMAKE_COMMAND} --build "${WORK}/build-install")
expect_not("${install_built}" "tunekit: calibrating" "a calibration at build time")
run(install_installed ${CMAKE_COMMAND} --install "${WORK}/build-install" --prefix "${app_prefix}")
expect("${install_installed}" "tunekit: calibrating consumer_calibration on this machine" "the install-time calibration")
expect_file("${app_prefix}/share/tunekit_consumer/tunekit/profiles/consumer_calibration.toml")
run(installed_app "${app_prefix}/bin/consumer_app")
message(STATUS "installed consumer_app:\n${installed_app}")
expect("${installed_app}" "saxpy float: [^\n]*\\(source: exact_processor" "the installed profile's values")
