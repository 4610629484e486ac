# cmake -DCOMMAND=<binary> -DARGS=<;-list> -DENV=<NAME=VALUE> -DEXIT_CODE=<n> -DMESSAGE=<text> -P expect_exit_code.cmake
# Runs COMMAND with ENV set and passes only when it exits with EXIT_CODE and
# its output contains MESSAGE: a check that a failure still fails, and for
# the right reason (not a crash).
string(REPLACE "=" ";" env_pair "${ENV}")
list(GET env_pair 0 env_name)
list(GET env_pair 1 env_value)
set(ENV{${env_name}} "${env_value}")
execute_process(COMMAND "${COMMAND}" ${ARGS} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT code STREQUAL "${EXIT_CODE}")
  message(FATAL_ERROR "${COMMAND} exited with ${code}, expected ${EXIT_CODE}")
endif()
string(FIND "${out}${err}" "${MESSAGE}" found)
if(found EQUAL -1)
  message(FATAL_ERROR "${COMMAND}: output does not contain \"${MESSAGE}\"")
endif()
