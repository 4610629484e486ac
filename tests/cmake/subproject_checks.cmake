# Checks of tunekit built as a subproject (add_subdirectory), included by
# consumer_build.cmake after the consumer's build.

# Fails unless every tunekit source that the consumer compiles is compiled
# with the command tunekit's own build (<top_build>) uses, once the two build
# folders' paths and the object, dependency-file and target names are taken
# out: with the same command, ccache (CCACHE_BASEDIR set to the build folder)
# finds the objects of one build for the other.
function(check_same_compile_commands top_build consumer_build source_dir)
  foreach(which IN ITEMS top consumer)
    set(folder "${${which}_build}")
    if(NOT EXISTS "${folder}/compile_commands.json")
      message(FATAL_ERROR "expected ${folder}/compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS is on in tunekit)")
    endif()
    file(READ "${folder}/compile_commands.json" json)
    string(JSON count LENGTH "${json}")
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON file GET "${json}" ${i} file)
      cmake_path(IS_PREFIX source_dir "${file}" NORMALIZE in_tunekit)
      if(NOT in_tunekit OR file MATCHES "/tests/|/examples/")
        continue()
      endif()
      string(JSON command GET "${json}" ${i} command)
      string(REPLACE "${folder}/" "<build>/" command "${command}")
      string(REGEX REPLACE " -(o|MT|MF|MQ) [^ ]+" "" command "${command}")
      string(MD5 id "${file}")
      set(${which}_${id} "${command}")
      list(APPEND ${which}_files "${file}")
    endforeach()
  endforeach()

  list(LENGTH consumer_files compared)
  if(compared LESS 20)
    message(FATAL_ERROR "expected the consumer to compile tunekit's sources, found ${compared}: ${consumer_files}")
  endif()
  foreach(file IN LISTS consumer_files)
    string(MD5 id "${file}")
    if(NOT DEFINED top_${id})
      message(FATAL_ERROR "${file} is compiled by the consumer but not by tunekit's own build")
    endif()
    if(NOT top_${id} STREQUAL consumer_${id})
      message(FATAL_ERROR "tunekit's build and the consumer compile ${file} with different commands "
                          "(ccache cannot share the object):\n  tunekit:  ${top_${id}}\n  consumer: ${consumer_${id}}")
    endif()
  endforeach()
  message(STATUS "tunekit's ${compared} sources have the compile commands of tunekit's own build")
endfunction()

# Lists the files under <prefix>, relative to it, into <out>.
function(_installed_files out prefix)
  file(GLOB_RECURSE files RELATIVE "${prefix}" "${prefix}/*")
  list(SORT files)
  set(${out} "${files}" PARENT_SCOPE)
endfunction()

# Fails unless the consumer's `cmake --install` installs only the consumer's
# files while TUNEKIT_INSTALL is left at its default (off in a subproject),
# and tunekit's headers and package as well once it is turned on.
function(check_subproject_install build work)
  set(prefix "${work}/install-default")
  file(REMOVE_RECURSE "${prefix}")
  run(installed ${CMAKE_COMMAND} --install "${build}" --prefix "${prefix}")
  _installed_files(files "${prefix}")
  if(NOT files STREQUAL "bin/consumer_app")
    message(FATAL_ERROR "expected the consumer's install to hold bin/consumer_app only, not:\n${files}")
  endif()

  run(reconfigured ${CMAKE_COMMAND} -S "${work}/src" -B "${build}" -DTUNEKIT_INSTALL=ON)
  # Targets with install rules are linked again: their build RPATH (the
  # BLAS folders) is laid out for the install to rewrite.
  run(rebuilt ${CMAKE_COMMAND} --build "${build}")
  set(prefix "${work}/install-tunekit")
  file(REMOVE_RECURSE "${prefix}")
  run(installed ${CMAKE_COMMAND} --install "${build}" --prefix "${prefix}")
  expect_installed_only("${prefix}" bin/consumer_app bin/tunekit bin/tunekit_gen include/tunekit/ lib/)
  _installed_files(files "${prefix}")
  foreach(expected IN ITEMS bin/consumer_app include/tunekit/core/error.hpp include/tunekit/core/version.hpp
                            lib/cmake/tunekit/tunekitConfig.cmake)
    if(NOT expected IN_LIST files)
      message(FATAL_ERROR "expected ${expected} in the install with TUNEKIT_INSTALL=ON, which holds:\n${files}")
    endif()
  endforeach()
  message(STATUS "a subproject installs none of tunekit's files by default, and "
                 "TUNEKIT_INSTALL=ON installs them")
endfunction()
