# cmake -DTOOL=<tunekit> -DBENCH=<bench_calibration_side_by_side> -DFOLDER=<scratch> -P side_by_side_smoke.cmake
# Two short calibrations of Abs and Add (float, no cache) into profiles, then
# the side-by-side benchmark on them: it must time both keys and print its
# summary line.
file(REMOVE_RECURSE "${FOLDER}")
file(MAKE_DIRECTORY "${FOLDER}")
foreach(run 0 1)
  execute_process(COMMAND "${TOOL}" calibrate --no-cache --kernel Abs --kernel Add --element-type float
                          --time-budget 1 --profile-out "${FOLDER}/profile-${run}.toml"
                  RESULT_VARIABLE code OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "calibrate run ${run} exited with ${code}: ${err}")
  endif()
endforeach()
execute_process(COMMAND "${BENCH}" --rounds 3 --min-sample-ms 0.2 "${FOLDER}/profile-0.toml" "${FOLDER}/profile-1.toml"
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the benchmark exited with ${code}")
endif()
foreach(expected "Abs/" "Add/" "of 2 timed keys have every chosen configuration")
  string(FIND "${out}" "${expected}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "the benchmark's output does not contain \"${expected}\"")
  endif()
endforeach()
