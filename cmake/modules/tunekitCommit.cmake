# Script mode (cmake -P) behind the <name>-commit targets of calibrate_kernels()
# and tune_graph(): copies what the build tuned into the source tree, for the
# authors to review and commit. An ordinary build never writes the source tree;
# only this explicit target does.
#
#   -DTUNEKIT_COMMIT_PROFILE=<this_processor.toml> -DTUNEKIT_COMMIT_FOLDER=<PROFILE_DIR>
#       copies the profile to <PROFILE_DIR>/<file name it names> ("# file name: ...")
#   -DTUNEKIT_COMMIT_SOURCE=<file> -DTUNEKIT_COMMIT_DESTINATION=<file>
#       copies one file (an override file)
cmake_minimum_required(VERSION 3.25)

function(_tunekit_commit_copy source destination)
  if(NOT EXISTS "${source}")
    message(FATAL_ERROR "tunekit: ${source} does not exist yet: build the project (or the tuning target) first")
  endif()
  cmake_path(GET destination PARENT_PATH folder)
  file(MAKE_DIRECTORY "${folder}")
  file(COPY_FILE "${source}" "${destination}" ONLY_IF_DIFFERENT RESULT failed)
  if(failed)
    message(FATAL_ERROR "tunekit: cannot copy ${source} to ${destination}: ${failed}")
  endif()
  message(STATUS "tunekit: wrote ${destination}; review and commit it")
endfunction()

if(DEFINED TUNEKIT_COMMIT_PROFILE)
  if(NOT EXISTS "${TUNEKIT_COMMIT_PROFILE}")
    message(FATAL_ERROR "tunekit: ${TUNEKIT_COMMIT_PROFILE} does not exist yet: build the project first")
  endif()
  file(READ "${TUNEKIT_COMMIT_PROFILE}" text)
  if(NOT text MATCHES "\\[\\[profiles\\]\\]")
    message(STATUS "tunekit: ${TUNEKIT_COMMIT_PROFILE} holds no profile (the committed profiles already cover "
                   "this processor, or nothing was calibrated): nothing to commit")
    return()
  endif()
  if(NOT text MATCHES "# file name: ([A-Za-z0-9_.-]+\\.toml)\n")
    message(FATAL_ERROR "tunekit: ${TUNEKIT_COMMIT_PROFILE} does not name its file ('# file name: ...')")
  endif()
  _tunekit_commit_copy("${TUNEKIT_COMMIT_PROFILE}" "${TUNEKIT_COMMIT_FOLDER}/${CMAKE_MATCH_1}")
elseif(DEFINED TUNEKIT_COMMIT_SOURCE)
  _tunekit_commit_copy("${TUNEKIT_COMMIT_SOURCE}" "${TUNEKIT_COMMIT_DESTINATION}")
else()
  message(FATAL_ERROR "tunekitCommit.cmake: give TUNEKIT_COMMIT_PROFILE or TUNEKIT_COMMIT_SOURCE")
endif()
