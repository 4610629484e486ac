# The public CMake functions of tunekit, available after add_subdirectory(tunekit)
# or find_package(tunekit CONFIG).
#
#   tunekit_add_tuning_spec(<target> SPEC <tuning.toml> [HEADER <name>])
#
# Generates the typed defaults header of a tuning spec (`tunekit_gen gen-defaults`)
# at build time into <binary dir>/tunekit_generated/<target>/<name> (default name:
# <target>_tuning.hpp) and puts that folder on <target>'s include path (PUBLIC for
# a library, PRIVATE for an executable), so `#include "<name>"` finds it. The
# header is generated again only when the spec or the generator changed, and an
# unchanged result leaves the file as it was. The generated headers of a target
# are listed in its TUNEKIT_TUNING_HEADERS property.
#
# calibrate_kernels() and tune_graph() are in tunekitBuildTuning.cmake.
include_guard(GLOBAL)

# The generator: the tunekit_gen target of this build, or the one of an
# installed tunekit package.
function(_tunekit_generator out_target out_depends)
  if(TARGET tunekit_gen)
    set(${out_target} tunekit_gen PARENT_SCOPE)
    set(${out_depends} tunekit_gen PARENT_SCOPE)
  elseif(TARGET tunekit::gen)
    set(${out_target} tunekit::gen PARENT_SCOPE)
    set(${out_depends} "$<TARGET_FILE:tunekit::gen>" PARENT_SCOPE)
  else()
    message(FATAL_ERROR "tunekit: the generator tunekit_gen is not defined; "
                        "add_subdirectory(tunekit) or find_package(tunekit CONFIG) before calling tunekit functions")
  endif()
endfunction()

function(tunekit_add_tuning_spec target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SPEC;HEADER" "")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tunekit_add_tuning_spec(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tunekit_add_tuning_spec: '${target}' is not a target")
  endif()
  if(NOT ARG_SPEC)
    message(FATAL_ERROR "tunekit_add_tuning_spec(${target}): SPEC <tuning.toml> is required")
  endif()
  if(NOT ARG_HEADER)
    set(ARG_HEADER "${target}_tuning.hpp")
  endif()
  if(IS_ABSOLUTE "${ARG_HEADER}" OR ARG_HEADER MATCHES "(^|/)\\.\\.(/|$)")
    message(FATAL_ERROR "tunekit_add_tuning_spec(${target}): HEADER '${ARG_HEADER}' must be a relative include "
                        "name such as my_lib/tuning_defaults.hpp")
  endif()

  cmake_path(ABSOLUTE_PATH ARG_SPEC BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE spec)
  set(folder "${CMAKE_CURRENT_BINARY_DIR}/tunekit_generated/${target}")
  set(header "${folder}/${ARG_HEADER}")
  _tunekit_generator(generator generator_depends)

  add_custom_command(
    OUTPUT "${header}"
    COMMAND "$<TARGET_FILE:${generator}>" gen-defaults "${spec}" -o "${header}"
    DEPENDS "${spec}" ${generator_depends}
    COMMENT "tunekit: generating ${ARG_HEADER} from ${spec}"
    VERBATIM)

  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    set(scope INTERFACE)
    add_custom_target(${target}_tuning_header DEPENDS "${header}")
    add_dependencies(${target} ${target}_tuning_header)
  else()
    if(type STREQUAL "EXECUTABLE")
      set(scope PRIVATE)
    else()
      set(scope PUBLIC)
    endif()
    # A source of the target, so the header exists before any of the
    # target's (or its dependents') files compile.
    target_sources(${target} PRIVATE "${header}")
  endif()
  target_include_directories(${target} ${scope} "$<BUILD_INTERFACE:${folder}>")
  set_property(TARGET ${target} APPEND PROPERTY TUNEKIT_TUNING_HEADERS "${header}")
endfunction()

include("${CMAKE_CURRENT_LIST_DIR}/tunekitBuildTuning.cmake")
