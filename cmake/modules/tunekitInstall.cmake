# Install rules and the CMake package (find_package(tunekit CONFIG)): headers,
# the libraries, the tunekit tool and tunekit_gen, the generated headers of
# tunekit_cpu, and the public CMake functions. Every exported target is named
# tunekit::<name>, the same name as its alias in an add_subdirectory build.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TUNEKIT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/tunekit" CACHE STRING
    "Where the tunekit CMake package is installed, relative to the prefix")

function(_tunekit_export target name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  install(TARGETS ${target} EXPORT tunekitTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

foreach(module IN LISTS TUNEKIT_RUNTIME_MODULES)
  _tunekit_export(tunekit_${module} ${module})
endforeach()
_tunekit_export(tunekit_runtime runtime)
_tunekit_export(tunekit_build_flags build_flags)
_tunekit_export(tunekit_cpu cpu_kernels)
_tunekit_export(tunekit_codegen codegen)
_tunekit_export(tunekit_driver driver)
_tunekit_export(tunekit_tool tunekit)
_tunekit_export(tunekit_gen gen)
# The CPU engine providers: tunekit::cpu_engines (register_cpu_engines) and
# one library per provider that was built; the package finds their libraries
# again (TUNEKIT_ENGINE_PROVIDERS in tunekitConfig.cmake).
_tunekit_export(tunekit_cpu_engines cpu_engines)
set(TUNEKIT_ENGINE_PROVIDERS "")
foreach(provider IN ITEMS tunekit openblas blis onednn libxsmm)
  if(TARGET tunekit_engines_${provider})
    _tunekit_export(tunekit_engines_${provider} engines_${provider})
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/kernels/cpu/engines/${provider}/include/"
            DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
    list(APPEND TUNEKIT_ENGINE_PROVIDERS ${provider})
  endif()
endforeach()
install(DIRECTORY "${PROJECT_SOURCE_DIR}/kernels/cpu/engines/all/include/"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")

# The GPU engine plugin, which programs load by its path (tunekit tune --device
# hip --plugin <prefix>/lib/tunekit/libtunekit_hip_engines.so): installed, not exported.
if(TARGET tunekit_hip_engines)
  install(TARGETS tunekit_hip_engines LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}/tunekit")
endif()

# Every folder below must be set: an empty one would read as "/" and install
# every header of the file system.
foreach(folder IN ITEMS TUNEKIT_RUNTIME_GENERATED_INCLUDE)
  if(NOT IS_DIRECTORY "${${folder}}")
    message(FATAL_ERROR "tunekit install rules: ${folder} ('${${folder}}') is not a folder")
  endif()
endforeach()
install(DIRECTORY "${PROJECT_SOURCE_DIR}/runtime/include/" "${TUNEKIT_RUNTIME_GENERATED_INCLUDE}/"
                  "${PROJECT_SOURCE_DIR}/kernels/cpu/include/" "${PROJECT_SOURCE_DIR}/generator/driver/include/"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
# Headers generated from tunekit_cpu's spec and profiles, at their include names.
get_target_property(_tunekit_cpu_headers tunekit_cpu TUNEKIT_TUNING_HEADERS)
foreach(header IN LISTS _tunekit_cpu_headers)
  cmake_path(RELATIVE_PATH header BASE_DIRECTORY "${CMAKE_BINARY_DIR}/tunekit_generated/tunekit_cpu"
             OUTPUT_VARIABLE relative)
  cmake_path(GET relative PARENT_PATH relative_folder)
  install(FILES "${header}" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/${relative_folder}")
endforeach()

install(EXPORT tunekitTargets NAMESPACE tunekit:: DESTINATION "${TUNEKIT_INSTALL_CMAKEDIR}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/modules/tunekitConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/tunekitConfig.cmake"
                              INSTALL_DESTINATION "${TUNEKIT_INSTALL_CMAKEDIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/tunekitConfigVersion.cmake"
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/tunekitConfig.cmake" "${PROJECT_BINARY_DIR}/tunekitConfigVersion.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/modules/tunekit.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/modules/tunekitBuildTuning.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/modules/tunekitCommit.cmake"
        DESTINATION "${TUNEKIT_INSTALL_CMAKEDIR}")
