# The public CMake functions of tunekit, available after add_subdirectory(tunekit)
# or find_package(tunekit CONFIG).
#
#   tunekit_add_tuning_spec(<target> SPEC <tuning.toml> [HEADER <name>])
#
# Generates the typed defaults header of a tuning spec (`tunekit_gen gen-defaults`)
# at build time into <top-level build folder>/tunekit_generated/<target>/<name>
# (default name: <target>_tuning.hpp; CMAKE_BINARY_DIR, since target names are
# unique in a build) and puts that folder on <target>'s include path (PUBLIC for
# a library, PRIVATE for an executable), so `#include "<name>"` finds it. The
# header is generated again only when the spec or the generator changed, and an
# unchanged result leaves the file as it was. The generated headers of a target
# are listed in its TUNEKIT_TUNING_HEADERS property, and its specs (absolute
# paths) in TUNEKIT_TUNING_SPECS.
#
#   tunekit_add_profiles(<target> PROFILES <folder-or-file>... HEADER <name>
#                        [SPEC <tuning.toml>...] [NAMESPACE <ns>] [FUNCTION <fn>])
#
# Generates, at build time (`tunekit_gen gen-profiles`), the header whose one
# function (default register_processor_profiles, in NAMESPACE, default the
# first spec's namespace) registers every processor profile of the PROFILES
# folders (their *.toml files) and files, into
# <top-level build folder>/tunekit_generated/<target>/<name>, on <target>'s include path as
# above. Every profile is validated against the SPECs (default: the target's
# TUNEKIT_TUNING_SPECS, so call tunekit_add_tuning_spec first), so a bad profile
# fails the build naming its file and field. A profile of a later input
# replaces one of an earlier input with the same key and selector. A folder
# that does not exist adds no profiles; adding a file to a folder reconfigures.
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

# Makes a generated header part of <target>: its folder on the include path
# (PUBLIC for a library, PRIVATE for an executable, INTERFACE for an interface
# library), generated before anything of the target compiles, and listed in
# TUNEKIT_TUNING_HEADERS. <suffix> names the helper target of an interface library.
function(_tunekit_attach_header target folder header suffix)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    set(scope INTERFACE)
    add_custom_target(${target}_${suffix} DEPENDS "${header}")
    add_dependencies(${target} ${target}_${suffix})
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
  set(folder "${CMAKE_BINARY_DIR}/tunekit_generated/${target}")
  set(header "${folder}/${ARG_HEADER}")
  _tunekit_generator(generator generator_depends)

  add_custom_command(
    OUTPUT "${header}"
    COMMAND "$<TARGET_FILE:${generator}>" gen-defaults "${spec}" -o "${header}"
    DEPENDS "${spec}" ${generator_depends}
    COMMENT "tunekit: generating ${ARG_HEADER} from ${spec}"
    VERBATIM)

  _tunekit_attach_header(${target} "${folder}" "${header}" tuning_header)
  set_property(TARGET ${target} APPEND PROPERTY TUNEKIT_TUNING_SPECS "${spec}")
endfunction()

function(tunekit_add_profiles target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "HEADER;NAMESPACE;FUNCTION" "PROFILES;SPEC")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tunekit_add_profiles(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tunekit_add_profiles: '${target}' is not a target")
  endif()
  if(NOT ARG_PROFILES)
    message(FATAL_ERROR "tunekit_add_profiles(${target}): PROFILES <folder-or-file>... is required")
  endif()
  if(NOT ARG_HEADER)
    message(FATAL_ERROR "tunekit_add_profiles(${target}): HEADER <name> is required")
  endif()
  if(IS_ABSOLUTE "${ARG_HEADER}" OR ARG_HEADER MATCHES "(^|/)\\.\\.(/|$)")
    message(FATAL_ERROR "tunekit_add_profiles(${target}): HEADER '${ARG_HEADER}' must be a relative include "
                        "name such as my_lib/processor_profiles.hpp")
  endif()

  # The inputs in order, and exactly the files they hold. A folder is globbed
  # with CONFIGURE_DEPENDS, so a profile added to it (or the folder created)
  # reconfigures; a missing path named *.toml is a file another rule makes.
  set(inputs "")
  set(profile_files "")
  foreach(input IN LISTS ARG_PROFILES)
    cmake_path(ABSOLUTE_PATH input BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE path)
    list(APPEND inputs "${path}")
    if(IS_DIRECTORY "${path}" OR (NOT EXISTS "${path}" AND NOT path MATCHES "\\.toml$"))
      file(GLOB found CONFIGURE_DEPENDS "${path}/*.toml")
      list(SORT found)
      list(APPEND profile_files ${found})
    else()
      list(APPEND profile_files "${path}")
    endif()
  endforeach()

  if(ARG_SPEC)
    set(specs "")
    foreach(spec IN LISTS ARG_SPEC)
      cmake_path(ABSOLUTE_PATH spec BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE path)
      list(APPEND specs "${path}")
    endforeach()
  else()
    get_target_property(specs ${target} TUNEKIT_TUNING_SPECS)
    if(NOT specs)
      set(specs "")
      message(STATUS "tunekit_add_profiles(${target}): no tuning spec (SPEC, or tunekit_add_tuning_spec before "
                     "this call), so profiles are checked for their format only")
    endif()
  endif()
  set(spec_arguments "")
  foreach(spec IN LISTS specs)
    list(APPEND spec_arguments --spec "${spec}")
  endforeach()
  set(name_arguments "")
  if(ARG_NAMESPACE)
    list(APPEND name_arguments --namespace "${ARG_NAMESPACE}")
  endif()
  if(ARG_FUNCTION)
    list(APPEND name_arguments --function "${ARG_FUNCTION}")
  endif()

  set(folder "${CMAKE_BINARY_DIR}/tunekit_generated/${target}")
  set(header "${folder}/${ARG_HEADER}")
  # The list of profile files, rewritten only when it changes: a file removed
  # from a folder changes neither the command line nor any remaining input, so
  # the header depends on this list as well.
  string(MAKE_C_IDENTIFIER "${ARG_HEADER}" header_id)
  set(input_list "${CMAKE_BINARY_DIR}/tunekit_generated/${target}_${header_id}.inputs")
  list(JOIN profile_files "\n" input_lines)
  file(CONFIGURE OUTPUT "${input_list}" CONTENT "${input_lines}\n" @ONLY)
  _tunekit_generator(generator generator_depends)
  add_custom_command(
    OUTPUT "${header}"
    COMMAND "$<TARGET_FILE:${generator}>" gen-profiles ${inputs} -o "${header}" ${spec_arguments} ${name_arguments}
    DEPENDS ${profile_files} "${input_list}" ${specs} ${generator_depends}
    COMMENT "tunekit: generating ${ARG_HEADER} from the profiles of ${ARG_PROFILES}"
    VERBATIM)
  _tunekit_attach_header(${target} "${folder}" "${header}" profiles_header)
endfunction()

include("${CMAKE_CURRENT_LIST_DIR}/tunekitBuildTuning.cmake")
